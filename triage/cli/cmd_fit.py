"""``triage fit``: the largest max_length, batch size or LoRA rank that fits the GPU.

Exit codes: 0 a value fits, 1 nothing fits (not even 1), 2 usage, 3 bad input (e.g. no GPU).
"""

from __future__ import annotations

import argparse
import sys

from triage.cli.cmd_estimate import add_run_arguments, read_run
from triage.cli.errors import EXIT_FAILED, EXIT_OK, InputError

NAME = "fit"
HELP = "find the largest max_length, batch size or LoRA rank that fits the GPU"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--solve",
        choices=["max_length", "batch_size", "lora_r"],
        default="max_length",
        help="what to solve for (default max_length)",
    )
    parser.add_argument(
        "--headroom", type=float, default=0.05, metavar="FRACTION", help="fraction of the GPU kept free (default 0.05)"
    )
    parser.add_argument("--upper", type=int, metavar="N", help="largest value to consider")
    add_run_arguments(parser)
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the text output")


def run(args: argparse.Namespace) -> int:
    from triage import api
    from triage.render.estimate import fit_json, render_fit
    from triage.render.outbound import for_terminal, json_text

    if not 0 <= args.headroom < 1:
        raise InputError("--headroom is a fraction in [0, 1), e.g. 0.05")
    _kb, inputs = read_run(args)
    try:
        result = api.fit_inputs(inputs, args.solve, headroom=args.headroom, upper=args.upper)
    except api.EstimateError as exc:
        raise InputError(str(exc).strip("'\"")) from None
    if args.format == "json":
        sys.stdout.write(json_text(fit_json(result, args.solve, inputs, args.lang)) + "\n")
    else:
        sys.stdout.write(for_terminal(render_fit(result, args.solve, args.headroom, inputs, args.lang)))
    return EXIT_OK if result.value is not None else EXIT_FAILED
