"""``triage diagnose``: rank the causes of an OOM and what to change (the default command)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from triage.cli.errors import EXIT_OK, InputError, UsageError

NAME = "diagnose"
HELP = "rank the likely causes of an out-of-memory error and the remedies for them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_argument_group("what you have")
    src.add_argument(
        "--symptom",
        action="append",
        default=[],
        metavar="TEXT",
        help="what you see, in your words or pasted (repeatable)",
    )
    src.add_argument("--symptom-file", action="append", default=[], metavar="FILE", help="read the symptom from FILE")
    src.add_argument("stdin", nargs="?", choices=["-"], help="read the symptom from standard input")
    src.add_argument(
        "--log",
        action="append",
        default=[],
        metavar="FILE",
        help="a training log or traceback; streamed, any size (repeatable; - for stdin)",
    )
    src.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="FILE",
        help="transformers env / accelerate env / collect_env / pip freeze / nvidia-smi output (repeatable)",
    )
    src.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="TrainingArguments/TRL/axolotl/LLaMA-Factory/DeepSpeed/peft/model config, JSON or YAML (repeatable)",
    )
    src.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="FILE",
        help="any of the above; the kind is detected from the content (repeatable)",
    )
    src.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="FILE",
        help="triage-report.json written by triage.watch at the OOM; read as exact facts (repeatable)",
    )
    src.add_argument(
        "--snapshot",
        metavar="FILE",
        help="a PyTorch memory snapshot (.pickle) taken at the OOM: live memory by component, beside the estimate",
    )
    src.add_argument(
        "--fact",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="state a fact, e.g. --fact gradient_checkpointing=false (repeatable)",
    )
    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    out.add_argument("--top", type=int, default=5, metavar="N", help="how many causes to list (default 5)")
    out.add_argument("--lang", choices=["en", "zh"], default="en", help="output language")
    parser.add_argument("--knowledge", type=Path, metavar="DIR", help="use this knowledge directory")


#: A symptom is read whole; anything larger belongs in --log, which streams.
SYMPTOM_LIMIT = 1_000_000


def _whole(text: str, where: str) -> str:
    if len(text) > SYMPTOM_LIMIT:
        raise InputError(f"{where} is larger than 1 MB; give it with --log, which streams a log of any size")
    return text


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return _whole(fh.read(SYMPTOM_LIMIT + 1), path)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    from triage import api

    if args.top < 1:
        raise UsageError("--top must be at least 1")
    symptoms = list(args.symptom)
    symptoms += [_read_text(p) for p in args.symptom_file]
    if args.stdin == "-":
        symptoms.append(_whole(sys.stdin.read(SYMPTOM_LIMIT + 1), "standard input"))
    files = [*args.log, *args.env, *args.config, *args.input, *args.report]
    if not symptoms and not args.fact and not files and not args.snapshot:
        raise InputError(
            "nothing to diagnose: give --symptom TEXT, --symptom-file FILE, -, --log/--env/--config/--input/--report "
            "FILE, --snapshot FILE or --fact NAME=VALUE"
        )
    if args.stdin == "-" and "-" in files:
        raise UsageError("standard input can be read only once; give `-` to one option")
    kb = api.knowledge(args.knowledge)
    facts = api.parse_facts(kb, args.fact)
    from triage.cli.progress import reading

    with reading([*args.log, *args.input], enabled=args.format != "json"):
        inputs = api.read(
            kb,
            symptoms=symptoms,
            logs=args.log,
            envs=args.env,
            configs=args.config,
            inputs=args.input,
            reports=args.report,
            snapshot=args.snapshot,
            facts=facts,
        )
    analysis = api.analyse(kb, inputs.session(args.lang))
    from triage.render.contract import to_dict
    from triage.render.outbound import for_terminal, json_text

    data = to_dict(kb, analysis.diagnosis, top=args.top, memory=analysis.memory, similar=analysis.similar)
    if inputs.snapshot is not None:
        from triage.render.snapshot import snapshot_dict

        data["snapshot"] = snapshot_dict(inputs.snapshot, analysis.memory, args.lang)
    if args.format == "json":
        from triage.render.output import validated  # the contract's pydantic models: JSON output only

        sys.stdout.write(json_text(validated(data)) + "\n")
    elif args.format == "markdown":
        from triage.render.markdown import render_markdown

        sys.stdout.write(for_terminal(render_markdown(data, symptom="\n".join(s for s in symptoms if s))))
    else:
        from triage.render.text import render_text

        sys.stdout.write(for_terminal(render_text(data)))
    return EXIT_OK
