"""What one measured training step is: model config, method, shapes, kernels (pure Python, no torch).

A :class:`MeasureSpec` is built from an estimator preset (:func:`hf_config_from_architecture`)
or from a Hugging Face ``config.json``; :func:`estimator_facts` turns the same spec into the
facts :func:`triage.estimate.estimate` reads, so the oracle and the estimator size the same run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from triage.estimate.architecture import Architecture


class SpecError(ValueError):
    """A configuration the oracle cannot build (unsupported model type, bad flag value)."""


METHODS = ("lora", "qlora", "full")
DTYPES = ("bf16", "fp16", "fp32")
ATTNS = ("sdpa", "eager")
OPTIMIZERS = ("adamw", "adamw8bit", "sgd")
OPTIM_IMPLS = ("fused", "foreach", "forloop")

#: estimator layout/family -> transformers model_type (models that need no remote code).
_MODEL_TYPES = {
    "mistral": "mistral",
    "qwen2": "qwen2",
    "gemma": "gemma",
    "gemma2": "gemma2",
    "phi3": "phi3",
    "phi": "phi",
    "neox": "gpt_neox",
    "falcon": "falcon",
    "gpt2": "gpt2",
}
_ACTS = {"gelu_tanh": "gelu_pytorch_tanh"}


@dataclass(frozen=True)
class MeasureSpec:
    """One training step to run on fake tensors."""

    name: str
    """A label for reports (preset name or config path)."""
    hf_config: Mapping[str, Any]
    """``model_type`` plus the config.json fields transformers' config class takes."""
    dtype: str = "bf16"
    """dtype the weights are loaded in (no autocast)."""
    method: str = "lora"
    lora_r: int = 16
    lora_alpha: int | None = None
    """None means 2·r."""
    lora_targets: tuple[str, ...] = ("q_proj", "v_proj")
    lora_dropout: float = 0.0
    lora_same_dtype: bool = False
    """``autocast_adapter_dtype=False``: adapters in the base dtype instead of peft's fp32 default."""
    prepare_kbit: bool = False
    """Call peft's ``prepare_model_for_kbit_training`` (QLoRA recipe; casts non-4-bit params to fp32)."""
    double_quant: bool = True
    seq: int = 2048
    batch: int = 1
    gc: bool = False
    attn: str = "sdpa"
    optimizer: str = "adamw"
    optim_impl: str = "fused"
    cuda_shims: bool = True
    seed_note: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        checks = (
            ("method", self.method, METHODS),
            ("dtype", self.dtype, DTYPES),
            ("attn", self.attn, ATTNS),
            ("optimizer", self.optimizer, OPTIMIZERS),
            ("optim_impl", self.optim_impl, OPTIM_IMPLS),
        )
        for label, value, allowed in checks:
            if value not in allowed:
                raise SpecError(f"{label} must be one of {', '.join(allowed)}; got {value!r}")
        if self.seq < 1 or self.batch < 1 or self.lora_r < 1:
            raise SpecError("seq, batch and lora_r must be at least 1")
        if "model_type" not in self.hf_config:
            raise SpecError(f"{self.name}: the model config has no model_type")

    @property
    def model_type(self) -> str:
        return str(self.hf_config["model_type"])

    @property
    def tokens(self) -> int:
        return self.batch * self.seq

    def label(self) -> str:
        """A one-line description: ``Llama-2-7B LoRA r16 q_proj,v_proj sdpa GC B1 S2048``."""
        method = {"lora": f"LoRA r{self.lora_r}", "qlora": f"QLoRA r{self.lora_r}", "full": "full FT"}[self.method]
        targets = "" if self.method == "full" else " " + _short_targets(self.lora_targets)
        if self.method != "full" and self.lora_dropout:
            targets += f" drop{self.lora_dropout:g}"
        if self.prepare_kbit:
            targets += " kbit-prep"
        opt = self.optimizer if self.optimizer != "adamw" else f"adamw/{self.optim_impl}"
        return (
            f"{self.name} {self.dtype} {method}{targets} {self.attn}{' GC' if self.gc else ''} "
            f"B{self.batch} S{self.seq} {opt}"
        )

    def with_(self, **changes: Any) -> MeasureSpec:
        return replace(self, **changes)


def _short_targets(targets: tuple[str, ...]) -> str:
    return "all-linear" if len(targets) >= 5 else ",".join(t.replace("_proj", "") for t in targets)


def hf_config_from_architecture(arch: Architecture) -> dict[str, Any]:
    """The transformers config fields for an estimator preset (the model is built from these, no weights)."""
    model_type = _MODEL_TYPES.get(arch.family) or _MODEL_TYPES.get(arch.layout)
    if arch.layout == "llama" and model_type is None:
        model_type = "llama"
    if model_type is None:
        raise SpecError(
            f"{arch.name}: layout {arch.layout!r} needs remote code; the oracle builds only models transformers ships"
        )
    cfg: dict[str, Any] = {
        "model_type": model_type,
        "vocab_size": arch.vocab,
        "tie_word_embeddings": arch.tied,
        "max_position_embeddings": arch.max_position,
    }
    if model_type == "gpt2":
        cfg.update(
            n_embd=arch.hidden,
            n_layer=arch.layers,
            n_head=arch.heads,
            n_inner=arch.intermediate,
            n_positions=arch.max_position,
            activation_function=arch.act,
        )
        return cfg
    cfg.update(
        hidden_size=arch.hidden,
        num_hidden_layers=arch.layers,
        num_attention_heads=arch.heads,
        intermediate_size=arch.intermediate,
    )
    if model_type in ("llama", "mistral", "qwen2", "gemma", "gemma2", "phi3"):
        cfg["num_key_value_heads"] = arch.kv_heads
    if arch.head_dim and model_type in ("llama", "mistral", "qwen2", "gemma", "gemma2"):
        cfg["head_dim"] = arch.head_dim
    if model_type == "llama":
        cfg["attention_bias"] = arch.qkv_bias
    if model_type in ("gemma", "gemma2"):
        cfg["hidden_activation"] = _ACTS.get(arch.act, arch.act)
    elif model_type in ("llama", "mistral", "qwen2", "phi3", "phi", "gpt_neox"):
        cfg["hidden_act"] = _ACTS.get(arch.act, arch.act)
    if model_type == "gpt_neox":
        cfg.pop("num_key_value_heads", None)
    if model_type == "falcon":
        cfg.update(
            new_decoder_architecture=arch.norms_per_layer == 2,
            multi_query=arch.kv_heads == 1,
            num_kv_heads=arch.kv_heads,
            bias=arch.qkv_bias,
            parallel_attn=True,
        )
        cfg.pop("intermediate_size", None)
    if model_type in ("qwen2", "mistral"):
        cfg["sliding_window"] = None
        cfg["use_sliding_window"] = False
    return cfg


def hf_config_from_json(data: Mapping[str, Any]) -> dict[str, Any]:
    """A config.json's fields, minus the ones that would make transformers load code or weights."""
    if "text_config" in data and isinstance(data["text_config"], Mapping) and "hidden_size" not in data:
        data = data["text_config"]
    drop = {
        "architectures",
        "auto_map",
        "_name_or_path",
        "transformers_version",
        "quantization_config",
        "torch_dtype",
        "dtype",
        "_attn_implementation",
        "attn_implementation",
        "use_cache",
    }
    cfg = {k: v for k, v in data.items() if k not in drop}
    if "model_type" not in cfg:
        raise SpecError("config.json has no model_type")
    return cfg


def default_targets(hf_config: Mapping[str, Any]) -> tuple[str, ...]:
    """peft's default LoRA targets for a model type (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING)."""
    return {
        "phi3": ("qkv_proj",),
        "gpt_neox": ("query_key_value",),
        "falcon": ("query_key_value",),
        "gpt2": ("c_attn",),
        "phi": ("q_proj", "v_proj"),
    }.get(str(hf_config.get("model_type")), ("q_proj", "v_proj"))


def all_linear_targets(hf_config: Mapping[str, Any]) -> tuple[str, ...]:
    """Every linear of a decoder layer, by peft module name."""
    return {
        "phi3": ("qkv_proj", "o_proj", "gate_up_proj", "down_proj"),
        "gpt_neox": ("query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"),
        "falcon": ("query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"),
        "gpt2": ("c_attn", "c_proj", "c_fc"),
        "phi": ("q_proj", "k_proj", "v_proj", "dense", "fc1", "fc2"),
    }.get(
        str(hf_config.get("model_type")), ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    )


_HF_OPTIM = {
    ("adamw", "fused"): "adamw_torch_fused",
    ("adamw", "foreach"): "adamw_torch",
    ("adamw", "forloop"): "adamw_torch",
    ("adamw8bit", "fused"): "adamw_bnb_8bit",
    ("adamw8bit", "foreach"): "adamw_bnb_8bit",
    ("adamw8bit", "forloop"): "adamw_bnb_8bit",
    ("sgd", "fused"): "sgd",
    ("sgd", "foreach"): "sgd",
    ("sgd", "forloop"): "sgd",
}


def estimator_facts(
    spec: MeasureSpec, preset: str | None = None, transformers_version: str | None = None
) -> dict[str, Any]:
    """The facts that describe ``spec`` to :func:`triage.estimate.estimate` (raw values).

    ``preset`` is the estimator's model name; without it the caller passes the
    architecture explicitly (``estimate(facts, arch=...)``).
    """
    facts: dict[str, Any] = {
        "batch_size": spec.batch,
        "max_length": spec.seq,
        "gradient_checkpointing": spec.gc,
        "attn_implementation": spec.attn,
        "torch_dtype": spec.dtype,
        "mixed_precision": "no",
        "optimizer": _HF_OPTIM[(spec.optimizer, spec.optim_impl)],
        "grad_accum": 1,
    }
    if preset:
        facts["model_name"] = preset
    if transformers_version:
        facts["transformers_version"] = transformers_version
    if spec.method == "full":
        facts["finetune_method"] = "full"
        facts["quantization"] = "none"
        facts["prepare_kbit_training"] = False
    else:
        facts["finetune_method"] = spec.method
        facts["lora_r"] = spec.lora_r
        facts["lora_target_modules"] = ",".join(spec.lora_targets)
        facts["lora_dropout"] = spec.lora_dropout
        facts["quantization"] = "4bit" if spec.method == "qlora" else "none"
        facts["prepare_kbit_training"] = spec.prepare_kbit
        if spec.method == "qlora":
            facts["double_quant"] = spec.double_quant
    return facts


#: HF ``optim`` names the oracle can run -> (optimizer, implementation). Plain torch AdamW on CUDA is foreach.
MEASURABLE_OPTIMIZERS = {
    "adamw_torch_fused": ("adamw", "fused"),
    "adamw_torch": ("adamw", "foreach"),
    "adamw_hf": ("adamw", "forloop"),
    "adamw_bnb_8bit": ("adamw8bit", "fused"),
    "sgd": ("sgd", "foreach"),
}


def spec_from_run(run: Any, hf_config: Mapping[str, Any], name: str) -> tuple[MeasureSpec, list[str]]:
    """The oracle spec for an estimator :class:`~triage.estimate.Run` (the same defaults), plus notes.

    Raises :class:`SpecError` for what one fake single-GPU step cannot run (multi-GPU, 8-bit
    base, autocast, freeze tuning, optimizers outside :data:`MEASURABLE_OPTIMIZERS`).
    """
    notes: list[str] = []
    if run.distributed != "none" and run.gpu_count > 1:
        raise SpecError("triage measure runs one single-GPU step; DDP/ZeRO/FSDP are not measurable yet")
    if run.quantization == "8bit":
        raise SpecError("triage measure does not run 8-bit (LLM.int8) bases yet; 4-bit QLoRA is supported")
    if run.method == "freeze":
        raise SpecError("triage measure does not run freeze (partial) tuning yet; use full, lora or qlora")
    if run.compute_dtype != run.weight_dtype and run.quantization == "none":
        raise SpecError(
            "triage measure runs without autocast: load the weights in the compute dtype "
            "(--torch-dtype bf16) and drop --bf16/--fp16"
        )
    if run.phase != "training":
        raise SpecError("triage measure measures a training step; evaluation and generation are not measurable yet")
    optim = MEASURABLE_OPTIMIZERS.get(run.optimizer)
    if optim is None:
        raise SpecError(
            f"triage measure cannot run optimizer {run.optimizer!r}; measurable: {', '.join(MEASURABLE_OPTIMIZERS)}"
        )
    attn = run.attn
    if attn in ("flash_attention_2", "xformers"):
        notes.append(
            f"{attn} measured as sdpa: on fake CPU tensors SDPA runs the flash kernel, which saves the "
            "same tensors (output + fp32 logsumexp)"
        )
        attn = "sdpa"
    if run.padded:
        notes.append("measured without padding: a padded batch also builds a 4-D mask (b·s² elements)")
    if run.fused_loss:
        notes.append("fused/chunked loss is not measured: the oracle runs HF's ForCausalLMLoss")
    dtype = run.weight_dtype if run.quantization == "none" else run.compute_dtype
    spec = MeasureSpec(
        name=name,
        hf_config=hf_config,
        dtype=dtype,
        method=run.method,
        lora_r=run.lora_r,
        lora_targets=tuple(run.lora_targets),
        lora_dropout=run.lora_dropout,
        prepare_kbit=run.prepare_kbit,
        double_quant=run.double_quant,
        seq=run.seq,
        batch=run.batch,
        gc=run.gc,
        attn=attn,
        optimizer=optim[0],
        optim_impl=optim[1],
    )
    if run.grad_accum > 1 and run.method == "full":
        notes.append("gradient accumulation keeps the gradients alive between micro-steps; one micro-step is measured")
    return spec, notes
