"""Read training configs: HF TrainingArguments / TRL configs (JSON or YAML, including what
``to_json_string`` writes), axolotl and LLaMA-Factory YAML, DeepSpeed JSON, accelerate YAML,
peft ``adapter_config.json`` and a model's ``config.json``.

Every top-level key is either turned into facts, known to be irrelevant to memory, or listed
back as not understood: nothing is dropped silently.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import yaml

from triage.ingest.errors import IngestError
from triage.ingest.found import Found, excerpt

Pairs = list[tuple[str, object]]
Rule = Callable[[Any], Pairs]

CONFIG_KINDS = (
    "training_args", "trl", "axolotl", "llama_factory", "deepspeed", "accelerate", "peft_adapter", "model_config",
    "generic",
)  # fmt: skip


def _is_set(value: Any) -> bool:
    return value not in (None, "", [], {}, "none", "None", "null") and value is not False


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "yes", "1", "on"):
            return True
        if low in ("false", "no", "0", "off", "none", ""):
            return False
    return None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        return int(value)
    return None


def to_int(fact: str, positive: bool = True) -> Rule:
    def rule(value: Any) -> Pairs:
        number = _int(value)
        return [(fact, number)] if number is not None and (number > 0 or not positive) else []

    return rule


def _experts(value: Any) -> Pairs:
    number = _int(value)
    return [("moe", number > 1)] if number is not None and number > 0 else []


def to_bool(fact: str, invert: bool = False) -> Rule:
    def rule(value: Any) -> Pairs:
        flag = _bool(value)
        if flag is None and isinstance(value, str) and value.strip():
            flag = True  # e.g. gradient_checkpointing: "unsloth"
        return [] if flag is None else [(fact, flag != invert)]

    return rule


def to_text(fact: str) -> Rule:
    def rule(value: Any) -> Pairs:
        if isinstance(value, (list, tuple)):
            return [(fact, ",".join(str(v) for v in value))] if value else [(fact, "none")]
        if value is None or (isinstance(value, str) and not value.strip()):
            return [(fact, "none")] if fact == "modules_to_save" else []
        return [(fact, str(value))]

    return rule


def _eval_accumulation(value: Any) -> Pairs:
    """``eval_accumulation_steps: null`` is a statement: predictions are never moved off the GPU (0)."""
    return [("eval_accumulation_steps", 0)] if value is None else to_int("eval_accumulation_steps")(value)


def _precision(value: Any) -> Pairs:
    text = str(value).lower()
    return [("mixed_precision", text)] if text in ("no", "fp16", "bf16") else []


def _flag_precision(name: str) -> Rule:
    def rule(value: Any) -> Pairs:
        if isinstance(value, Mapping):
            value = value.get("enabled")
        flag = _bool(value)
        return [("mixed_precision", name)] if flag else []

    return rule


_DTYPES = {
    "float32": "fp32",
    "fp32": "fp32",
    "float16": "fp16",
    "fp16": "fp16",
    "half": "fp16",
    "bfloat16": "bf16",
    "bf16": "bf16",
    "auto": "auto",
}


def _dtype(value: Any) -> Pairs:
    text = str(value).lower().replace("torch.", "")
    return [("torch_dtype", _DTYPES[text])] if text in _DTYPES else []


_ATTN = {
    "eager": "eager",
    "sdpa": "sdpa",
    "flash_attention_2": "flash_attention_2",
    "fa2": "flash_attention_2",
    "flash_attention_3": "flash_attention_2",
    "disabled": "eager",
    "xformers": "xformers",
}


def _attn(value: Any) -> Pairs:
    text = str(value).lower()
    return [("attn_implementation", _ATTN[text])] if text in _ATTN else []


def _attn_flag(name: str) -> Rule:
    return lambda value: [("attn_implementation", name)] if _bool(value) else []


def _quant_bits(value: Any) -> Pairs:
    bits = _int(value)
    return [("quantization", f"{bits}bit")] if bits in (4, 8) else []


def _quant_flag(name: str) -> Rule:
    return lambda value: [("quantization", name)] if _bool(value) else []


def _quant_config(value: Any) -> Pairs:
    """A ``BitsAndBytesConfig`` as a mapping (TrainingArguments' model kwargs, a saved model's config.json).

    Reads the bit width and ``bnb_4bit_use_double_quant``; a GPTQ/AWQ config gives ``bits``.
    """
    if not isinstance(value, Mapping):
        return []
    if _bool(value.get("load_in_4bit")) or _bool(value.get("_load_in_4bit")):
        out: Pairs = [("quantization", "4bit"), ("quant_method", "bitsandbytes")]
        out += _double_quant(value.get("bnb_4bit_use_double_quant"))
        return out + _bnb_compute_dtype(value.get("bnb_4bit_compute_dtype"))
    if _bool(value.get("load_in_8bit")) or _bool(value.get("_load_in_8bit")):
        return [("quantization", "8bit"), ("quant_method", "bitsandbytes")]
    return _quant_bits(value.get("bits")) + _quant_method(value.get("quant_method"))


def _quant_method(value: Any) -> Pairs:
    """``quantization_config.quant_method`` of a saved model: bitsandbytes, gptq, awq, or another method."""
    if not isinstance(value, str) or not value.strip():
        return []
    name = value.strip().lower()
    return [("quant_method", name if name in ("bitsandbytes", "gptq", "awq") else "other")]


def _double_quant(value: Any) -> Pairs:
    flag = _bool(value)
    return [] if flag is None else [("double_quant", flag)]


def _bnb_kwargs(value: Any) -> Pairs:
    """axolotl's ``bnb_config_kwargs``: overrides of its QLoRA BitsAndBytesConfig."""
    if not isinstance(value, Mapping):
        return []
    return _double_quant(value.get("bnb_4bit_use_double_quant"))


def _dropout(value: Any) -> Pairs:
    if isinstance(value, bool):
        return []
    try:
        p = float(value)
    except (TypeError, ValueError):
        return []
    return [("lora_dropout", p)] if 0.0 <= p < 1.0 else []


def _use_peft(value: Any) -> Pairs:
    """TRL's ``ModelConfig.use_peft``: false (its default) trains every parameter."""
    flag = _bool(value)
    return [] if flag is None else [("finetune_method", "lora" if flag else "full")]


def _deepspeed(value: Any) -> Pairs:
    if not _is_set(value):
        return []
    out: Pairs = [("distributed", "deepspeed")]
    if isinstance(value, Mapping):
        out += _zero(value.get("zero_optimization"))
    elif isinstance(value, str):
        m = re.search(r"(?:zero|z|stage)[_-]?([123])(?!\d)", value.lower())
        if m:
            out.append(("zero_stage", int(m.group(1))))
    return out


def _zero(value: Any) -> Pairs:
    if not isinstance(value, Mapping):
        return []
    out: Pairs = []
    stage = _int(value.get("stage"))
    if stage is not None:
        out.append(("zero_stage", stage))
    for key in ("offload_optimizer", "offload_param"):
        sub = value.get(key)
        if isinstance(sub, Mapping) and str(sub.get("device", "")).lower() in ("cpu", "nvme"):
            out.append(("offload", True))
            break
    else:
        if any(k in value for k in ("offload_optimizer", "offload_param")):
            out.append(("offload", False))
    return out


def _fsdp(value: Any) -> Pairs:
    if not _is_set(value):
        return []
    out: Pairs = [("distributed", "fsdp")]
    text = " ".join(value) if isinstance(value, list) else str(value)
    if "offload" in text.lower():
        out.append(("offload", True))
    return out


def _fsdp_config(value: Any) -> Pairs:
    if isinstance(value, Mapping):
        for key in ("fsdp_offload_params", "offload_params", "cpu_offload"):
            if key in value:
                return [("offload", bool(_bool(value[key])))]
    return []


_DISTRIBUTED = {
    "deepspeed": "deepspeed",
    "fsdp": "fsdp",
    "multi_gpu": "ddp",
    "no": "none",
    "multi_npu": "ddp",
    "megatron_lm": "model_parallel",
}


def _distributed_type(value: Any) -> Pairs:
    text = str(value).lower()
    return [("distributed", _DISTRIBUTED[text])] if text in _DISTRIBUTED else []


def _accelerate_ds(value: Any) -> Pairs:
    if not isinstance(value, Mapping):
        return []
    out: Pairs = []
    stage = _int(value.get("zero_stage"))
    if stage is not None:
        out.append(("zero_stage", stage))
    devices = {str(value.get(k, "")).lower() for k in ("offload_optimizer_device", "offload_param_device")}
    if devices & {"cpu", "nvme"}:
        out.append(("offload", True))
    elif devices & {"none"}:
        out.append(("offload", False))
    return out


def _eval_strategy(value: Any) -> Pairs:
    text = str(value).lower().split(".")[-1]
    if text == "no":
        return [("do_eval", False)]
    return [("do_eval", True)] if text in ("steps", "epoch") else []


def _positive_means_eval(value: Any) -> Pairs:
    try:
        return [("do_eval", float(value) > 0)]
    except (TypeError, ValueError):
        return []


def _optimizer(value: Any) -> Pairs:
    if isinstance(value, Mapping):
        value = value.get("type")
    return [("optimizer", str(value).lower().split(".")[-1])] if _is_set(value) else []


def _resume(value: Any) -> Pairs:
    flag = _bool(value)
    return [("resume_from_checkpoint", flag if flag is not None else _is_set(value))]


def _padding(value: Any) -> Pairs:
    text = str(value).lower()
    if text in ("max_length", "longest"):
        return [("padding", text)]
    flag = _bool(value)
    if flag is True:
        return [("padding", "longest")]
    return [("padding", "none")] if flag is False or text == "do_not_pad" else []


def _pad_to_sequence_len(value: Any) -> Pairs:
    return [("padding", "max_length")] if _bool(value) else []


def _lora_target(value: Any) -> Pairs:
    if isinstance(value, str) and value.strip().lower() == "all":
        return [("lora_target_modules", "all-linear")]
    return to_text("lora_target_modules")(value)


def _target_linear(value: Any) -> Pairs:
    return [("lora_target_modules", "all-linear")] if _bool(value) else []


def _modules_to_save(value: Any) -> Pairs:
    return to_text("modules_to_save")(value)


def _finetuning_type(value: Any) -> Pairs:
    text = str(value).lower()
    return [("finetune_method", text)] if text in ("lora", "full", "freeze", "qlora") else []


def _axolotl_adapter(value: Any) -> Pairs:
    text = str(value).lower()
    if text == "qlora":
        return [("finetune_method", "qlora"), ("quantization", "4bit")]
    return [("finetune_method", "lora")] if text in ("lora", "dora") else []


_STAGES = {
    "sft": "sft",
    "dpo": "dpo",
    "ppo": "ppo",
    "kto": "kto",
    "rm": "reward",
    "orpo": "orpo",
    "pt": "trainer",
    "grpo": "grpo",
    "reward": "reward",
    "simpo": "dpo",
    "ipo": "dpo",
}


def _stage(value: Any) -> Pairs:
    text = str(value).lower()
    return [("trainer_type", _STAGES[text])] if text in _STAGES else []


def _use_cache(value: Any) -> Pairs:
    flag = _bool(value)
    return [] if flag is None else [("use_cache", flag)]


def _fused_loss_on(value: Any) -> Pairs:
    """axolotl's ``liger_fused_linear_cross_entropy`` / ``cut_cross_entropy``: true means a chunked loss."""
    return [("fused_loss", True)] if _bool(value) else []


def _liger(value: Any, config: Any) -> Pairs:
    """TrainingArguments' ``use_liger_kernel`` with its ``liger_kernel_config``.

    ``Trainer`` calls ``apply_liger_kernel(model, liger_kernel_config)``, whose keyword arguments
    default to ``fused_linear_cross_entropy=True`` (Liger-Kernel's ``apply_liger_kernel_to_*``):
    the logits are never materialised unless the config turns that kernel off.
    """
    flag = _bool(value)
    if flag is None:
        return []
    if flag and isinstance(config, Mapping) and _bool(config.get("fused_linear_cross_entropy")) is False:
        return [("fused_loss", False)]
    return [("fused_loss", flag)]


def _padding_free(value: Any) -> Pairs:
    """TRL's ``padding_free``: the batch is flattened into one sequence, so no padding tokens."""
    return [("padding", "none")] if _bool(value) else []


def _bnb_compute_dtype(value: Any) -> Pairs:
    text = str(value).lower().replace("torch.", "")
    dtype = _DTYPES.get(text)
    return [("bnb_compute_dtype", dtype)] if dtype in ("fp32", "fp16", "bf16") else []


def _checkpointing_kwargs_notes(key: str, value: Any) -> list[str]:
    """What ``activation_checkpointing_kwargs`` changes that the estimate does not model.

    transformers 5's ``activation_checkpointing_enable(every_n_layers=..., offload=...)``: checkpoint
    only every n-th decoder layer, or hold the saved layer inputs in pinned host memory.
    """
    if not isinstance(value, Mapping):
        return []
    notes = []
    every = _int(value.get("every_n_layers"))
    if every is not None and every > 1:
        notes.append(
            f"{key}.every_n_layers={every}: only one decoder layer in {every} is checkpointed, the others keep "
            "their activations; the estimate sizes checkpointing of every layer, so it is low"
        )
    if _bool(value.get("offload")):
        notes.append(
            f"{key}.offload=true: the checkpointed layer inputs are held in host memory; the estimate keeps them "
            "on the GPU, so it is high by about layers x tokens x hidden x 2 bytes"
        )
    return notes


#: The keys that give one device's batch. Beside them a plain ``batch_size`` is the global batch (lit-gpt's
#: ``batch_size = 128`` with ``micro_batch_size = 4``, lit-llama#381), so the per-device one is the run's.
PER_DEVICE_BATCH_KEYS = frozenset(
    {
        "per_device_train_batch_size",
        "per_gpu_train_batch_size",
        "train_micro_batch_size_per_gpu",
        "micro_batch_size",
        "train_micro_batch_size",
        "device_train_microbatch_size",
    }
)

#: Understood keys -> rule. Keys are compared lower-cased.
RULES: dict[str, Rule] = {
    "per_device_train_batch_size": to_int("batch_size"),
    "per_gpu_train_batch_size": to_int("batch_size"),
    "train_micro_batch_size_per_gpu": to_int("batch_size"),
    "micro_batch_size": to_int("batch_size"),
    "train_micro_batch_size": to_int("batch_size"),  # Megatron / NeMo
    "batch_size": to_int("batch_size"),
    "device_train_microbatch_size": to_int("batch_size"),  # llm-foundry
    "gradient_accumulation_steps": to_int("grad_accum"),
    "gradient_accumulation": to_int("grad_accum"),
    "max_length": to_int("max_length"),
    "max_seq_length": to_int("max_length"),
    "max_seq_len": to_int("max_length"),
    "cutoff_len": to_int("max_length"),
    "sequence_len": to_int("max_length"),
    "block_size": to_int("max_length"),
    "model_max_length": to_int("max_length"),
    "seq_length": to_int("max_length"),
    "max_source_length": to_int("max_length"),
    "max_new_tokens": to_int("max_new_tokens"),
    "max_completion_length": to_int("max_new_tokens"),
    "num_beams": to_int("num_beams"),
    "gradient_checkpointing": to_bool("gradient_checkpointing"),
    # transformers 5 renamed it (gradient_checkpointing is its deprecated alias); the new name wins
    "activation_checkpointing": to_bool("gradient_checkpointing"),
    "activation_checkpointing_kwargs": lambda v: [],
    "gradient_checkpointing_kwargs": lambda v: [],
    "use_liger_kernel": lambda v: _liger(v, None),
    "liger_kernel_config": lambda v: [],
    "liger_fused_linear_cross_entropy": _fused_loss_on,
    "cut_cross_entropy": _fused_loss_on,
    "padding_free": _padding_free,
    "bnb_4bit_compute_dtype": _bnb_compute_dtype,
    "disable_gradient_checkpointing": to_bool("gradient_checkpointing", invert=True),
    "optim": _optimizer,
    "optimizer": _optimizer,
    "bf16": _flag_precision("bf16"),
    "fp16": _flag_precision("fp16"),
    "mixed_precision": _precision,
    "torch_dtype": _dtype,
    "dtype": _dtype,
    "attn_implementation": _attn,
    "_attn_implementation": _attn,
    "flash_attn": _attn,
    "flash_attention": _attn_flag("flash_attention_2"),
    "use_flash_attention_2": _attn_flag("flash_attention_2"),
    "sdp_attention": _attn_flag("sdpa"),
    "xformers_attention": _attn_flag("xformers"),
    "eager_attention": _attn_flag("eager"),
    "lora_r": to_int("lora_r"),
    "lora_rank": to_int("lora_r"),
    "target_modules": to_text("lora_target_modules"),
    "lora_target_modules": to_text("lora_target_modules"),
    "lora_target": _lora_target,
    "lora_target_linear": _target_linear,
    "modules_to_save": _modules_to_save,
    "lora_modules_to_save": _modules_to_save,
    "additional_target": _modules_to_save,
    "load_in_4bit": _quant_flag("4bit"),
    "load_in_8bit": _quant_flag("8bit"),
    "quantization_bit": _quant_bits,
    "quantization_config": _quant_config,
    "bnb_4bit_use_double_quant": _double_quant,
    "use_bnb_nested_quant": _double_quant,
    "double_quantization": _double_quant,
    "bnb_config_kwargs": _bnb_kwargs,
    "lora_dropout": _dropout,
    "use_peft": _use_peft,
    "finetuning_type": _finetuning_type,
    "sft_type": _finetuning_type,  # ms-swift before 3.0
    "train_type": _finetuning_type,  # ms-swift 3
    "adapter": _axolotl_adapter,
    "deepspeed": _deepspeed,
    "zero_optimization": _zero,
    "fsdp": _fsdp,
    "fsdp_config": _fsdp_config,
    "distributed_type": _distributed_type,
    "deepspeed_config": _accelerate_ds,
    "do_eval": to_bool("do_eval"),
    "eval_strategy": _eval_strategy,
    "evaluation_strategy": _eval_strategy,
    "val_set_size": _positive_means_eval,
    "val_size": _positive_means_eval,
    "per_device_eval_batch_size": to_int("eval_batch_size"),
    "eval_batch_size": to_int("eval_batch_size"),
    "eval_accumulation_steps": _eval_accumulation,
    "packing": to_bool("packing"),
    "sample_packing": to_bool("packing"),
    "neat_packing": lambda v: [("packing", True)] if _bool(v) else [],
    "group_by_length": to_bool("group_by_length"),
    "stage": _stage,
    "rl": _stage,
    "use_cache": _use_cache,
    "device_map": to_text("device_map"),
    "model_name_or_path": to_text("model_name"),
    "base_model": to_text("model_name"),
    "base_model_name_or_path": to_text("model_name"),
    "_name_or_path": to_text("model_name"),
    "resume_from_checkpoint": _resume,
    "padding": _padding,
    "pad_to_sequence_len": _pad_to_sequence_len,
    "truncation": to_bool("truncation"),
    "vocab_size": to_int("vocab_size"),
    "padded_vocab_size": to_int("vocab_size"),
    "hidden_size": to_int("hidden_size"),
    "n_embd": to_int("hidden_size"),
    "d_model": to_int("hidden_size"),
    "num_hidden_layers": to_int("num_layers"),
    "n_layer": to_int("num_layers"),
    "num_layers": to_int("num_layers"),
    "num_attention_heads": to_int("num_attention_heads"),
    "n_head": to_int("num_attention_heads"),
    "num_key_value_heads": to_int("num_kv_heads"),
    "multi_query_group_num": to_int("num_kv_heads"),
    "intermediate_size": to_int("intermediate_size"),
    "ffn_hidden_size": to_int("intermediate_size"),
    "n_inner": to_int("intermediate_size"),
    # a model config's expert count (Mixtral's num_local_experts, Qwen-MoE's and OLMoE's num_experts, DeepSeek's and
    # GLM-4.5's n_routed_experts): more than one is a mixture of experts
    "num_local_experts": _experts,
    "num_experts": _experts,
    "n_routed_experts": _experts,
    "precompute_ref_log_probs": lambda v: [("ref_model_separate", not _bool(v))] if _bool(v) is not None else [],
    "prediction_loss_only": lambda v: [],
}

#: Keys understood to have no bearing on memory (not listed back as unknown).
IRRELEVANT = frozenset(
    [
        "output_dir",
        "overwrite_output_dir",
        "do_train",
        "do_predict",
        "prediction_loss_only",
        "eval_delay",
        "learning_rate",
        "weight_decay",
        "adam_beta1",
        "adam_beta2",
        "adam_epsilon",
        "max_grad_norm",
        "num_train_epochs",
        "max_steps",
        "lr_scheduler_type",
        "lr_scheduler_kwargs",
        "warmup_ratio",
        "warmup_steps",
        "log_level",
        "log_level_replica",
        "log_on_each_node",
        "logging_dir",
        "logging_strategy",
        "logging_first_step",
        "logging_steps",
        "logging_nan_inf_filter",
        "save_strategy",
        "save_steps",
        "save_total_limit",
        "save_safetensors",
        "save_on_each_node",
        "save_only_model",
        "restore_callback_states_from_checkpoint",
        "no_cuda",
        "use_cpu",
        "use_mps_device",
        "seed",
        "data_seed",
        "jit_mode_eval",
        "use_ipex",
        "bf16_full_eval",
        "fp16_full_eval",
        "tf32",
        "local_rank",
        "ddp_backend",
        "tpu_num_cores",
        "tpu_metrics_debug",
        "debug",
        "dataloader_drop_last",
        "eval_steps",
        "dataloader_num_workers",
        "dataloader_prefetch_factor",
        "past_index",
        "run_name",
        "disable_tqdm",
        "remove_unused_columns",
        "label_names",
        "load_best_model_at_end",
        "metric_for_best_model",
        "greater_is_better",
        "ignore_data_skip",
        "accelerator_config",
        "label_smoothing_factor",
        "length_column_name",
        "report_to",
        "ddp_find_unused_parameters",
        "ddp_bucket_cap_mb",
        "ddp_broadcast_buffers",
        "dataloader_pin_memory",
        "dataloader_persistent_workers",
        "skip_memory_metrics",
        "use_legacy_prediction_loop",
        "push_to_hub",
        "hub_model_id",
        "hub_strategy",
        "hub_token",
        "hub_private_repo",
        "hub_always_push",
        "include_inputs_for_metrics",
        "include_for_metrics",
        "eval_do_concat_batches",
        "fp16_backend",
        "push_to_hub_model_id",
        "push_to_hub_organization",
        "push_to_hub_token",
        "mp_parameters",
        "auto_find_batch_size",
        "full_determinism",
        "torchdynamo",
        "ray_scope",
        "ddp_timeout",
        "torch_compile",
        "torch_compile_backend",
        "torch_compile_mode",
        "dispatch_batches",
        "split_batches",
        "include_tokens_per_second",
        "include_num_input_tokens_seen",
        "neftune_noise_alpha",
        "optim_target_modules",
        "batch_eval_metrics",
        "eval_on_start",
        "eval_use_gather_object",
        "average_tokens_across_devices",
        "fp16_opt_level",
        "half_precision_backend",
        "optim_args",
        "adafactor",
        "evaluation_steps",
        "sortish_sampler",
        "predict_with_generate",
        "generation_max_length",
        "generation_num_beams",
        "generation_config",
        "fsdp_min_num_params",
        "fsdp_transformer_layer_cls_to_wrap",
        "dataset_text_field",
        "dataset_kwargs",
        "dataset_num_proc",
        "dataset_batch_size",
        "chat_template_path",
        "eval_packing",
        "completion_only_loss",
        "assistant_only_loss",
        "beta",
        "label_pad_token_id",
        "padding_value",
        "truncation_mode",
        "max_prompt_length",
        "max_target_length",
        "is_encoder_decoder",
        "disable_dropout",
        "generate_during_eval",
        "loss_type",
        "rpo_alpha",
        "ref_model_init_kwargs",
        "model_adapter_name",
        "ref_adapter_name",
        "reference_free",
        "force_use_ref_model",
        "sync_ref_model",
        "ref_model_mixup_alpha",
        "ref_model_sync_steps",
        "use_weighting",
        "num_generations",
        "temperature",
        "top_p",
        "top_k",
        "epsilon",
        "scale_rewards",
        "log_completions",
        "base_model_config",
        "model_type",
        "tokenizer_type",
        "tokenizer_config",
        "trust_remote_code",
        "is_llama_derived_model",
        "strict",
        "datasets",
        "dataset_prepared_path",
        "chat_template",
        "train_on_inputs",
        "special_tokens",
        "tokens",
        "lora_alpha",
        "lora_fan_in_fan_out",
        "peft_use_dora",
        "peft_use_rslora",
        "wandb_project",
        "wandb_entity",
        "wandb_watch",
        "wandb_name",
        "wandb_run_id",
        "wandb_log_model",
        "num_epochs",
        "lr_scheduler",
        "evals_per_epoch",
        "saves_per_epoch",
        "eval_table_size",
        "eval_max_new_tokens",
        "early_stopping_patience",
        "xformers",
        "logging_steps",
        "warmup",
        "hub_model_id",
        "flash_attn_cross_entropy",
        "flash_attn_rms_norm",
        "flash_attn_fuse_qkv",
        "flash_attn_fuse_mlp",
        "eval_sample_packing",
        "sample_packing_eff_est",
        "total_num_tokens",
        "shuffle_merged_datasets",
        "default_system_message",
        "fix_untrained_tokens",
        "unfrozen_parameters",
        "plugins",
        "liger_rope",
        "liger_rms_norm",
        "liger_glu_activation",
        "loss_watchdog_threshold",
        "loss_watchdog_patience",
        "model_name_or_path",
        "template",
        "dataset",
        "dataset_dir",
        "max_samples",
        "overwrite_cache",
        "preprocessing_num_workers",
        "plot_loss",
        "pref_beta",
        "pref_loss",
        "pref_ftx",
        "use_unsloth",
        "upcast_layernorm",
        "resize_vocab",
        "report_to",
        "new_special_tokens",
        "enable_thinking",
        "image_max_pixels",
        "video_max_pixels",
        "use_dora",
        "pissa_init",
        "create_new_adapter",
        "export_dir",
        "export_size",
        "export_legacy_format",
        "infer_backend",
        "quantization_method",
        "quantization_type",
        "shift_attn",
        "rope_scaling",
        "mask_history",
        "train_on_prompt",
        "streaming",
        "buffer_size",
        "mix_strategy",
        "interleave_probs",
        "tokenized_path",
        "ddp_timeout",
        "steps_per_print",
        "gradient_clipping",
        "wall_clock_breakdown",
        "zero_allow_untested_optimizer",
        "scheduler",
        "train_batch_size",
        "prescale_gradients",
        "communication_data_type",
        "amp",
        "aio",
        "compute_environment",
        "debug",
        "machine_rank",
        "main_training_function",
        "num_machines",
        "num_processes",
        "rdzv_backend",
        "same_network",
        "tpu_env",
        "tpu_use_cluster",
        "tpu_use_sudo",
        "use_cpu",
        "downcast_bf16",
        "gpu_ids",
        "enable_cpu_affinity",
        "dynamo_config",
        "main_process_ip",
        "main_process_port",
        "megatron_lm_config",
        "ipex_config",
        "mpirun_config",
        "peft_type",
        "task_type",
        "inference_mode",
        "r",
        "lora_alpha",
        "fan_in_fan_out",
        "bias",
        "init_lora_weights",
        "layers_to_transform",
        "layers_pattern",
        "rank_pattern",
        "alpha_pattern",
        "revision",
        "use_rslora",
        "use_dora",
        "megatron_config",
        "megatron_core",
        "loftq_config",
        "layer_replication",
        "auto_mapping",
        "runtime_config",
        "lora_bias",
        "exclude_modules",
        "eva_config",
        "corda_config",
        "trainable_token_indices",
        "target_parameters",
        "architectures",
        "model_type",
        "bos_token_id",
        "eos_token_id",
        "pad_token_id",
        "hidden_act",
        "initializer_range",
        "max_position_embeddings",
        "rms_norm_eps",
        "layer_norm_eps",
        "layer_norm_epsilon",
        "rope_theta",
        "rope_scaling",
        "tie_word_embeddings",
        "transformers_version",
        "attention_bias",
        "attention_dropout",
        "mlp_bias",
        "pretraining_tp",
        "head_dim",
        "sliding_window",
        "max_window_layers",
        "use_sliding_window",
        "bos_token",
        "eos_token",
        "id2label",
        "label2id",
        "num_experts",
        "num_experts_per_tok",
        "num_local_experts",
        "router_aux_loss_coef",
        "output_router_logits",
        "partial_rotary_factor",
        "resid_pdrop",
        "embd_pdrop",
        "attn_pdrop",
        "activation_function",
        "n_positions",
        "n_ctx",
        "auto_map",
        "qkv_bias",
        "rope_ratio",
        "kv_channels",
        "layernorm_epsilon",
        "torchscript",
        "use_return_dict",
        "output_hidden_states",
        # transformers 5.x TrainingArguments: logging, hub, data loading order, the SIGTERM checkpoint
        "project",
        "trackio_space_id",
        "trackio_bucket_id",
        "trackio_static_space_id",
        "enable_jit_checkpoint",
        "hub_revision",
        "dataloader_multiprocessing_context",
        "dataloader_in_order",
        "train_sampling_strategy",
        "ddp_static_graph",
        # TRL SFTConfig / ModelConfig
        "shuffle_dataset",
        "packing_strategy",
        "pad_to_multiple_of",
        "pad_token",
        "model_revision",
        "lora_task_type",
        "lora_target_parameters",
        "bnb_4bit_quant_type",
        "bnb_4bit_quant_storage",
        # TRL ScriptArguments (the dataset of `trl sft --config`)
        "dataset_name",
        "dataset_config",
        "dataset_train_split",
        "dataset_test_split",
        "dataset_streaming",
        "ignore_bias_buffers",
        # peft 0.21 LoraConfig: its version, initialisation methods, adapter variants' settings while unused
        "peft_version",
        "lora_ga_config",
        "qalora_group_size",
        "ensure_weight_tying",
        "alora_invocation_tokens",
        # a model's config.json (transformers 5.x): rotary settings, attention kinds per layer, read as the
        # architecture by the estimator (hidden_activation) or without bearing on memory
        "rope_parameters",
        "layer_types",
        "hidden_activation",
        "qk_layernorm",
        "original_max_position_embeddings",
        "use_bidirectional_attention",
    ]
)

#: Keys that say nothing when null (what every TrainingArguments dump writes) and that no fact holds when set:
#: then they are listed back as not understood. ``torch_empty_cache_steps`` (transformers >= 4.43) is the
#: empty-cache remedy already applied, which no fact says yet.
UNREAD_WHEN_SET = frozenset({"torch_empty_cache_steps"})

#: Keys that change nothing when unset (null/false) and something the estimate does not model when set:
#: key -> what to say when set.
UNMODELLED_WHEN_SET = {
    "activation_offloading": "TRL moves the saved activations to host memory; the estimate keeps them on the GPU, "
    "so it is high",
    "parallelism_config": "accelerate's tensor/context parallelism is not modelled; the estimate is per GPU without it",
    **{
        key: "a LoRA variant the estimate does not model; it sizes plain LoRA"
        for key in ("use_qalora", "velora_config", "monteclora_config", "use_bdlora", "arrow_config", "kasa_config")
    },
}


@dataclass(frozen=True)
class ConfigReading:
    """What a config said: its kind, the facts, and the keys nobody here understands."""

    kind: str
    found: list[Found] = field(default_factory=list)
    unknown_keys: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


#: Deeper than this is not a config anyone writes (DeepSpeed's nest 3 or 4 levels).
MAX_DEPTH = 64
#: More values than this, counting every use of a YAML alias, is not a config either.
MAX_VALUES = 200_000


class ConfigShapeError(IngestError):
    """A config that parses but is too deep, too big once aliases expand, or contains itself."""


def _check_shape(data: Any, path: str) -> None:
    """Refuse data nested too deeply, expanding to too many values (YAML aliases), or containing itself.

    Iterative, and each distinct container is visited once, so a billion-laughs file or a
    10,000-deep list costs time linear in what was parsed, not in what it expands to.
    """
    if not isinstance(data, (dict, list)):
        return
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(data, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        children = list(node.keys()) + list(node.values()) if isinstance(node, dict) else node
        if done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes.get(id(c), 1) for c in children if isinstance(c, (dict, list)))
            sizes[key] += sum(1 for c in children if not isinstance(c, (dict, list)))
            if sizes[key] > MAX_VALUES:
                raise ConfigShapeError(f"{path}: expands to more than {MAX_VALUES:,} values; that is not a config file")
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise ConfigShapeError(
                f"{path}: a value contains itself (a recursive YAML alias); that is not a config file"
            )
        if depth > MAX_DEPTH:
            raise ConfigShapeError(f"{path}: nested more than {MAX_DEPTH} levels deep; that is not a config file")
        on_path.add(key)
        stack.append((node, depth, True))
        for child in children:
            if isinstance(child, (dict, list)):
                if id(child) in on_path:
                    raise ConfigShapeError(
                        f"{path}: a value contains itself (a recursive YAML alias); that is not a config file"
                    )
                stack.append((child, depth + 1, False))


_QUOTED = re.compile(r"\"(?:[^\"\\\n]++|\\.)*+\"?|'[^'\n]*+'?")
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_OPENERS = re.compile(rf"[\[{{]{{{MAX_DEPTH + 1}}}")
_STEP = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")  # +1 and -1 as signed bytes


def _too_deep(text: str) -> bool:
    """Whether brackets outside quoted strings nest more than MAX_DEPTH levels, in linear time.

    Checked before YAML parsing, because PyYAML's scanner slows down with every open flow
    level (10,000 levels: seconds) and both parsers recurse. Quoted strings end at the line's
    end here, so an apostrophe inside a plain YAML value hides at most the rest of its line.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    brackets = _NOT_BRACKET.sub("", _QUOTED.sub("", text))
    if _OPENERS.search(brackets):
        return True
    steps = array("b", brackets.encode("ascii").translate(_STEP))
    return max(accumulate(steps), default=0) > MAX_DEPTH


def parse_config_text(text: str, path: str = "config") -> Any:
    """JSON or YAML (safe loader) -> data; bad syntax, too deep or too big -> :class:`IngestError` in one line."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        raise IngestError(f"{path} is empty")
    json_error = ""
    try:
        if stripped[0] in "{[":
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError as exc:
                json_error = f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})"
            else:
                _check_shape(data, path)
                return data
        if _too_deep(stripped):
            raise ConfigShapeError(f"{path}: nested more than {MAX_DEPTH} levels deep; that is not a config file")
        try:
            data = yaml.safe_load(stripped)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" line {mark.line + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or "syntax error"
            raise IngestError(json_error or f"{path}: not valid YAML ({problem}{where})") from None
    except RecursionError:
        raise ConfigShapeError(f"{path}: nested more than {MAX_DEPTH} levels deep; that is not a config file") from None
    _check_shape(data, path)
    return data


def detect_kind(data: Mapping[str, Any]) -> str:
    """Which kind of config a mapping is."""
    keys = {str(k).lower() for k in data}
    if "peft_type" in keys or {"r", "target_modules"} <= keys:
        return "peft_adapter"
    if "architectures" in keys or ("model_type" in keys and keys & {"hidden_size", "num_hidden_layers", "n_layer"}):
        return "model_config"
    if keys & {"zero_optimization", "train_micro_batch_size_per_gpu"}:
        return "deepspeed"
    if keys & {"compute_environment", "distributed_type"} and "output_dir" not in keys:
        return "accelerate"
    if keys & {"finetuning_type", "cutoff_len"} or ("stage" in keys and "template" in keys):
        return "llama_factory"
    if keys & {"micro_batch_size", "sequence_len", "sample_packing", "lora_target_linear"} or (
        "base_model" in keys and keys & {"datasets", "adapter"}
    ):
        return "axolotl"
    if keys & {"dataset_text_field", "max_seq_length", "packing", "max_prompt_length", "num_generations", "beta"} or (
        keys & {"use_peft", "use_bnb_nested_quant", "model_init_kwargs"}
    ):
        return "trl"
    if keys & {"per_device_train_batch_size", "output_dir", "gradient_accumulation_steps"}:
        return "training_args"
    return "generic"


_TRL_TYPES = (
    ("num_generations", "grpo"), ("max_prompt_length", "dpo"), ("beta", "dpo"),
    ("dataset_text_field", "sft"), ("packing", "sft"), ("max_seq_length", "sft"),
)  # fmt: skip
_FRAMEWORKS = {
    "axolotl": "axolotl",
    "llama_factory": "llama_factory",
    "trl": "trl",
    "training_args": "hf_trainer",
    "deepspeed": "deepspeed",
}


def locate(lines: Sequence[str], path: Sequence[str]) -> int | None:
    """The 1-based line where the key path is written (each key searched after the previous)."""
    start = 0
    found = None
    for key in path:
        pattern = re.compile(r"(?:^|[\s{,\-])[\"']?" + re.escape(key) + r"[\"']?\s*[:=]")
        for i in range(start, len(lines)):
            if pattern.search(lines[i]):
                found, start = i + 1, i + 1
                break
        else:
            return found
    return found


#: Keys whose value is a mapping of further keys read with the same rules: TRL's
#: ``model_init_kwargs`` (the ``from_pretrained`` keyword arguments of SFTConfig, DPOConfig, ...:
#: ``torch_dtype``/``dtype``, ``attn_implementation``, ``quantization_config``, ``device_map``).
NESTED = frozenset({"model_init_kwargs"})
#: ``from_pretrained`` arguments with no bearing on memory.
NESTED_IRRELEVANT = frozenset({"trust_remote_code", "revision", "low_cpu_mem_usage", "cache_dir", "token"})


def _apply_rule(key_path: Sequence[str], value: Any, emit: Callable[..., None], notes: list[str], path: str) -> bool:
    """Turn one key into facts with its rule; False when no rule knows the key."""
    key = key_path[-1]
    rule = RULES.get(key.lower())
    if rule is None:
        return False
    try:
        pairs = rule(value)
    except (TypeError, ValueError, AttributeError):
        pairs = []
    emit(pairs, key_path, value)
    if isinstance(value, str) and value.strip().lower() == "auto" and not pairs:
        notes.append(f"{path}: {'.'.join(key_path)} is 'auto'; its value is decided at run time")
    return True


def _key_named(data: Mapping[str, Any], name: str) -> str:
    """The key of ``data`` that is ``name`` compared lower-cased (``name`` itself when absent)."""
    return next((str(k) for k in data if str(k).lower() == name), name)


def read_config(text: str, path: str = "config") -> ConfigReading:
    """Facts and unknown keys of a config file's text."""
    data = parse_config_text(text, path)
    if not isinstance(data, Mapping):
        raise IngestError(f"{path}: a config must be a mapping of keys to values, not a {type(data).__name__}")
    kind = detect_kind(data)
    lines = text.splitlines()
    found: list[Found] = []
    unknown: list[str] = []
    notes: list[str] = []
    seen: set[str] = set()

    def emit(pairs: Pairs, key_path: Sequence[str], raw: Any, note: str | None = None) -> None:
        line = locate(lines, key_path)
        said = lines[line - 1] if line else f"{'.'.join(key_path)}: {raw}"
        for name, value in pairs:
            if name in seen and name != "offload":
                continue
            seen.add(name)
            found.append(Found(name, value, line, excerpt(said), note))

    for raw_key, value in data.items():
        key = str(raw_key)
        low = key.lower()
        if kind == "peft_adapter" and low == "r":
            emit(to_int("lora_r")(value), [key], value)
            continue
        if kind == "model_config" and low in ("max_length", "use_cache", "torch_dtype"):
            if low == "torch_dtype":
                emit(_dtype(value), [key], value)
            continue  # a model's defaults, not how it was trained
        if kind == "deepspeed" and low in ("bf16", "fp16", "optimizer", "train_batch_size"):
            if low != "train_batch_size":
                emit(RULES[low](value), [key], value)
            continue
        if low == "batch_size" and any(str(k).lower() in PER_DEVICE_BATCH_KEYS for k in data):
            continue  # the global batch beside a per-device one
        if low == "gradient_checkpointing" and data.get(_key_named(data, "activation_checkpointing")) is not None:
            continue  # the deprecated alias: TrainingArguments.__post_init__ uses it only when the new name is unset
        if low == "use_liger_kernel":
            emit(_liger(value, data.get(_key_named(data, "liger_kernel_config"))), [key], value)
            continue
        if low in ("activation_checkpointing_kwargs", "gradient_checkpointing_kwargs"):
            newer = data.get(_key_named(data, "activation_checkpointing_kwargs"))
            if low == "activation_checkpointing_kwargs" or newer is None:
                notes += [f"{path}: {note}" for note in _checkpointing_kwargs_notes(key, value)]
            continue
        if low in UNREAD_WHEN_SET and value is None:
            continue
        if low in UNMODELLED_WHEN_SET:
            if _is_set(value):
                notes.append(f"{path}: {key}={json.dumps(value, default=str)}: {UNMODELLED_WHEN_SET[low]}")
            continue
        if low in NESTED and value is None:
            continue  # model_init_kwargs: null (TRL's default): from_pretrained's own defaults
        if low in NESTED and isinstance(value, Mapping):
            for sub_key, sub_value in value.items():
                said = _apply_rule([key, str(sub_key)], sub_value, emit, notes, path)
                if not said and str(sub_key).lower() not in IRRELEVANT | NESTED_IRRELEVANT:
                    unknown.append(f"{key}.{sub_key}")
            continue
        if not _apply_rule([key], value, emit, notes, path) and low not in IRRELEVANT:
            unknown.append(key)

    defaults = _kind_defaults(kind, data, lines, seen)
    overridden = {f.name for f in defaults}
    found = [f for f in found if f.name not in overridden] + defaults
    if kind == "trl":
        notes += [f"{path}: {note}" for note in _trl_default_notes(data, seen | overridden)]
    if kind in _FRAMEWORKS and "framework" not in seen:
        found.append(Found("framework", _FRAMEWORKS[kind], None, None, f"the file reads as a {kind} config"))
    return ConfigReading(kind, found, unknown, notes)


def _trl_default_notes(data: Mapping[str, Any], said: set[str]) -> list[str]:
    """What a TRL config leaves to TRL defaults that changed between releases (no TRL version is read here).

    Every TRL trainer config defaults ``gradient_checkpointing`` to True from TRL 0.22.0 (False before,
    the TrainingArguments default), and ``bf16`` to True unless ``fp16`` is set from TRL 0.19.0 (read in
    trl/trainer/*_config.py at the tags v0.18.0 to v0.22.0).
    """
    keys = {str(k).lower() for k in data}
    notes = []
    if "gradient_checkpointing" not in said and not keys & {"gradient_checkpointing", "activation_checkpointing"}:
        notes.append(
            "gradient_checkpointing is not set: TRL turns it on by default from TRL 0.22.0 (off before); say which "
            "with --gradient-checkpointing or --no-gradient-checkpointing"
        )
    if "mixed_precision" not in said and not keys & {"bf16", "fp16"}:
        notes.append(
            "bf16 is not set: TRL trains in bf16 mixed precision by default from TRL 0.19.0 unless fp16 is set "
            "(no autocast before); say which with --bf16 or --fact mixed_precision=no"
        )
    return notes


def _kind_defaults(kind: str, data: Mapping[str, Any], lines: Sequence[str], seen: set[str]) -> list[Found]:
    """Facts implied by a framework's defaults when the config leaves a key out."""
    out: list[Found] = []
    keys = {str(k).lower() for k in data}
    if kind == "llama_factory":
        if "gradient_checkpointing" not in seen:
            out.append(
                Found(
                    "gradient_checkpointing",
                    True,
                    None,
                    None,
                    "LLaMA-Factory turns gradient checkpointing on unless disable_gradient_checkpointing",
                )
            )
        bits = _int(data.get("quantization_bit"))
        if str(data.get("finetuning_type", "lora")).lower() == "lora" and bits in (4, 8):
            out.append(
                Found(
                    "finetune_method", "qlora", locate(lines, ["quantization_bit"]), None, "LoRA over a quantized model"
                )
            )
        elif "finetune_method" not in seen and "finetuning_type" not in keys:
            out.append(Found("finetune_method", "lora", None, None, "LLaMA-Factory's default finetuning_type"))
        if bits == 4 and "double_quant" not in seen:
            # ModelArguments.double_quantization defaults to True (src/llamafactory/hparams/model_args.py)
            out.append(
                Found("double_quant", True, None, None, "LLaMA-Factory's default double_quantization=True for 4-bit")
            )
    if kind == "axolotl":
        if "adapter" not in keys and "finetune_method" not in seen:
            out.append(Found("finetune_method", "full", None, None, "axolotl config without an adapter"))
        if str(data.get("adapter", "")).lower() == "lora" and (_bool(data.get("load_in_4bit"))):
            out.append(
                Found("finetune_method", "qlora", locate(lines, ["load_in_4bit"]), None, "LoRA with load_in_4bit")
            )
        four_bit = str(data.get("adapter", "")).lower() == "qlora" or _bool(data.get("load_in_4bit"))
        if four_bit and "double_quant" not in seen:
            # axolotl's QLoRA BitsAndBytesConfig sets bnb_4bit_use_double_quant=True unless
            # bnb_config_kwargs overrides it (src/axolotl/loaders/model.py)
            out.append(Found("double_quant", True, None, None, "axolotl's QLoRA config uses double quantization"))
    if kind == "trl" and _bool(data.get("use_peft")):
        # use_peft exists only in TRL's ModelConfig, whose get_peft_config builds the LoraConfig from lora_r=16 and
        # lora_dropout=0.05 unless set (trl/trainer/model_config.py, the same from v0.8.0 to v1.9.0)
        for fact, value in (("lora_r", 16), ("lora_dropout", 0.05)):
            if fact not in seen:
                out.append(Found(fact, value, None, None, f"TRL ModelConfig's default {fact}={value} (use_peft)"))
    if kind == "trl" and _bool(data.get("use_peft")) and _bool(data.get("load_in_4bit")):
        # TRL's ModelConfig: LoRA (use_peft) over a base loaded by get_quantization_config in 4-bit
        out.append(
            Found("finetune_method", "qlora", locate(lines, ["load_in_4bit"]), None, "use_peft with load_in_4bit")
        )
    if kind == "trl" and "trainer_type" not in seen:
        for key, trainer in _TRL_TYPES:
            if key in keys:
                out.append(Found("trainer_type", trainer, locate(lines, [key]), None, f"a TRL config with {key}"))
                break
    if kind in ("training_args", "trl", "llama_factory", "axolotl") and "mixed_precision" not in seen:
        flags = [str(data.get(k)).lower() for k in ("bf16", "fp16") if k in data]
        if len(flags) == 2 and all(f in ("false", "0") for f in flags):
            out.append(Found("mixed_precision", "no", locate(lines, ["bf16"]), None, "bf16 and fp16 both false"))
    return out
