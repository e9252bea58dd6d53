"""``triage estimate``: where the memory of a fine-tuning run goes, and whether it fits the GPU.

Exit codes: 0 answered (fits, or the GPU is unknown), 1 answered and it does not fit, 2 usage,
3 bad input. Configuration keys come from ``--config`` files (HF TrainingArguments/TRL,
axolotl, LLaMA-Factory, DeepSpeed, peft adapter or model config.json), then the flags below
(named like the HF/peft arguments), then ``--fact NAME=VALUE`` (later wins).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from triage.cli.errors import EXIT_FAILED, EXIT_OK, InputError

if TYPE_CHECKING:
    from triage.api import Inputs
    from triage.estimate import Estimate
    from triage.kb.loader import KnowledgeBase

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
    out.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the text output")
    out.add_argument("--list-models", action="store_true", help="list the bundled model presets")
    out.add_argument("--list-gpus", action="store_true", help="list the bundled GPU presets")


def _flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The run's settings given by flags (``--fact`` comes after, and wins)."""
    values: dict[str, Any] = {}
    if args.model and not _is_model_file(args.model):
        values["model_name"] = args.model
    if args.gpu:
        values["gpu_name"] = args.gpu
    if args.gpu_memory:
        values["gpu_memory_bytes"] = args.gpu_memory
    for flag, fact, _m, _h in VALUE_FLAGS:
        value = getattr(args, _dest(flag))
        if value is not None:
            values[fact] = value
    for flag, fact, _h in BOOL_FLAGS:
        value = getattr(args, _dest(flag))
        if value is None:
            continue
        if fact == "quantization":
            bits = "4bit" if "4bit" in flag else "8bit"
            if value:
                values[fact] = bits
            elif values.get(fact) == bits:
                values[fact] = "none"
        else:
            values[fact] = value
    if args.run_bf16:
        values["mixed_precision"] = "bf16"
    if args.run_fp16:
        values["mixed_precision"] = "fp16"
    return values


def _is_model_file(model: str) -> bool:
    p = Path(model)
    return p.suffix == ".json" or p.is_dir() or p.is_file()


def _model_config(model: str) -> str:
    p = Path(model)
    if p.is_dir():
        p = p / "config.json"
    if not p.is_file():
        raise InputError(f"cannot read {model}: no config.json there")
    return str(p)


def read_run(args: argparse.Namespace) -> tuple[KnowledgeBase, Inputs]:
    """The run ``estimate``, ``fit`` and ``measure`` size, read through the API like ``diagnose``.

    ``--model config.json`` is read exactly as ``--config config.json`` is (dtype and quantization
    included), configs are merged with the same conflict rules, and flags then ``--fact`` win.
    """
    from triage import api
    from triage.facts import Source

    kb = api.knowledge(getattr(args, "knowledge", None))
    configs = list(args.config)
    if args.model and _is_model_file(args.model):
        configs.append(_model_config(args.model))
    flags = api.facts_from_mapping(kb, _flag_values(args), Source("cli", path="flags"))
    facts = [*flags, *api.parse_facts(kb, args.fact)]
    return kb, api.read(kb, configs=configs, facts=facts)


def estimate_of(inputs: Inputs) -> Estimate:
    from triage import api

    try:
        return api.estimate_inputs(inputs)
    except api.EstimateError as exc:
        raise InputError(str(exc).strip("'\"")) from None


def run(args: argparse.Namespace) -> int:
    if args.list_models:
        from triage.api import presets

        for a in presets():
            also = ", ".join(a.aliases[:3])
            sys.stdout.write(f"{a.id:<18} {a.total_params() / 1e9:7.2f}B  {a.name}  (also: {also})\n")
        return EXIT_OK
    if args.list_gpus:
        from triage.api import gpu_presets

        for g in gpu_presets():
            sys.stdout.write(
                f"{g.id:<18} {g.usable_gib:7.2f} GiB  cc {g.capability}  bf16 {'yes' if g.bf16 else 'no'}"
                f"  FA2 {'yes' if g.supports_fa2 else 'no'}  {g.name}\n"
            )
        return EXIT_OK
    from triage import api
    from triage.render.estimate import estimate_json, render_estimate
    from triage.render.outbound import for_terminal, json_text

    _kb, inputs = read_run(args)
    est = estimate_of(inputs)
    others = api.alternatives_of(inputs, est)
    if args.format == "json":
        sys.stdout.write(json_text(estimate_json(est, inputs, others, args.lang)) + "\n")
    else:
        sys.stdout.write(for_terminal(render_estimate(est, inputs, args.lang, others)))
    return EXIT_FAILED if est.fits is False else EXIT_OK
