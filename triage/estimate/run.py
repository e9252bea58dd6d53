"""The run to estimate: a :class:`Run` built from facts, with every default stated.

:func:`run_from_facts` reads the fact vocabulary (knowledge/facts/) and fills what is missing
with the library's own default, recording each as an :class:`Assumption` so the user sees
what the numbers rest on. Values may be typed facts or raw values (as in a remedy's
``changes``): ``"true"``, ``"4bit"``, ``2048`` and ``"bf16"`` are all understood.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from triage.estimate.architecture import Architecture, find_architecture, nearest_by_params, with_dims
from triage.hardware.gpus import Gpu, find_gpu, usable_bytes

if TYPE_CHECKING:
    from triage.facts import FactSet


class RunError(ValueError):
    """Facts that do not describe a run the estimator can size."""


class ModelUnknown(RunError):
    """No model name, config, parameter count or dimensions: nothing to size."""


@dataclass(frozen=True)
class Assumption:
    """A value the estimate uses that the facts did not give."""

    fact: str
    value: object
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"fact": self.fact, "value": self.value, "reason": self.reason}


DTYPES = ("fp32", "fp16", "bf16")
BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}


@dataclass(frozen=True)
class Run:
    """Everything the estimator needs about one training (or evaluation) run."""

    arch: Architecture
    gpu: Gpu | None
    capacity_bytes: int | None
    weight_dtype: str
    """dtype of the non-quantized weights: fp32, fp16 or bf16."""
    compute_dtype: str
    """dtype activations are computed in (autocast or the weights' dtype)."""
    quantization: str
    """none, 8bit or 4bit."""
    double_quant: bool
    method: str
    """full, lora, qlora or freeze."""
    lora_r: int
    lora_targets: tuple[str, ...]
    lora_dropout: float
    modules_to_save: tuple[str, ...]
    prepare_kbit: bool
    batch: int
    seq: int
    grad_accum: int
    gc: bool
    attn: str
    optimizer: str
    fused_loss: bool
    optimizer_in_backward: bool
    phase: str
    """training, evaluation or generation."""
    eval_batch: int
    eval_accumulation_steps: int | None
    compute_metrics: bool
    preprocess_logits: bool
    eval_samples: int
    max_new_tokens: int
    num_beams: int
    distributed: str
    zero_stage: int
    offload: bool
    gpu_count: int
    expandable_segments: bool
    padded: bool
    """Batches carry padding (an attention mask with zeros)."""
    other_process_bytes: int
    transformers_version: Version | None
    trainable_override: int | None = None
    """trainable_params_b from the user, when given."""
    freeze_layers_trained: int = 2
    assumptions: tuple[Assumption, ...] = field(default=())

    @property
    def w_bytes(self) -> int:
        return BYTES[self.weight_dtype]

    @property
    def e(self) -> int:
        """Bytes per activation element."""
        return BYTES[self.compute_dtype]

    @property
    def tokens(self) -> int:
        return self.batch * self.seq

    @property
    def lora(self) -> bool:
        return self.method in ("lora", "qlora")


# ---------------------------------------------------------------------- value readers


def fact_values(facts: FactSet | Mapping[str, Any]) -> dict[str, Any]:
    """``{name: value}`` from a FactSet, a mapping of Facts, or a mapping of raw values."""
    out: dict[str, Any] = {}
    for name in facts:
        item = facts[name]
        # a triage.facts.Fact (duck-typed, so this module does not import the pydantic models)
        out[name] = item.value if hasattr(item, "value") and hasattr(item, "source") else item
    return out


_TRUE = {"true", "yes", "y", "1", "on"}
_FALSE = {"false", "no", "n", "0", "off", "none"}


def as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    low = str(value).strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise RunError(f"{name} must be true or false; got {value!r}")


def as_int(value: Any, name: str, minimum: int = 0) -> int:
    try:
        number = int(float(str(value).replace(",", "").replace("_", "")))
    except ValueError:
        raise RunError(f"{name} must be a whole number; got {value!r}") from None
    if number < minimum:
        raise RunError(f"{name} must be at least {minimum}; got {number}")
    return number


_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 1000,
    "kib": 1024,
    "k": 1024,
    "mb": 1000**2,
    "mib": 1024**2,
    "m": 1024**2,
    "gb": 1000**3,
    "gib": 1024**3,
    "g": 1024**3,
    "tb": 1000**4,
    "tib": 1024**4,
}


def as_bytes(value: Any, name: str) -> int:
    """``"24GiB"``, ``"512MiB"``, ``2.5e9`` -> bytes (GB/MB are SI, G/GiB binary)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    m = _SIZE.match(str(value))
    if not m or m.group(2).lower() not in _UNITS:
        raise RunError(f"{name} must be a size such as 24GiB; got {value!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def as_dtype(value: Any) -> str | None:
    low = str(value).strip().lower().replace("torch.", "")
    table = {
        "fp32": "fp32",
        "float32": "fp32",
        "float": "fp32",
        "32": "fp32",
        "fp16": "fp16",
        "float16": "fp16",
        "half": "fp16",
        "16": "fp16",
        "bf16": "bf16",
        "bfloat16": "bf16",
    }
    return table.get(low)


def split_modules(value: Any) -> tuple[str, ...]:
    """``"q_proj,v_proj"``, ``"[q_proj, v_proj]"``, a list, or ``"none"`` -> module names."""
    items = [str(v) for v in value] if isinstance(value, (list, tuple)) else re.split(r"[\s,;\[\]'\"]+", str(value))
    names = tuple(i.strip() for i in items if i.strip())
    return () if names in ((), ("none",), ("None",), ("null",), ("[]",)) else names


# ---------------------------------------------------------------------- defaults per family

#: peft's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING, by layout.
DEFAULT_LORA_TARGETS = {
    "llama": ("q_proj", "v_proj"),
    "phi3": ("qkv_proj",),
    "neox": ("query_key_value",),
    "falcon": ("query_key_value",),
    "phi": ("q_proj", "v_proj"),
    "gpt2": ("c_attn",),
    "chatglm": ("query_key_value",),
    "baichuan": ("W_pack",),
}

_OPTIMIZERS_4_31 = "adamw_hf"


def _version(value: Any) -> Version | None:
    if value is None:
        return None
    try:
        return Version(str(value))
    except InvalidVersion:
        return None


def default_optimizer(tf: Version | None) -> tuple[str, str]:
    """HF Trainer's default ``optim`` for a transformers version, and why."""
    if tf is None:
        return "adamw_torch", "HF Trainer default since transformers 4.32 (PR #25109); transformers version unknown"
    if tf < Version("4.32.0"):
        return _OPTIMIZERS_4_31, "HF Trainer default before transformers 4.32"
    if tf >= Version("4.56.0"):
        return "adamw_torch_fused", "HF Trainer default in recent transformers (fused AdamW on torch >= 2.8)"
    return "adamw_torch", "HF Trainer default since transformers 4.32 (PR #25109)"


def resolve_architecture(values: Mapping[str, Any], arch: Architecture | None, notes: list[Assumption]) -> Architecture:
    """The architecture from an explicit one, the model name, the parameter count, or dimension facts."""
    raw = {
        "hidden": values.get("hidden_size"),
        "layers": values.get("num_layers"),
        "heads": values.get("num_attention_heads"),
        "kv_heads": values.get("num_kv_heads"),
        "intermediate": values.get("intermediate_size"),
        "vocab": values.get("vocab_size"),
    }
    dims: dict[str, int] = {k: as_int(v, k, 1) for k, v in raw.items() if v is not None}
    if arch is None and values.get("model_name"):
        arch = find_architecture(str(values["model_name"]))
        if arch is None and not {"hidden", "layers", "heads"} <= set(dims):
            if values.get("model_params_b"):
                arch = nearest_by_params(float(values["model_params_b"]))
                notes.append(
                    Assumption(
                        "model_name",
                        arch.name,
                        f"{values['model_name']!r} is not a bundled preset; sized as the Llama-family "
                        f"preset closest to {values['model_params_b']}B parameters",
                    )
                )
            else:
                raise ModelUnknown(
                    f"unknown model {values['model_name']!r}: give a preset name (`triage estimate "
                    "--list-models`), a config.json, or model_params_b"
                )
    if arch is None and values.get("model_params_b") and not {"hidden", "layers", "heads"} <= set(dims):
        arch = nearest_by_params(float(values["model_params_b"]))
        notes.append(
            Assumption(
                "model_name",
                arch.name,
                f"model unknown; sized as the Llama-family preset closest to {values['model_params_b']}B parameters",
            )
        )
    if arch is None:
        if not {"hidden", "layers", "heads"} <= set(dims):
            raise ModelUnknown(
                "the model is unknown: give model_name (a preset or HF id), a config.json, "
                "model_params_b, or hidden_size, num_layers and num_attention_heads"
            )
        hidden = dims["hidden"]
        inter = dims.get("intermediate", int(8 * hidden / 3))
        vocab = dims.get("vocab", 32000)
        if "vocab" not in dims:
            notes.append(Assumption("vocab_size", 32000, "not given; Llama-2's vocabulary"))
        arch = Architecture(
            id="custom",
            name="custom (from facts)",
            layout="llama",
            hidden=hidden,
            layers=dims["layers"],
            heads=dims["heads"],
            kv_heads=dims.get("kv_heads", dims["heads"]),
            intermediate=inter,
            vocab=vocab,
            source="facts",
        )
        notes.append(
            Assumption(
                "architecture",
                "llama-like",
                "built from dimension facts: a Llama-style decoder (SwiGLU MLP, RMSNorm, untied embeddings)",
            )
        )
        return arch
    return with_dims(arch, dims)


def run_from_facts(facts: FactSet | Mapping[str, Any], arch: Architecture | None = None) -> Run:
    """Build a :class:`Run`; every default taken is recorded in ``Run.assumptions``."""
    v = fact_values(facts)
    notes: list[Assumption] = []

    def assume(name: str, value: Any, reason: str) -> Any:
        notes.append(Assumption(name, value, reason))
        return value

    a = resolve_architecture(v, arch, notes)
    tf = _version(v.get("transformers_version"))

    # GPU and its capacity
    gpu = find_gpu(str(v["gpu_name"])) if v.get("gpu_name") else None
    if v.get("gpu_name") and gpu is None:
        notes.append(Assumption("gpu_name", v["gpu_name"], "not a bundled GPU preset; give gpu_memory_bytes"))
    capacity: int | None = None
    if v.get("gpu_memory_bytes"):
        # gpu_memory_bytes is the card's total (nvidia-smi); PyTorch can use a little less
        capacity = usable_bytes(as_bytes(v["gpu_memory_bytes"], "gpu_memory_bytes"), gpu)
    elif gpu is not None:
        capacity = gpu.capacity_bytes
    cc = float(v["compute_capability"]) if v.get("compute_capability") else (gpu.capability if gpu else None)
    bf16_ok = cc is None or cc >= 8.0

    # quantization and method
    quant = str(v.get("quantization", "none")).lower().replace("-", "")
    quant = {
        "4": "4bit",
        "8": "8bit",
        "int4": "4bit",
        "int8": "8bit",
        "nf4": "4bit",
        "fp4": "4bit",
        "false": "none",
        "no": "none",
    }.get(quant, quant)
    if quant not in ("none", "8bit", "4bit"):
        raise RunError(f"quantization must be none, 8bit or 4bit; got {v['quantization']!r}")
    method = str(v["finetune_method"]).lower() if v.get("finetune_method") else None
    if method is None:
        if quant == "4bit":
            method = assume("finetune_method", "qlora", "the base is loaded in 4-bit, so LoRA on top (QLoRA)")
        elif quant == "8bit" or v.get("lora_r") or v.get("lora_target_modules"):
            method = assume("finetune_method", "lora", "LoRA settings are given")
        else:
            method = assume("finetune_method", "lora", "not given; most fine-tuning on one GPU is LoRA")
    if method not in ("full", "lora", "qlora", "freeze"):
        raise RunError(f"finetune_method must be full, lora, qlora or freeze; got {method!r}")
    if method == "qlora" and quant == "none":
        quant = "4bit" if "quantization" not in v else quant
        if "quantization" not in v:
            assume("quantization", "4bit", "QLoRA means a 4-bit base")
    if quant != "none" and method == "full":
        method = assume("finetune_method", "lora", "a quantized base cannot be fully fine-tuned; LoRA assumed")
    if method == "qlora" and quant == "none":
        method = "lora"

    # dtypes
    mp = str(v.get("mixed_precision", "")).lower() or None
    wd = as_dtype(v["torch_dtype"]) if v.get("torch_dtype") and str(v["torch_dtype"]).lower() != "auto" else None
    if v.get("torch_dtype") and str(v["torch_dtype"]).lower() == "auto":
        wd = assume("torch_dtype", a.dtype, "torch_dtype='auto' loads the checkpoint's own dtype")
    if wd is None:
        if tf is not None and tf >= Version("5.0.0"):
            wd = assume("torch_dtype", a.dtype, "transformers 5 loads the checkpoint's dtype by default")
        else:
            guess = "bf16" if bf16_ok else "fp16"
            if mp in ("fp16", "bf16"):
                guess = mp
            wd = assume(
                "torch_dtype",
                guess,
                "not given; assumed 16-bit. If from_pretrained gets no torch_dtype, "
                "transformers < 5 loads fp32 and the weights double: say torch_dtype=fp32",
            )
    if mp in (None, "", "none"):
        mp = assume("mixed_precision", "no", "not given; no autocast")
    compute = wd if mp == "no" else ("bf16" if mp == "bf16" else "fp16")
    if quant != "none" and wd == "fp32":
        compute = "fp16" if mp != "bf16" else "bf16"

    double_quant = as_bool(v["double_quant"], "double_quant") if "double_quant" in v else False
    if quant == "4bit" and "double_quant" not in v:
        assume("double_quant", False, "BitsAndBytesConfig default bnb_4bit_use_double_quant=False")

    # LoRA
    lora_r = as_int(v.get("lora_r", 8), "lora_r", 1)
    if method in ("lora", "qlora") and "lora_r" not in v:
        assume("lora_r", 8, "peft LoraConfig default r=8")
    targets_raw = v.get("lora_target_modules")
    if targets_raw is None:
        targets = DEFAULT_LORA_TARGETS[a.layout]
        if method in ("lora", "qlora"):
            assume("lora_target_modules", ",".join(targets), f"peft's default for {a.family or a.layout}")
    else:
        targets = split_modules(targets_raw)
        if any(t.lower() in ("all-linear", "all_linear", "all") for t in targets):
            targets = tuple(lin.name for lin in a.linears())
    lora_dropout = float(v.get("lora_dropout", 0.0) or 0.0)
    mts = split_modules(v["modules_to_save"]) if v.get("modules_to_save") is not None else ()
    prepare = (
        as_bool(v["prepare_kbit_training"], "prepare_kbit_training")
        if "prepare_kbit_training" in v
        else (quant != "none")
    )
    if "prepare_kbit_training" not in v and quant != "none":
        assume("prepare_kbit_training", True, "the usual QLoRA recipe calls prepare_model_for_kbit_training")

    # shapes
    batch = as_int(v.get("batch_size", 8), "batch_size", 1)
    if "batch_size" not in v:
        assume("batch_size", 8, "HF TrainingArguments default per_device_train_batch_size=8")
    grad_accum = as_int(v.get("grad_accum", 1), "grad_accum", 1)
    if "max_length" in v:
        seq = as_int(v["max_length"], "max_length", 1)
    else:
        seq = assume("max_length", 1024, "not given; TRL SFTConfig's default max_length")
    longest = as_int(v["max_sample_tokens"], "max_sample_tokens", 1) if v.get("max_sample_tokens") else None
    packing = as_bool(v.get("packing", False), "packing")
    padding = str(v.get("padding", "")).lower() or None
    truncation = as_bool(v["truncation"], "truncation") if "truncation" in v else True
    if longest is not None and not packing:
        if not truncation:
            seq = longest
        elif padding != "max_length":
            seq = min(seq, longest)
    padded = not packing and padding in ("max_length", "longest")

    # checkpointing and attention
    if "gradient_checkpointing" in v:
        gc = as_bool(v["gradient_checkpointing"], "gradient_checkpointing")
    elif v.get("gc_active") is not None:
        gc = as_bool(v["gc_active"], "gc_active")
    elif prepare:
        gc = assume("gradient_checkpointing", True, "prepare_model_for_kbit_training turns it on by default")
    elif str(v.get("framework", "")) == "llama_factory":
        gc = assume("gradient_checkpointing", True, "LLaMA-Factory turns it on by default")
    else:
        gc = assume("gradient_checkpointing", False, "HF TrainingArguments default")
    if "attn_implementation" in v:
        attn = str(v["attn_implementation"]).lower()
        attn = {
            "flash_attention": "flash_attention_2",
            "fa2": "flash_attention_2",
            "flash": "flash_attention_2",
            "flash_attn": "flash_attention_2",
        }.get(attn, attn)
        if attn not in ("eager", "sdpa", "flash_attention_2", "xformers"):
            raise RunError(f"attn_implementation must be eager, sdpa, flash_attention_2 or xformers; got {attn!r}")
    elif a.default_attn:
        attn = assume("attn_implementation", a.default_attn, f"transformers' recommendation for {a.family}")
    elif tf is not None and tf < Version("4.36.0"):
        attn = assume("attn_implementation", "eager", "transformers < 4.36 has no SDPA path")
    else:
        attn = assume("attn_implementation", "sdpa", "transformers >= 4.36 default (torch >= 2.1.1)")

    # optimizer
    if v.get("optimizer"):
        optimizer = str(v["optimizer"]).strip().lower()
    else:
        name, why = default_optimizer(tf)
        optimizer = assume("optimizer", name, why)
    from triage.estimate.optimizers import optimizer_spec

    optimizer_spec(optimizer)  # raises on unknown names

    # phase
    phase_fact = str(v.get("phase", "")).lower()
    phase = {"evaluation": "evaluation", "generation": "generation"}.get(phase_fact, "training")
    eval_batch = as_int(v.get("eval_batch_size", 8), "eval_batch_size", 1)
    if phase != "training" and "eval_batch_size" not in v:
        assume("eval_batch_size", 8, "HF TrainingArguments default per_device_eval_batch_size=8")
    eas = (
        as_int(v["eval_accumulation_steps"], "eval_accumulation_steps", 1) if v.get("eval_accumulation_steps") else None
    )
    compute_metrics = as_bool(v.get("compute_metrics", False), "compute_metrics")
    preprocess = as_bool(v.get("preprocess_logits", False), "preprocess_logits")
    eval_samples = as_int(v.get("eval_samples", 1000), "eval_samples", 1)
    if phase == "evaluation" and compute_metrics and not preprocess and eas is None and "eval_samples" not in v:
        assume("eval_samples", 1000, "evaluation set size unknown; the accumulated logits grow with it")
    max_new = as_int(v.get("max_new_tokens", 256), "max_new_tokens", 0)
    if phase == "generation" and "max_new_tokens" not in v:
        assume("max_new_tokens", 256, "not given")
    beams = as_int(v.get("num_beams", 1), "num_beams", 1)

    # distribution
    dist = str(v.get("distributed", "none")).lower()
    if dist not in ("none", "ddp", "deepspeed", "fsdp", "model_parallel"):
        raise RunError(f"distributed must be none, ddp, deepspeed, fsdp or model_parallel; got {dist!r}")
    zero = as_int(v["zero_stage"], "zero_stage") if v.get("zero_stage") is not None else None
    offload = as_bool(v.get("offload", False), "offload")
    if zero is not None and zero > 3:
        raise RunError(f"zero_stage must be 0-3; got {zero}")
    if dist == "none" and (zero or offload):
        dist = assume(
            "distributed", "deepspeed", "ZeRO stage or offload given, so DeepSpeed (ZeRO-Offload also runs on one GPU)"
        )
    if dist == "deepspeed" and zero is None:
        zero = assume("zero_stage", 2, "DeepSpeed without a stage given; ZeRO-2 is the most common config")
    if dist == "fsdp" and zero is None:
        zero = assume("zero_stage", 3, "FSDP FULL_SHARD (the default sharding strategy), sized like ZeRO-3")
    if dist in ("none", "ddp", "model_parallel"):
        zero = 0
    count = as_int(v["gpu_count"], "gpu_count", 1) if v.get("gpu_count") else None
    if count is None:
        count = 1 if dist == "none" else assume("gpu_count", 2, "multi-GPU run with the GPU count not given")
    assert zero is not None

    oom_exp = as_bool(v.get("expandable_segments", False), "expandable_segments")
    other = as_bytes(v.get("other_process_bytes", 0) or 0, "other_process_bytes")
    trainable = None
    if v.get("trainable_params_b"):
        trainable = int(float(v["trainable_params_b"]) * 1e9)
    fused = as_bool(v.get("fused_loss", False), "fused_loss")
    in_bwd = as_bool(v.get("optimizer_in_backward", False), "optimizer_in_backward")
    if attn == "flash_attention_2" and cc is not None and cc < 8.0:
        notes.append(
            Assumption(
                "attn_implementation", attn, "FlashAttention-2 needs compute capability >= 8.0; this GPU cannot run it"
            )
        )
    return Run(
        arch=a,
        gpu=gpu,
        capacity_bytes=capacity,
        weight_dtype=wd,
        compute_dtype=compute,
        quantization=quant,
        double_quant=double_quant,
        method=method,
        lora_r=lora_r,
        lora_targets=tuple(targets),
        lora_dropout=lora_dropout,
        modules_to_save=mts,
        prepare_kbit=prepare,
        batch=batch,
        seq=seq,
        grad_accum=grad_accum,
        gc=gc,
        attn=attn,
        optimizer=optimizer,
        fused_loss=fused,
        optimizer_in_backward=in_bwd,
        phase=phase,
        eval_batch=eval_batch,
        eval_accumulation_steps=eas,
        compute_metrics=compute_metrics,
        preprocess_logits=preprocess,
        eval_samples=eval_samples,
        max_new_tokens=max_new,
        num_beams=beams,
        distributed=dist,
        zero_stage=zero,
        offload=offload,
        gpu_count=count,
        expandable_segments=oom_exp,
        padded=padded,
        other_process_bytes=other,
        transformers_version=tf,
        trainable_override=trainable,
        assumptions=tuple(notes),
    )
