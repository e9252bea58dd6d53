"""``triage run -- <command ...>``: run a training command unchanged and diagnose it if it runs out of memory."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from triage.cli.errors import InputError, UsageError
from triage.render.strings import t

if TYPE_CHECKING:
    from triage.api import Analysis
    from triage.kb.loader import KnowledgeBase

NAME = "run"
HELP = "run a training command unchanged; if it runs out of memory, diagnose it from what it said and did"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--log-to",
        metavar="FILE",
        help="keep the copy of the command's output here (default: a temporary file, kept only when the command "
        "fails; its path is printed)",
    )
    out = parser.add_argument_group("output (the diagnosis goes to standard error, after the command's output)")
    out.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    out.add_argument("--output", metavar="FILE", help="write the diagnosis to FILE instead of standard error")
    out.add_argument("--top", type=int, default=5, metavar="N", help="how many causes to list (default 5)")
    out.add_argument("--lang", choices=["en", "zh"], default="en", help="output language")
    parser.add_argument("--knowledge", type=Path, metavar="DIR", help="use this knowledge directory")
    parser.add_argument(
        "argv",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ...",
        help="the training command, exactly as you run it (e.g. -- torchrun --nproc_per_node 4 train.py ...)",
    )
    parser.epilog = (
        "triage exits with the command's own exit code (128+N when signal N ended it); before the command "
        "starts: 2 no command, 3 --log-to cannot be written, 126 not executable, 127 command not found."
    )


def _say(text: str) -> None:
    print(f"triage: {text}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from triage import api

    lang = args.lang
    command = list(args.argv)
    if command[:1] == ["--"]:
        command = command[1:]
    if args.top < 1:
        raise UsageError("--top must be at least 1")
    if args.output is not None:
        parent = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(parent) or os.path.isdir(args.output):
            raise InputError(f"--output {args.output}: cannot write there")
    try:
        captured = api.capture(command, log_to=args.log_to)
    except api.RunError as exc:
        _say(t(f"run_error_{exc.key}", lang).format(**exc.params))
        return exc.exit_code
    finished = captured.finished
    code = finished.returncode
    if finished.log_problem:
        _say(t("run_log_stopped", lang).format(why=finished.log_problem))
    if code == 0:
        peak = captured.peak()
        if peak is not None:
            from triage.render.labels import GIB, gib, size

            shown = gib(peak.value / GIB) if peak.value >= GIB else size(peak.value)
            _say(t("run_peak", lang).format(metric=peak.metric, size=shown, line=peak.line))
        return code
    kind = captured.error_kind
    if kind is None:  # one line, with where the output is kept
        if captured.killed_not_by_oom:
            line = t("run_killed_not_oom", lang).format(code=code)
        elif finished.signal is not None:
            line = t("run_ended_by", lang).format(signal=_signal_name(finished.signal), code=code)
        else:
            line = t("run_failed", lang).format(code=code)
        if captured.log_path:
            line += " " + t("run_log_kept_aside", lang).format(path=captured.log_path)
        _say(line)
        return code
    _say(t("run_oom", lang).format(what=t(f"run_what_{kind}", lang), code=code))
    try:
        kb = api.knowledge(args.knowledge)
        inputs = api.read_capture(kb, captured)
        text = _render(kb, api.analyse(kb, inputs.session(lang)), inputs.text, args)
    except (api.FactError, api.IngestError, api.KnowledgeError) as exc:
        _say(str(exc))
    except KeyboardInterrupt:  # the run is over: its exit code still stands
        _say("interrupted")
    else:
        if args.output is not None:
            try:
                with open(args.output, "w", encoding="utf-8") as fh:
                    fh.write(text)
            except OSError as exc:
                _say(f"--output {args.output}: cannot write: {exc.strerror or exc}")
                sys.stderr.write(text)
        else:
            sys.stderr.write(text)
            sys.stderr.flush()
    if captured.log_path:
        _say(t("run_log_kept", lang).format(path=captured.log_path))
    return code


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _render(kb: KnowledgeBase, analysis: Analysis, excerpt: str, args: argparse.Namespace) -> str:
    """The diagnosis in the chosen format, exactly as ``triage diagnose`` renders it."""
    from triage.render.contract import to_dict
    from triage.render.outbound import for_terminal, json_text

    data = to_dict(kb, analysis.diagnosis, top=args.top, memory=analysis.memory, similar=analysis.similar)
    if args.format == "json":
        from triage.render.output import validated  # the contract's pydantic models: JSON output only

        return json_text(validated(data)) + "\n"
    if args.format == "markdown":
        from triage.render.markdown import render_markdown

        return for_terminal(render_markdown(data, symptom=excerpt))
    from triage.render.text import render_text

    return for_terminal(render_text(data))
