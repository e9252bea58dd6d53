"""``triage estimate``: where the memory of a fine-tuning run goes, and whether it fits the GPU.

Exit codes: 0 answered (fits, or the GPU is unknown), 1 answered and it does not fit, 2 usage,
3 bad input. Configuration keys come from ``--config`` files (HF TrainingArguments/TRL,
axolotl, LLaMA-Factory, DeepSpeed, peft adapter or model config.json), then the flags below
(named like the HF/peft arguments), then ``--fact NAME=VALUE`` (later wins).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from triage.cli.errors import EXIT_FAILED, EXIT_OK, InputError

NAME = "estimate"
HELP = "estimate the GPU memory of a fine-tuning run, component by component, against the GPU"

GiB = 1024**3

#: flag dest -> fact name, for flags that take a value
VALUE_FLAGS: list[tuple[str, str, str, str]] = [
    ("--max-length", "max_length", "N", "tokens per sample (max_length / max_seq_length / cutoff_len)"),
    ("--per-device-train-batch-size", "batch_size", "N", "micro-batch per GPU"),
    ("--gradient-accumulation-steps", "grad_accum", "N", "gradient accumulation steps"),
    ("--attn-implementation", "attn_implementation", "IMPL", "eager, sdpa, flash_attention_2"),
    ("--torch-dtype", "torch_dtype", "DTYPE", "fp32, fp16, bf16 or auto"),
    ("--optim", "optimizer", "NAME", "HF optim name, e.g. adamw_torch, paged_adamw_8bit, adafactor"),
    ("--lora-r", "lora_r", "R", "LoRA rank"),
    ("--lora-target-modules", "lora_target_modules", "LIST", "e.g. q_proj,v_proj or all-linear"),
    ("--lora-dropout", "lora_dropout", "P", "LoRA dropout"),
    ("--modules-to-save", "modules_to_save", "LIST", "e.g. embed_tokens,lm_head"),
    ("--finetune-method", "finetune_method", "METHOD", "full, lora, qlora or freeze"),
    ("--deepspeed-stage", "zero_stage", "N", "DeepSpeed ZeRO stage (0-3)"),
    ("--distributed", "distributed", "KIND", "none, ddp, deepspeed, fsdp, model_parallel"),
    ("--nproc-per-node", "gpu_count", "N", "GPUs (processes) used"),
    ("--per-device-eval-batch-size", "eval_batch_size", "N", "evaluation batch per GPU"),
    ("--eval-accumulation-steps", "eval_accumulation_steps", "N", "move eval predictions to CPU every N steps"),
    ("--max-new-tokens", "max_new_tokens", "N", "generation length"),
    ("--num-beams", "num_beams", "N", "beams in generation"),
    ("--phase", "phase", "PHASE", "training (default), evaluation or generation"),
    ("--transformers-version", "transformers_version", "VER", "the installed transformers version"),
]
#: boolean flags: flag -> (fact, value)
BOOL_FLAGS: list[tuple[str, str, str]] = [
    ("--gradient-checkpointing", "gradient_checkpointing", "turn gradient checkpointing on (--no-... off)"),
    ("--load-in-4bit", "quantization", "load the base in 4-bit (QLoRA)"),
    ("--load-in-8bit", "quantization", "load the base in 8-bit"),
    ("--bnb-4bit-use-double-quant", "double_quant", "double quantization of the 4-bit constants"),
    ("--prepare-kbit-training", "prepare_kbit_training", "peft prepare_model_for_kbit_training"),
    ("--use-liger-kernel", "fused_loss", "fused/chunked cross-entropy (Liger, Cut Cross-Entropy)"),
    ("--offload", "offload", "DeepSpeed/FSDP CPU offload"),
    ("--expandable-segments", "expandable_segments", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
    ("--compute-metrics", "compute_metrics", "the Trainer has a compute_metrics function"),
]


def _dest(flag: str) -> str:
    return "run_" + flag.lstrip("-").replace("-", "_")


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags describing a run, shared by ``estimate`` and ``fit``."""
    src = parser.add_argument_group("the run")
    src.add_argument("--model", metavar="NAME|config.json", help="a preset name or HF id, or a config.json / dir")
    src.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="a training config (TrainingArguments JSON/YAML, axolotl, LLaMA-Factory, DeepSpeed...)",
    )
    src.add_argument("--gpu", metavar="NAME", help="e.g. 3090, A100-80GB, T4 (--list-gpus)")
    src.add_argument("--gpu-memory", metavar="SIZE", help="GPU memory, e.g. 24GiB (overrides the preset)")
    for flag, _fact, metavar, help_text in VALUE_FLAGS:
        src.add_argument(flag, dest=_dest(flag), metavar=metavar, help=help_text)
    for flag, _fact, help_text in BOOL_FLAGS:
        src.add_argument(flag, dest=_dest(flag), action=argparse.BooleanOptionalAction, default=None, help=help_text)
    src.add_argument("--bf16", dest="run_bf16", action="store_true", default=None, help="mixed precision bf16")
    src.add_argument("--fp16", dest="run_fp16", action="store_true", default=None, help="mixed precision fp16")
    src.add_argument(
        "--fact",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="state any fact, e.g. --fact transformers_version=4.31.0 (repeatable)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=["text", "json"], default="text")
    out.add_argument("--list-models", action="store_true", help="list the bundled model presets")
    out.add_argument("--list-gpus", action="store_true", help="list the bundled GPU presets")


def _knowledge_facts() -> set[str]:
    env = os.environ.get("TRIAGE_KNOWLEDGE")
    here = Path(__file__).resolve().parent.parent
    root = (
        Path(env)
        if env
        else (here.parent / "knowledge" if (here.parent / "knowledge" / "facts").is_dir() else here / "_knowledge")
    )
    return {p.name.removesuffix(".yaml") for p in (root / "facts").glob("*.yaml")}


def _read_config(path: str, values: dict[str, Any]) -> Any:
    """Merge the facts a config file states into ``values``; returns a model Architecture if it is a config.json."""
    from triage.ingest.config import parse_config_text, read_config
    from triage.ingest.errors import IngestError

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(5_000_000)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        reading = read_config(text, path)
        data = parse_config_text(text, path)
    except IngestError as exc:
        raise InputError(str(exc)) from None
    for found in reading.found:
        values[found.name] = found.raw
    if reading.kind == "model_config":
        from triage.estimate.architecture import ArchitectureError, from_hf_config

        try:
            return from_hf_config(data, source=path)
        except ArchitectureError as exc:
            raise InputError(str(exc)) from None
    return None


def collect_facts(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Raw fact values from --config, the flags and --fact (later wins), and an Architecture if given."""
    from triage.estimate.architecture import ArchitectureError, load_hf_config

    values: dict[str, Any] = {}
    arch = None
    for path in args.config:
        arch = _read_config(path, values) or arch
    if args.model:
        p = Path(args.model)
        if p.suffix == ".json" or p.is_dir() or p.is_file():
            try:
                arch = load_hf_config(p)
            except ArchitectureError as exc:
                raise InputError(str(exc)) from None
            values.setdefault("model_name", arch.name)
        else:
            values["model_name"] = args.model
            arch = None
    if args.gpu:
        values["gpu_name"] = args.gpu
    if args.gpu_memory:
        from triage.facts import FactError, parse_bytes

        try:
            values["gpu_memory_bytes"] = parse_bytes(args.gpu_memory)
        except FactError as exc:
            raise InputError(str(exc)) from None
    for flag, fact, _m, _h in VALUE_FLAGS:
        value = getattr(args, _dest(flag))
        if value is not None:
            values[fact] = value
    for flag, fact, _h in BOOL_FLAGS:
        value = getattr(args, _dest(flag))
        if value is None:
            continue
        if fact == "quantization":
            if value:
                values[fact] = "4bit" if "4bit" in flag else "8bit"
            elif values.get(fact) == ("4bit" if "4bit" in flag else "8bit"):
                values[fact] = "none"
        else:
            values[fact] = value
    if args.run_bf16:
        values["mixed_precision"] = "bf16"
    if args.run_fp16:
        values["mixed_precision"] = "fp16"
    known = _knowledge_facts()
    for text in args.fact:
        name, sep, raw = text.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--fact expects NAME=VALUE; got {text!r}")
        if known and name not in known:
            from rapidfuzz import process

            near = [m[0] for m in process.extract(name, sorted(known), limit=3)]
            raise InputError(f"unknown fact {name!r}; did you mean {', '.join(near)}?")
        values[name] = raw.strip()
    return values, arch


def run_estimate(values: dict[str, Any], arch: Any) -> Any:
    from triage.estimate import ChangeError, OptimizerError, RunError, estimate

    try:
        return estimate(values, arch)
    except (RunError, OptimizerError, ChangeError) as exc:
        raise InputError(str(exc)) from None


def _bar(used: float, capacity: float, width: int = 40) -> str:
    if capacity <= 0:
        return ""
    filled = min(width, round(width * used / capacity))
    over = used > capacity
    return "[" + "#" * filled + "." * (width - filled) + "]" + (" >" if over else "")


def describe_run(est: Any) -> str:
    r = est.run
    method = r.method if not r.lora else f"{r.method} r={r.lora_r} ({','.join(r.lora_targets)})"
    quant = f" · {r.quantization}" if r.quantization != "none" else ""
    gpu = f" on {r.gpu.name}" if r.gpu else ""
    return (
        f"{r.arch.name} · {method}{quant} · {r.weight_dtype} · b={r.batch} x s={r.seq}"
        f"{' x accum ' + str(r.grad_accum) if r.grad_accum > 1 else ''} · GC {'on' if r.gc else 'off'} · "
        f"{r.attn} · {r.optimizer}{gpu}"
    )


def render_text(est: Any) -> str:
    """The breakdown for an 80-column terminal: each component, its bar, and its formula below it."""
    from triage.render.wrap import wrap

    lines = [*wrap(describe_run(est), 80, "", "  "), ""]
    peak = est.peak_bytes
    lines += wrap(f"Peak allocated: {peak / GiB:.2f} GiB in {est.peak_phase} ({est.peak.detail})", 80, "", "  ")
    comps = sorted(est.components.items(), key=lambda kv: -kv[1])
    width = max((len(k) for k, _ in comps), default=10)
    for name, n in comps:
        share = n / peak if peak else 0
        lines.append(f"  {name:<{width}}  {n / GiB:8.2f} GiB  {'#' * max(1, round(20 * share))}")
        if name in est.sizes:
            lines += wrap(est.sizes[name].formula, 80, "      ")
    paged = est.sizes.get("optimizer_state_paged")
    if paged is not None and paged.bytes:
        lines.append(f"  (paged optimizer state {paged.bytes / GiB:.2f} GiB lives in unified memory, outside the peak)")
    band = est.device_total
    lines.append("")
    lines += wrap(
        f"On the device: {band.low / GiB:.2f} / {band.expected / GiB:.2f} / {band.high / GiB:.2f} GiB "
        "(low / expected / high) = allocated peak plus:",
        80,
    )
    for item in band.items:
        lines.append(f"  + {item.name:<16} {item.expected / GiB:6.2f} GiB ({item.low / GiB:.2f}-{item.high / GiB:.2f})")
        lines += wrap(item.why, 80, "      ")
    if est.capacity_bytes:
        cap = est.capacity_bytes
        verdict = "FITS" if est.fits else "DOES NOT FIT"
        lines.append("")
        lines.append(_bar(band.expected, cap))
        lines.append(
            f"{band.expected / GiB:.2f} of {cap / GiB:.2f} GiB: {verdict}"
            + ("" if est.fits else f" (short by {(band.expected - cap) / GiB:.2f} GiB)")
        )
        if est.fits and band.high > cap:
            lines.append("  (the high end of the band does not fit: little room for fragmentation)")
    else:
        lines.append("")
        lines.append("GPU unknown: give --gpu NAME or --gpu-memory SIZE to compare against its capacity.")
    if est.notes:
        lines.append("")
        for n in est.notes:
            lines += wrap(f"Note: {n}", 80, "", "  ")
    if est.assumptions:
        lines.append("")
        lines.append("Assumed (state the fact to change it):")
        for a in est.assumptions:
            lines += wrap(f"- {a.fact} = {a.value}: {a.reason}", 80, "  ", "    ")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.list_models:
        from triage.estimate import presets

        for a in presets():
            also = ", ".join(a.aliases[:3])
            sys.stdout.write(f"{a.id:<18} {a.total_params() / 1e9:7.2f}B  {a.name}  (also: {also})\n")
        return EXIT_OK
    if args.list_gpus:
        from triage.estimate import gpu_presets

        for g in gpu_presets():
            sys.stdout.write(
                f"{g.id:<18} {g.usable_gib:7.2f} GiB  cc {g.capability}  bf16 {'yes' if g.bf16 else 'no'}"
                f"  FA2 {'yes' if g.supports_fa2 else 'no'}  {g.name}\n"
            )
        return EXIT_OK
    values, arch = collect_facts(args)
    est = run_estimate(values, arch)
    if args.format == "json":
        sys.stdout.write(json.dumps(est.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(render_text(est))
    return EXIT_FAILED if est.fits is False else EXIT_OK
