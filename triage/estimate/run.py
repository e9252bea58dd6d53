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
from typing import TYPE_CHECKING, Any, TypeVar

from packaging.version import InvalidVersion, Version

from triage.estimate.architecture import Architecture, find_architecture, nearest_by_params, with_dims
from triage.estimate.defaults import DEFAULTS, default, given_or_default
from triage.estimate.optimizers import optimizer_spec
from triage.facts import Fact, FactError, parse_bool, parse_bytes
from triage.hardware.gpus import Gpu, find_gpu, usable_bytes

if TYPE_CHECKING:
    from triage.facts import FactSet


T = TypeVar("T")


class RunError(ValueError):
    """Facts that do not describe a run the estimator can size (``zh``: the same in Chinese, when said)."""

    def __init__(self, message: str, zh: str = "") -> None:
        super().__init__(message)
        self.zh = zh


class ModelUnknown(RunError):
    """No model name, config, parameter count or dimensions: nothing to size."""


@dataclass(frozen=True)
class Assumption:
    """A value the estimate uses that the facts did not give."""

    fact: str
    value: object
    reason: str
    reason_zh: str
    """The reason in Chinese."""

    def reason_in(self, lang: str) -> str:
        """The reason in ``lang`` (``zh`` or ``en``)."""
        return in_lang(self.reason, self.reason_zh, lang)

    def to_json(self, lang: str = "en") -> dict[str, object]:
        return {"fact": self.fact, "value": self.value, "reason": self.reason_in(lang)}


def in_lang(en: str, zh: str, lang: str) -> str:
    """``zh`` when the language is Chinese and there is one, else ``en``: the estimator's texts come in pairs."""
    return zh if lang == "zh" and zh else en


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
    bitsandbytes_version: Version | None = None
    """The installed bitsandbytes (None: unknown, sized as a current release)."""
    framework: str = ""
    """The training framework when it changes what is saved (``litgpt``); empty for HF transformers + peft."""
    torch_version: Version | None = None
    peft_version: Version | None = None
    """The installed peft (None: unknown, sized as a current release)."""
    assumptions: tuple[Assumption, ...] = field(default=())

    @property
    def bnb_keeps_inputs(self) -> bool:
        """bitsandbytes >= 0.39.0, < 0.43.2: every 4-bit linear (MatMul4Bit) saves its input for backward.

        bitsandbytes/autograd/_functions.py, MatMul4Bit.forward: ``ctx.tensors = (A, B)`` at tags
        0.39.1-0.43.1, ``(None, B)`` from 0.43.2 (PR #1270, commit 9e753741 "fix QLoRA mem bug: delete
        useless buffered activation"); 0.38.0 has no MatMul4Bit.
        """
        v = self.bitsandbytes_version
        return self.quantization == "4bit" and v is not None and Version("0.39.0") <= v < Version("0.43.2")

    @property
    def adapter_bytes(self) -> int:
        """Bytes per LoRA adapter element.

        peft up to 0.11.1 gives the adapters their base weight's dtype when that is a float
        (``LoraLayer.update_layer``: ``self.to(weight.device, dtype=weight.dtype)``); from 0.12.0
        ``autocast_adapter_dtype=True`` keeps 16-bit adapters in fp32 (PR #1706, commit ae1ae20b, first
        in tag v0.12.0). Over a quantized base (uint8/int8 storage) they stay fp32 in both.
        """
        v = self.peft_version
        if v is not None and v < Version("0.12.0") and self.quantization == "none" and self.w_bytes == 2:
            return 2
        return 4

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
        out[name] = item.value if isinstance(item, Fact) else item
    return out


def as_bool(value: Any, name: str) -> bool:
    """A yes/no value, read with the facts' one vocabulary (:func:`triage.facts.parse_bool`)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return bool(value)
    flag = parse_bool(value)
    if flag is None:
        raise RunError(
            f"{name} must be true or false; got {value!r}", f"{name} 必须是 true 或 false；得到的是 {value!r}"
        )
    return flag


def as_int(value: Any, name: str, minimum: int = 0) -> int:
    try:
        number = int(float(str(value).replace(",", "").replace("_", "")))
    except (ValueError, OverflowError):
        raise RunError(
            f"{name} must be a whole number; got {value!r}", f"{name} 必须是整数；得到的是 {value!r}"
        ) from None
    if number < minimum:
        raise RunError(
            f"{name} must be at least {minimum}; got {number}", f"{name} 至少为 {minimum}；得到的是 {number}"
        )
    return number


def as_bytes(value: Any, name: str) -> int:
    """``"24GiB"``, ``"512MiB"``, ``2.5e9`` -> bytes, parsed as facts are (:func:`triage.facts.parse_bytes`)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    try:
        return parse_bytes(str(value))
    except FactError:
        raise RunError(
            f"{name} must be a size such as 24GiB; got {value!r}",
            f"{name} 必须是像 24GiB 这样的大小；得到的是 {value!r}",
        ) from None


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


def default_optimizer(tf: Version | None) -> tuple[str, str, str]:
    """HF Trainer's default ``optim`` for a transformers version, and why (in English and Chinese)."""
    if tf is None:
        return (
            "adamw_torch",
            "HF Trainer default since transformers 4.32 (PR #25109); transformers version unknown",
            "transformers 4.32 起 HF Trainer 的默认值（PR #25109）；transformers 版本未知",
        )
    if tf < Version("4.32.0"):
        return (
            _OPTIMIZERS_4_31,
            "HF Trainer default before transformers 4.32",
            "transformers 4.32 之前 HF Trainer 的默认值",
        )
    if tf >= Version("4.56.0"):
        return (
            "adamw_torch_fused",
            "HF Trainer default in recent transformers (fused AdamW on torch >= 2.8)",
            "较新 transformers 中 HF Trainer 的默认值（torch >= 2.8 时为 fused AdamW）",
        )
    return (
        "adamw_torch",
        "HF Trainer default since transformers 4.32 (PR #25109)",
        "transformers 4.32 起 HF Trainer 的默认值（PR #25109）",
    )


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
                en = (
                    f"{values['model_name']!r} is not a bundled preset; sized as the Llama-family "
                    f"preset closest to {values['model_params_b']}B parameters"
                )
                zh = (
                    f"{values['model_name']!r} 不是内置预设；按参数量最接近 {values['model_params_b']}B 的 "
                    "Llama 系列预设估算"
                )
                if values.get("moe") is True:
                    # the estimator has no mixture-of-experts layout: all experts are in memory (the weights are
                    # about right) but each token runs only a few, so the dense activations are too high
                    en += (
                        ". It is a mixture of experts, which the estimator does not model: the weights are about "
                        "right, the activations (and a plan that cuts them) are overestimated"
                    )
                    zh += "。它是混合专家（MoE）模型，估算器不对其建模：权重大致正确，激活（以及削减激活的方案）偏高"
                notes.append(Assumption("model_name", arch.name, en, zh))
            else:
                raise ModelUnknown(
                    f"unknown model {values['model_name']!r}: give a preset name (`triage estimate "
                    "--list-models`), a config.json, or model_params_b",
                    f"未知的模型 {values['model_name']!r}：请给出预设名（`triage estimate --list-models`）、"
                    "config.json 或 model_params_b",
                )
    if arch is None and values.get("model_params_b") and not {"hidden", "layers", "heads"} <= set(dims):
        arch = nearest_by_params(float(values["model_params_b"]))
        notes.append(
            Assumption(
                "model_name",
                arch.name,
                f"model unknown; sized as the Llama-family preset closest to {values['model_params_b']}B parameters",
                f"模型未知；按参数量最接近 {values['model_params_b']}B 的 Llama 系列预设估算",
            )
        )
    if arch is None:
        if not {"hidden", "layers", "heads"} <= set(dims):
            raise ModelUnknown(
                "the model is unknown: give model_name (a preset or HF id), a config.json, "
                "model_params_b, or hidden_size, num_layers and num_attention_heads",
                "模型未知：请给出 model_name（预设名或 HF id）、config.json、model_params_b，"
                "或 hidden_size、num_layers 和 num_attention_heads",
            )
        hidden = dims["hidden"]
        inter = dims.get("intermediate", int(8 * hidden / 3))
        vocab = dims.get("vocab", default("vocab_size"))
        if "vocab" not in dims:
            _assume_default(notes, "vocab_size")
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
                "由给出的维度构建：Llama 式解码器（SwiGLU MLP、RMSNorm、输入输出嵌入不共享）",
            )
        )
        return arch
    return with_dims(arch, dims)


def _assume(notes: list[Assumption], fact: str, value: T, reason: str, reason_zh: str) -> T:
    """Record that ``fact`` takes ``value`` without the facts saying so (and why, in English and Chinese),
    and return the value."""
    notes.append(Assumption(fact, value, reason, reason_zh))
    return value


def _assume_default(notes: list[Assumption], fact: str) -> Any:
    """Record and return ``fact``'s default from the table (:mod:`triage.estimate.defaults`)."""
    taken = DEFAULTS[fact]
    return _assume(notes, fact, taken.value, taken.reason, taken.reason_zh)


@dataclass(frozen=True)
class _Device:
    gpu: Gpu | None
    capacity: int | None
    capability: float | None


def _read_device(v: Mapping[str, Any], notes: list[Assumption]) -> _Device:
    """The GPU, the bytes PyTorch can use on it, and its compute capability."""
    gpu = find_gpu(str(v["gpu_name"])) if v.get("gpu_name") else None
    if v.get("gpu_name") and gpu is None:
        notes.append(
            Assumption(
                "gpu_name",
                v["gpu_name"],
                "not a bundled GPU preset; give gpu_memory_bytes",
                "不是内置的显卡预设；请给出 gpu_memory_bytes",
            )
        )
    capacity: int | None = None
    if v.get("gpu_memory_bytes"):
        # gpu_memory_bytes is the card's total (nvidia-smi); PyTorch can use a little less
        capacity = usable_bytes(as_bytes(v["gpu_memory_bytes"], "gpu_memory_bytes"), gpu)
    elif gpu is not None:
        capacity = gpu.capacity_bytes
    cc = float(v["compute_capability"]) if v.get("compute_capability") else (gpu.capability if gpu else None)
    return _Device(gpu, capacity, cc)


_QUANTIZATIONS = {
    "4": "4bit",
    "8": "8bit",
    "int4": "4bit",
    "int8": "8bit",
    "nf4": "4bit",
    "fp4": "4bit",
    "false": "none",
    "no": "none",
}


def _read_quantization(v: Mapping[str, Any]) -> str:
    quant = str(given_or_default(v, "quantization")).lower().replace("-", "")
    quant = _QUANTIZATIONS.get(quant, quant)
    if quant not in ("none", "8bit", "4bit"):
        raise RunError(
            f"quantization must be none, 8bit or 4bit; got {v['quantization']!r}",
            f"quantization 必须是 none、8bit 或 4bit；得到的是 {v['quantization']!r}",
        )
    return quant


def _default_method(v: Mapping[str, Any], quant: str, notes: list[Assumption]) -> str:
    if quant == "4bit":
        return _assume(
            notes,
            "finetune_method",
            "qlora",
            "the base is loaded in 4-bit, so LoRA on top (QLoRA)",
            "基座以 4-bit 加载，所以在其上做 LoRA（即 QLoRA）",
        )
    if quant == "8bit" or v.get("lora_r") or v.get("lora_target_modules"):
        return _assume(notes, "finetune_method", "lora", "LoRA settings are given", "给出了 LoRA 的设置")
    return str(_assume_default(notes, "finetune_method"))


def _read_method(v: Mapping[str, Any], quant: str, notes: list[Assumption]) -> tuple[str, str]:
    """The fine-tuning method, and the quantization it implies (QLoRA means a 4-bit base)."""
    method = str(v["finetune_method"]).lower() if v.get("finetune_method") else _default_method(v, quant, notes)
    if method not in ("full", "lora", "qlora", "freeze"):
        raise RunError(
            f"finetune_method must be full, lora, qlora or freeze; got {method!r}",
            f"finetune_method 必须是 full、lora、qlora 或 freeze；得到的是 {method!r}",
        )
    if method == "qlora" and quant == "none" and "quantization" not in v:
        quant = _assume(notes, "quantization", "4bit", "QLoRA means a 4-bit base", "QLoRA 意味着 4-bit 基座")
    if quant != "none" and method == "full":
        method = _assume(
            notes,
            "finetune_method",
            "lora",
            "a quantized base cannot be fully fine-tuned; LoRA assumed",
            "量化后的基座不能全参数微调；按 LoRA 估算",
        )
    if method == "qlora" and quant == "none":
        method = "lora"
    return method, quant


def _read_weight_dtype(
    v: Mapping[str, Any], a: Architecture, tf: Version | None, cc: float | None, mp: str | None, notes: list[Assumption]
) -> str:
    """The dtype the weights are loaded in (transformers' own default when not given)."""
    given = v.get("torch_dtype")
    if given and str(given).lower() == "auto":
        return _assume(
            notes,
            "torch_dtype",
            a.dtype,
            "torch_dtype='auto' loads the checkpoint's own dtype",
            "torch_dtype='auto' 按 checkpoint 自身的 dtype 加载",
        )
    wd = as_dtype(given) if given else None
    if wd is not None:
        return wd
    if tf is not None and tf >= Version("5.0.0rc1"):  # dtype="auto" by default (checked in the wheels)
        return _assume(
            notes,
            "torch_dtype",
            a.dtype,
            "transformers 5 loads the checkpoint's dtype by default",
            "transformers 5 默认按 checkpoint 的 dtype 加载",
        )
    guess = "bf16" if cc is None or cc >= 8.0 else "fp16"
    if mp in ("fp16", "bf16"):
        guess = mp
    return _assume(
        notes,
        "torch_dtype",
        guess,
        "not given; assumed 16-bit. If from_pretrained gets no torch_dtype, "
        "transformers < 5 loads fp32 and the weights double: say torch_dtype=fp32",
        "未给出；按 16 位估算。如果 from_pretrained 没有传 torch_dtype，transformers < 5 会以 fp32 加载，"
        "权重显存翻倍：这种情况请给出 torch_dtype=fp32",
    )


def _read_dtypes(
    v: Mapping[str, Any], a: Architecture, tf: Version | None, cc: float | None, quant: str, notes: list[Assumption]
) -> tuple[str, str]:
    """(weight dtype, compute dtype): autocast computes in its own dtype, 4/8-bit bases never in fp32."""
    mp = str(v.get("mixed_precision", "")).lower() or None
    wd = _read_weight_dtype(v, a, tf, cc, mp, notes)
    if mp in (None, "", "none"):
        mp = _assume(notes, "mixed_precision", "no", "not given; no autocast", "未给出；按不使用 autocast 估算")
    compute = wd if mp == "no" else ("bf16" if mp == "bf16" else "fp16")
    if quant != "none" and wd == "fp32":
        compute = "fp16" if mp != "bf16" else "bf16"
    return wd, compute


def _read_double_quant(v: Mapping[str, Any], quant: str, notes: list[Assumption]) -> bool:
    if "double_quant" in v:
        return as_bool(v["double_quant"], "double_quant")
    if quant == "4bit":
        _assume_default(notes, "double_quant")
    return bool(default("double_quant"))


@dataclass(frozen=True)
class _Adapter:
    r: int
    targets: tuple[str, ...]
    dropout: float
    modules_to_save: tuple[str, ...]
    prepare_kbit: bool


def _read_targets(v: Mapping[str, Any], a: Architecture, lora: bool, notes: list[Assumption]) -> tuple[str, ...]:
    """The LoRA target modules (peft's default for the model, or all linears for all-linear)."""
    raw = v.get("lora_target_modules")
    if raw is None:
        targets = DEFAULT_LORA_TARGETS[a.layout]
        if lora:
            _assume(
                notes,
                "lora_target_modules",
                ",".join(targets),
                f"peft's default for {a.family or a.layout}",
                f"peft 对 {a.family or a.layout} 的默认值",
            )
        return targets
    targets = split_modules(raw)
    if any(t.lower() in ("all-linear", "all_linear", "all") for t in targets):
        return tuple(lin.name for lin in a.linears())
    return targets


def _read_adapter(v: Mapping[str, Any], a: Architecture, method: str, quant: str, notes: list[Assumption]) -> _Adapter:
    """LoRA's rank, targets, dropout and modules_to_save, and whether prepare_model_for_kbit_training runs."""
    lora = method in ("lora", "qlora")
    r = as_int(given_or_default(v, "lora_r"), "lora_r", 1)
    if lora and "lora_r" not in v:
        _assume_default(notes, "lora_r")
    targets = _read_targets(v, a, lora, notes)
    dropout = float(given_or_default(v, "lora_dropout") or 0.0)
    mts = split_modules(v["modules_to_save"]) if v.get("modules_to_save") is not None else ()
    if "prepare_kbit_training" in v:
        prepare = as_bool(v["prepare_kbit_training"], "prepare_kbit_training")
    else:
        prepare = quant != "none"
        if prepare:
            _assume(
                notes,
                "prepare_kbit_training",
                True,
                "the usual QLoRA recipe calls prepare_model_for_kbit_training",
                "常见的 QLoRA 流程会调用 prepare_model_for_kbit_training",
            )
    return _Adapter(r, tuple(targets), dropout, mts, prepare)


@dataclass(frozen=True)
class _Shape:
    batch: int
    seq: int
    grad_accum: int
    padded: bool


def _read_shape(v: Mapping[str, Any], notes: list[Assumption]) -> _Shape:
    """Batch size, accumulation, the sequence length batches really have, and whether they are padded."""
    batch = as_int(given_or_default(v, "batch_size"), "batch_size", 1)
    if "batch_size" not in v:
        _assume_default(notes, "batch_size")
    grad_accum = as_int(given_or_default(v, "grad_accum"), "grad_accum", 1)
    seq = as_int(v["max_length"], "max_length", 1) if "max_length" in v else int(_assume_default(notes, "max_length"))
    longest = as_int(v["max_sample_tokens"], "max_sample_tokens", 1) if v.get("max_sample_tokens") else None
    packing = as_bool(given_or_default(v, "packing"), "packing")
    padding = str(v.get("padding", "")).lower() or None
    truncation = as_bool(v["truncation"], "truncation") if "truncation" in v else bool(default("truncation"))
    if longest is not None and not packing:
        if not truncation:
            seq = longest
        elif padding != "max_length":
            seq = min(seq, longest)
    return _Shape(batch, seq, grad_accum, not packing and padding in ("max_length", "longest"))


def _read_checkpointing(v: Mapping[str, Any], prepare_kbit: bool, notes: list[Assumption]) -> bool:
    if "gradient_checkpointing" in v:
        return as_bool(v["gradient_checkpointing"], "gradient_checkpointing")
    if v.get("gc_active") is not None:
        return as_bool(v["gc_active"], "gc_active")
    if prepare_kbit:
        return _assume(
            notes,
            "gradient_checkpointing",
            True,
            "prepare_model_for_kbit_training turns it on by default",
            "prepare_model_for_kbit_training 默认会开启它",
        )
    if str(v.get("framework", "")) == "llama_factory":
        return _assume(
            notes, "gradient_checkpointing", True, "LLaMA-Factory turns it on by default", "LLaMA-Factory 默认开启"
        )
    return bool(_assume_default(notes, "gradient_checkpointing"))


_ATTENTION_ALIASES = {
    "flash_attention": "flash_attention_2",
    "fa2": "flash_attention_2",
    "flash": "flash_attention_2",
    "flash_attn": "flash_attention_2",
}


def _read_attention(v: Mapping[str, Any], a: Architecture, tf: Version | None, notes: list[Assumption]) -> str:
    if "attn_implementation" in v:
        attn = str(v["attn_implementation"]).lower()
        attn = _ATTENTION_ALIASES.get(attn, attn)
        if attn not in ("eager", "sdpa", "flash_attention_2", "xformers"):
            raise RunError(
                f"attn_implementation must be eager, sdpa, flash_attention_2 or xformers; got {attn!r}",
                f"attn_implementation 必须是 eager、sdpa、flash_attention_2 或 xformers；得到的是 {attn!r}",
            )
        return attn
    if a.default_attn:
        return _assume(
            notes,
            "attn_implementation",
            a.default_attn,
            f"transformers' recommendation for {a.family}",
            f"transformers 对 {a.family} 的推荐",
        )
    if tf is not None and tf < Version("4.36.0"):
        return _assume(
            notes,
            "attn_implementation",
            "eager",
            "transformers < 4.36 has no SDPA path",
            "transformers < 4.36 没有 SDPA",
        )
    return _assume(
        notes,
        "attn_implementation",
        "sdpa",
        "transformers >= 4.36 default (torch >= 2.1.1)",
        "transformers >= 4.36 的默认值（torch >= 2.1.1）",
    )


def _read_optimizer(v: Mapping[str, Any], tf: Version | None, notes: list[Assumption]) -> str:
    if v.get("optimizer"):
        optimizer = str(v["optimizer"]).strip().lower()
    else:
        name, why, why_zh = default_optimizer(tf)
        optimizer = _assume(notes, "optimizer", name, why, why_zh)
    optimizer_spec(optimizer)  # raises on unknown names
    return optimizer


@dataclass(frozen=True)
class _Evaluation:
    phase: str
    eval_batch: int
    accumulation_steps: int | None
    compute_metrics: bool
    preprocess_logits: bool
    eval_samples: int
    max_new_tokens: int
    num_beams: int


def _read_evaluation(v: Mapping[str, Any], notes: list[Assumption]) -> _Evaluation:
    """The phase (training, evaluation or generation) and the settings of evaluation and generation."""
    phase = {"evaluation": "evaluation", "generation": "generation"}.get(str(v.get("phase", "")).lower(), "training")
    eval_batch = as_int(given_or_default(v, "eval_batch_size"), "eval_batch_size", 1)
    if phase != "training" and "eval_batch_size" not in v:
        _assume_default(notes, "eval_batch_size")
    eas = (
        as_int(v["eval_accumulation_steps"], "eval_accumulation_steps", 1) if v.get("eval_accumulation_steps") else None
    )
    compute_metrics = as_bool(given_or_default(v, "compute_metrics"), "compute_metrics")
    preprocess = as_bool(given_or_default(v, "preprocess_logits"), "preprocess_logits")
    eval_samples = as_int(given_or_default(v, "eval_samples"), "eval_samples", 1)
    if phase == "evaluation" and compute_metrics and not preprocess and eas is None and "eval_samples" not in v:
        _assume_default(notes, "eval_samples")
    max_new = as_int(given_or_default(v, "max_new_tokens"), "max_new_tokens", 0)
    if phase == "generation" and "max_new_tokens" not in v:
        _assume_default(notes, "max_new_tokens")
    beams = as_int(given_or_default(v, "num_beams"), "num_beams", 1)
    return _Evaluation(phase, eval_batch, eas, compute_metrics, preprocess, eval_samples, max_new, beams)


@dataclass(frozen=True)
class _Distribution:
    distributed: str
    zero_stage: int
    offload: bool
    gpu_count: int


def _read_distribution(v: Mapping[str, Any], notes: list[Assumption]) -> _Distribution:
    """DDP, DeepSpeed (ZeRO stage, offload), FSDP or a device_map split, and the GPU count."""
    dist = str(given_or_default(v, "distributed")).lower()
    if dist not in ("none", "ddp", "deepspeed", "fsdp", "model_parallel"):
        raise RunError(
            f"distributed must be none, ddp, deepspeed, fsdp or model_parallel; got {dist!r}",
            f"distributed 必须是 none、ddp、deepspeed、fsdp 或 model_parallel；得到的是 {dist!r}",
        )
    zero = as_int(v["zero_stage"], "zero_stage") if v.get("zero_stage") is not None else None
    offload = as_bool(given_or_default(v, "offload"), "offload")
    if zero is not None and zero > 3:
        raise RunError(f"zero_stage must be 0-3; got {zero}", f"zero_stage 必须是 0-3；得到的是 {zero}")
    if dist == "none" and (zero or offload):
        dist = _assume(
            notes,
            "distributed",
            "deepspeed",
            "ZeRO stage or offload given, so DeepSpeed (ZeRO-Offload also runs on one GPU)",
            "给出了 ZeRO stage 或 offload，所以是 DeepSpeed（ZeRO-Offload 单卡也能用）",
        )
    if dist in ("none", "ddp", "model_parallel"):
        zero = 0
    elif zero is None and dist == "deepspeed":
        zero = _assume(
            notes,
            "zero_stage",
            2,
            "DeepSpeed without a stage given; ZeRO-2 is the most common config",
            "用了 DeepSpeed 但没有给出 stage；ZeRO-2 是最常见的配置",
        )
    elif zero is None:
        zero = _assume(
            notes,
            "zero_stage",
            3,
            "FSDP FULL_SHARD (the default sharding strategy), sized like ZeRO-3",
            "FSDP FULL_SHARD（默认的分片策略），按 ZeRO-3 估算",
        )
    count = as_int(v["gpu_count"], "gpu_count", 1) if v.get("gpu_count") else None
    if count is None:
        count = 1 if dist == "none" else int(_assume_default(notes, "gpu_count"))
    return _Distribution(dist, zero, offload, count)


@dataclass(frozen=True)
class _Options:
    expandable_segments: bool
    other_process_bytes: int
    trainable_override: int | None
    fused_loss: bool
    optimizer_in_backward: bool


def _read_options(v: Mapping[str, Any]) -> _Options:
    """The allocator setting, other processes, a given trainable count, the fused loss and step."""
    return _Options(
        expandable_segments=as_bool(given_or_default(v, "expandable_segments"), "expandable_segments"),
        other_process_bytes=as_bytes(given_or_default(v, "other_process_bytes") or 0, "other_process_bytes"),
        trainable_override=int(float(v["trainable_params_b"]) * 1e9) if v.get("trainable_params_b") else None,
        fused_loss=as_bool(given_or_default(v, "fused_loss"), "fused_loss"),
        optimizer_in_backward=as_bool(given_or_default(v, "optimizer_in_backward"), "optimizer_in_backward"),
    )


def _read_bnb_version(v: Mapping[str, Any], quant: str, notes: list[Assumption]) -> Version | None:
    """The bitsandbytes version (it decides whether 4-bit layers keep their inputs for backward)."""
    version = _version(v.get("bitsandbytes_version"))
    if quant == "4bit" and version is None:
        _assume(
            notes,
            "bitsandbytes_version",
            ">= 0.43.2",
            "not given; sized as a current release. bitsandbytes 0.39.0-0.43.1 keeps every 4-bit layer's "
            "input for backward (more activation memory): say bitsandbytes_version",
            "未给出；按当前版本估算。bitsandbytes 0.39.0-0.43.1 会为反向传播保留每个 4-bit 层的输入"
            "（激活显存更多）：请给出 bitsandbytes_version",
        )
    return version


def _read_framework(v: Mapping[str, Any]) -> str:
    """The framework, where its own model code saves different tensors than transformers + peft."""
    return "litgpt" if str(v.get("framework", "")).lower() == "litgpt" else ""


def run_from_facts(facts: FactSet | Mapping[str, Any], arch: Architecture | None = None) -> Run:
    """Build a :class:`Run`; every default taken is recorded in ``Run.assumptions``."""
    v = fact_values(facts)
    notes: list[Assumption] = []
    a = resolve_architecture(v, arch, notes)
    tf = _version(v.get("transformers_version"))
    device = _read_device(v, notes)
    method, quant = _read_method(v, _read_quantization(v), notes)
    weight_dtype, compute_dtype = _read_dtypes(v, a, tf, device.capability, quant, notes)
    double_quant = _read_double_quant(v, quant, notes)
    adapter = _read_adapter(v, a, method, quant, notes)
    shape = _read_shape(v, notes)
    gc = _read_checkpointing(v, adapter.prepare_kbit, notes)
    attn = _read_attention(v, a, tf, notes)
    optimizer = _read_optimizer(v, tf, notes)
    ev = _read_evaluation(v, notes)
    dist = _read_distribution(v, notes)
    options = _read_options(v)
    if dist.distributed == "deepspeed" and compute_dtype != weight_dtype and quant == "none":
        # DeepSpeed's fp16/bf16 mode casts the module's parameters to that dtype (zero.Init creates them
        # in it); the fp32 master copy lives in the optimizer (deepspeed/runtime/engine.py
        # _configure_distributed_model), and accelerate does not autocast under DeepSpeed
        weight_dtype = _assume(
            notes,
            "torch_dtype",
            compute_dtype,
            f"DeepSpeed's {compute_dtype} mode casts the weights to {compute_dtype}; the fp32 master copy "
            "is in the optimizer",
            f"DeepSpeed 的 {compute_dtype} 模式会把权重转成 {compute_dtype}；fp32 主副本在优化器里",
        )
    if attn == "flash_attention_2" and device.capability is not None and device.capability < 8.0:
        notes.append(
            Assumption(
                "attn_implementation",
                attn,
                "FlashAttention-2 needs compute capability >= 8.0; this GPU cannot run it",
                "FlashAttention-2 需要计算能力 >= 8.0；这块显卡跑不了",
            )
        )
    return Run(
        arch=a,
        gpu=device.gpu,
        capacity_bytes=device.capacity,
        weight_dtype=weight_dtype,
        compute_dtype=compute_dtype,
        quantization=quant,
        double_quant=double_quant,
        method=method,
        lora_r=adapter.r,
        lora_targets=adapter.targets,
        lora_dropout=adapter.dropout,
        modules_to_save=adapter.modules_to_save,
        prepare_kbit=adapter.prepare_kbit,
        batch=shape.batch,
        seq=shape.seq,
        grad_accum=shape.grad_accum,
        gc=gc,
        attn=attn,
        optimizer=optimizer,
        fused_loss=options.fused_loss,
        optimizer_in_backward=options.optimizer_in_backward,
        phase=ev.phase,
        eval_batch=ev.eval_batch,
        eval_accumulation_steps=ev.accumulation_steps,
        compute_metrics=ev.compute_metrics,
        preprocess_logits=ev.preprocess_logits,
        eval_samples=ev.eval_samples,
        max_new_tokens=ev.max_new_tokens,
        num_beams=ev.num_beams,
        distributed=dist.distributed,
        zero_stage=dist.zero_stage,
        offload=dist.offload,
        gpu_count=dist.gpu_count,
        expandable_segments=options.expandable_segments,
        padded=shape.padded,
        other_process_bytes=options.other_process_bytes,
        transformers_version=tf,
        trainable_override=options.trainable_override,
        bitsandbytes_version=_read_bnb_version(v, quant, notes),
        framework=_read_framework(v),
        torch_version=_version(v.get("torch_version")),
        peft_version=_version(v.get("peft_version")),
        assumptions=tuple(notes),
    )
