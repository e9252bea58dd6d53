"""``triage measure``: run one real training step on fake tensors and compare the estimator with it.

The same run flags as ``triage estimate`` (--model, --config, --max-length, ...). The step is
the installed transformers + peft code on PyTorch fake tensors: no GPU, no weights, a few
seconds. Needs the optional extra: ``pip install 'triage-oom[measure]'``; without it the
command says so and exits 3.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from triage.cli.errors import EXIT_OK, InputError

NAME = "measure"
HELP = "measure one training step on fake tensors (needs torch, transformers, peft) and check the estimate"

GiB = 1024**3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from triage.cli.cmd_estimate import add_run_arguments

    add_run_arguments(parser)
    m = parser.add_argument_group("measurement")
    m.add_argument(
        "--qlora", action="store_true", default=None, help="QLoRA: 4-bit NF4 base + LoRA (same as --load-in-4bit)"
    )
    m.add_argument(
        "--attn",
        choices=["eager", "sdpa", "flash_attention_2"],
        default=None,
        help="attention implementation (same as --attn-implementation)",
    )
    m.add_argument(
        "--lora-same-dtype",
        action="store_true",
        help="adapters in the base dtype (peft autocast_adapter_dtype=False) instead of fp32",
    )
    m.add_argument(
        "--no-cuda-shims",
        action="store_true",
        help="measure the raw CPU stand-in (no bool dropout masks, no fp16 softmax upcast emulation, "
        "no bitsandbytes dequantize temporary)",
    )
    m.add_argument(
        "--mode",
        choices=["fake", "real"],
        default="fake",
        help="fake tensors (default) or real CPU tensors (self-test; small models only)",
    )
    m.add_argument("--format", choices=["text", "json"], default="text")


def _spec(args: argparse.Namespace) -> tuple[Any, Any, list[str]]:
    """(MeasureSpec, the run's inputs, notes) from the flags."""
    from dataclasses import replace

    from triage import api
    from triage.cli.cmd_estimate import read_run
    from triage.facts import Source, make_fact
    from triage.measure import SpecError, hf_config_from_architecture, hf_config_from_json
    from triage.measure.spec import spec_from_run

    if args.qlora:
        args.run_load_in_4bit = True
    if args.attn:
        args.run_attn_implementation = args.attn
    kb, inputs = read_run(args)
    names = {f.name for f in inputs.facts}
    if "model_name" not in names and inputs.architecture is None:
        raise InputError("give --model NAME (a preset or HF id) or --model path/to/config.json")
    if "transformers_version" not in names:
        from importlib.metadata import PackageNotFoundError, version

        with contextlib.suppress(PackageNotFoundError):
            installed = make_fact(kb.facts, "transformers_version", version("transformers"), Source("env"))
            inputs = replace(inputs, facts=(*inputs.facts, installed))
    try:
        run = api.run_of(inputs)
    except api.EstimateError as exc:
        raise InputError(str(exc).strip("'\"")) from None
    try:
        if (args.model and Path(args.model).suffix == ".json") or (args.model and Path(args.model).is_dir()):
            p = Path(args.model)
            p = p / "config.json" if p.is_dir() else p
            with p.open(encoding="utf-8") as fh:
                cfg = hf_config_from_json(json.load(fh))
        else:
            cfg = hf_config_from_architecture(run.arch)
        spec, notes = spec_from_run(run, cfg, run.arch.name)
        if args.lora_same_dtype or args.no_cuda_shims:
            spec = spec.with_(lora_same_dtype=bool(args.lora_same_dtype), cuda_shims=not args.no_cuda_shims)
    except (SpecError, OSError, json.JSONDecodeError) as exc:
        raise InputError(str(exc)) from None
    return spec, inputs, notes


def _estimate(inputs: Any) -> Any:
    from triage import api

    return api.estimate_inputs(inputs)


def render_text(measurement: Any, est: Any, notes: list[str]) -> str:
    from triage.measure import CATEGORIES, LABELS

    m = measurement
    lines = [f"triage measure: {m.spec.label()}"]
    ver = ", ".join(f"{k} {v}" for k, v in m.versions.items())
    lines.append(f"one training step on {m.mode} tensors ({ver}) in {m.seconds:.1f} s")
    lines.append(f"measured peak   {m.peak_gib:7.2f} GiB allocated  (torch.cuda.max_memory_allocated; 512-B blocks)")
    lines.append(f"  where         {m.where()}")
    lines.append("  breakdown at the peak:")
    for cat in CATEGORIES:
        if m.breakdown.get(cat):
            lines.append(f"    {LABELS[cat]:<34} {m.breakdown[cat] / GiB:7.2f} GiB")
    lines.append(f"  params        {m.params_total:,} total, {m.params_trainable:,} trainable")
    if est is not None:
        err = (est.peak_bytes - m.peak_bytes) / m.peak_bytes * 100 if m.peak_bytes else 0.0
        lines.append(f"estimator       {est.peak_bytes / GiB:7.2f} GiB  ({est.peak_phase}: {est.peak.detail})")
        lines.append(f"  error         {err:+.1f} % against the measurement")
        top = sorted(est.components.items(), key=lambda kv: -kv[1])[:6]
        lines.append("  estimated components: " + ", ".join(f"{k} {v / GiB:.2f}" for k, v in top))
    lines.append(
        "not counted (add for nvidia-smi): CUDA context ~0.3-0.5 GiB, cuBLAS workspaces, allocator "
        "fragmentation; `triage estimate` shows that band"
    )
    for note in (*notes, *m.notes):
        lines.append(f"note: {note}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from triage.measure import INSTALL_HINT, SpecError, available, measure

    missing = available()
    if missing is not None:
        raise InputError(f"triage measure needs torch, transformers and peft ({missing} is missing): {INSTALL_HINT}")
    spec, inputs, notes = _spec(args)
    from triage.measure.step import StepError

    try:
        measurement = measure(spec, mode=args.mode)
    except (SpecError, StepError) as exc:
        raise InputError(str(exc)) from None
    try:
        est = _estimate(inputs)
    except ValueError as exc:  # the estimator's RunError/OptimizerError: report the measurement anyway
        notes.append(f"no estimate: {exc}")
        est = None
    if args.format == "json":
        out = measurement.to_json()
        if est is not None:
            out["estimate_peak_allocated_gib"] = round(est.peak_bytes / GiB, 3)
            out["estimate_error_pct"] = round(
                (est.peak_bytes - measurement.peak_bytes) / measurement.peak_bytes * 100, 2
            )
        out["notes"] = [*notes, *measurement.notes]
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        sys.stdout.write(render_text(measurement, est, notes))
    return EXIT_OK
