"""The ``triage`` command line: a thin shell over the engine API.

Each subcommand lives in its own module exposing ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; :data:`COMMANDS` lists
them. Heavy modules (Textual) are imported only inside the command that needs
them, so ``triage --symptom ...`` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from triage import __version__
from triage.cli.errors import EXIT_USAGE, UsageError, report_errors

#: Subcommand modules, in the order ``triage --help`` lists them.
COMMANDS = ["diagnose", "explain", "kb", "tui", "ask", "estimate", "fit", "measure", "run"]
#: The subcommand used when the first argument is an option (``triage --symptom ...``).
DEFAULT = "diagnose"


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so errors get one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def build_parser(only: str | None = None) -> tuple[Parser, dict[str, object]]:
    """The parser, with every subcommand, or with just ``only`` (so a run imports one command module)."""
    parser = Parser(
        prog="triage",
        description="Why did my GPU run out of memory while fine-tuning, and what do I change?",
        epilog='Quick start: triage --symptom "CUDA out of memory at step 0, LLaMA-7B LoRA on a 3090" '
        "(short for `triage diagnose --symptom ...`). With no arguments on a terminal, triage opens the "
        "interview (`triage tui`). Exit codes: 0 answered, 1 checks failed, 2 usage error, 3 bad input, "
        "70 a bug in triage (TRIAGE_DEBUG=1 shows its traceback).",
    )
    parser.add_argument("--version", action="version", version=f"triage {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    modules: dict[str, object] = {}
    for name in [only] if only in COMMANDS else COMMANDS:
        module = importlib.import_module(f"triage.cli.cmd_{name}")
        sp = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sp)
        modules[module.NAME] = module
    return parser, modules


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 answered, 1 checks failed, 2 usage, 3 bad input, 70 internal error)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    with report_errors() as outcome:
        chosen = args_list[0] if args_list and args_list[0] in COMMANDS else None
        if args_list and chosen is None and args_list[0] not in {"-h", "--help", "--version"}:
            chosen = DEFAULT if args_list[0].startswith("-") else None
        parser, modules = build_parser(chosen)
        if not args_list:
            if sys.stdin.isatty() and sys.stdout.isatty() and "tui" in modules:
                args_list = ["tui"]
            else:
                parser.print_usage(sys.stderr)
                print('triage: give a symptom, e.g. triage --symptom "CUDA out of memory at step 0"', file=sys.stderr)
                return EXIT_USAGE
        first = args_list[0]
        if first not in modules and first not in {"-h", "--help", "--version"} and first.startswith("-"):
            args_list.insert(0, DEFAULT)
        args = parser.parse_args(args_list)
        if args.command is None:
            parser.print_usage(sys.stderr)
            return EXIT_USAGE
        module = modules[args.command]
        outcome.code = int(module.run(args))  # type: ignore[attr-defined]
    return outcome.code
