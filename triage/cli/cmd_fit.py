"""``triage fit``: the largest max_length, batch size or LoRA rank that fits the GPU.

Exit codes: 0 a value fits, 1 nothing fits (not even 1), 2 usage, 3 bad input (e.g. no GPU).
"""

from __future__ import annotations

import argparse
import json
import sys

from triage.cli.cmd_estimate import GiB, add_run_arguments, collect_facts, describe_run
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


def run(args: argparse.Namespace) -> int:
    from triage.estimate import ChangeError, OptimizerError, RunError, fit

    if not 0 <= args.headroom < 1:
        raise InputError("--headroom is a fraction in [0, 1), e.g. 0.05")
    values, arch = collect_facts(args)
    try:
        result = fit(values, args.solve, headroom=args.headroom, arch=arch, upper=args.upper)
    except (RunError, OptimizerError, ChangeError) as exc:
        raise InputError(str(exc)) from None
    est = result.estimate
    if args.format == "json":
        sys.stdout.write(
            json.dumps(
                {
                    "variable": result.variable,
                    "value": result.value,
                    "upper": result.upper,
                    "target_gib": round(result.target_bytes / GiB, 3),
                    "device_expected_gib": round(est.device_total.expected / GiB, 3),
                    "peak_allocated_gib": round(est.peak_bytes / GiB, 3),
                    "assumptions": [a.to_json() for a in est.assumptions if a.fact != args.solve],
                },
                ensure_ascii=False,
                indent=2,
            )
            + "\n"
        )
    else:
        head = describe_run(est)
        if result.value is None:
            sys.stdout.write(
                f"{head}\nNothing fits: even {args.solve}=1 needs {est.device_total.expected / GiB:.2f} "
                f"GiB against a target of {result.target_bytes / GiB:.2f} GiB.\n"
            )
        else:
            capped = " (the search's upper bound)" if result.value == result.upper else ""
            sys.stdout.write(
                f"{head}\nLargest {args.solve} that fits: {result.value}{capped}: "
                f"{est.device_total.expected / GiB:.2f} GiB expected on the device, target "
                f"{result.target_bytes / GiB:.2f} GiB ({args.headroom:.0%} headroom).\n"
            )
    return EXIT_OK if result.value is not None else EXIT_FAILED
