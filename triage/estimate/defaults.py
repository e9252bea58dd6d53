"""The estimator's defaults: the value a fact takes when the facts do not give it, and where it comes from.

One table, read by :func:`triage.estimate.run.run_from_facts` (which records the defaults it
takes as assumptions, with these reasons) and by :func:`triage.estimate.changes.apply_changes`
(which halves or rescales a value the facts did not give from the same default). Defaults that
depend on other facts (the fine-tuning method, the dtype, checkpointing, attention, the
optimizer, the ZeRO stage) are decided by the readers in run.py; their unconditional fallback
is here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Default:
    """The value a fact takes when it is not given."""

    fact: str
    value: Any
    reason: str
    """Where the value comes from (the reason an assumption states)."""
    reason_zh: str
    """The same in Chinese."""


DEFAULTS: Mapping[str, Default] = {
    d.fact: d
    for d in (
        Default(
            "quantization",
            "none",
            "the base model is loaded unquantized unless a BitsAndBytesConfig says so",
            "除非 BitsAndBytesConfig 另有设置，基座模型不量化加载",
        ),
        Default(
            "finetune_method",
            "lora",
            "not given; most fine-tuning on one GPU is LoRA",
            "未给出；单卡上的微调大多是 LoRA",
        ),
        Default(
            "double_quant",
            False,
            "BitsAndBytesConfig default bnb_4bit_use_double_quant=False",
            "BitsAndBytesConfig 默认 bnb_4bit_use_double_quant=False",
        ),
        Default("lora_r", 8, "peft LoraConfig default r=8", "peft LoraConfig 默认 r=8"),
        Default(
            "lora_dropout", 0.0, "peft LoraConfig default lora_dropout=0.0", "peft LoraConfig 默认 lora_dropout=0.0"
        ),
        Default(
            "batch_size",
            8,
            "HF TrainingArguments default per_device_train_batch_size=8",
            "HF TrainingArguments 默认 per_device_train_batch_size=8",
        ),
        Default(
            "grad_accum",
            1,
            "HF TrainingArguments default gradient_accumulation_steps=1",
            "HF TrainingArguments 默认 gradient_accumulation_steps=1",
        ),
        Default(
            "max_length",
            1024,
            "not given; TRL SFTConfig's default max_length",
            "未给出；TRL SFTConfig 的默认 max_length",
        ),
        Default("packing", False, "TRL SFTConfig default packing=False", "TRL SFTConfig 默认 packing=False"),
        Default(
            "truncation",
            True,
            "tokenizers truncate to max_length in the usual recipes",
            "常见流程中分词器会截断到 max_length",
        ),
        Default("gradient_checkpointing", False, "HF TrainingArguments default", "HF TrainingArguments 的默认值"),
        Default(
            "eval_batch_size",
            8,
            "HF TrainingArguments default per_device_eval_batch_size=8",
            "HF TrainingArguments 默认 per_device_eval_batch_size=8",
        ),
        Default(
            "compute_metrics",
            False,
            "HF Trainer computes no metrics unless compute_metrics is given",
            "不给 compute_metrics 时 HF Trainer 不计算指标",
        ),
        Default(
            "preprocess_logits",
            False,
            "HF Trainer default preprocess_logits_for_metrics=None",
            "HF Trainer 默认 preprocess_logits_for_metrics=None",
        ),
        Default(
            "eval_samples",
            1000,
            "evaluation set size unknown; the accumulated logits grow with it",
            "评估集大小未知；累积的 logits 随它增长",
        ),
        Default("max_new_tokens", 256, "not given", "未给出"),
        Default("num_beams", 1, "GenerationConfig default num_beams=1", "GenerationConfig 默认 num_beams=1"),
        Default("distributed", "none", "one process on one GPU", "单卡单进程"),
        Default(
            "gpu_count",
            2,
            "multi-GPU run with the GPU count not given: sized on 2 GPUs (say --fact gpu_count=N)",
            "多卡训练但没有给出显卡数量：按 2 张卡估算（请用 --fact gpu_count=N 说明）",
        ),
        Default(
            "offload",
            False,
            "nothing is offloaded unless DeepSpeed/FSDP are told to",
            "除非 DeepSpeed/FSDP 明确配置，不做 offload",
        ),
        Default("expandable_segments", False, "PYTORCH_CUDA_ALLOC_CONF default", "PYTORCH_CUDA_ALLOC_CONF 的默认值"),
        Default("other_process_bytes", 0, "no other process on the GPU", "显卡上没有其他进程"),
        Default(
            "fused_loss",
            False,
            "HF's ForCausalLMLoss upcasts the full logits",
            "HF 的 ForCausalLMLoss 会把完整的 logits 转成 fp32",
        ),
        Default(
            "optimizer_in_backward",
            False,
            "HF Trainer steps the optimizer after backward",
            "HF Trainer 在 backward 之后才执行优化器更新",
        ),
        Default("vocab_size", 32000, "not given; Llama-2's vocabulary", "未给出；Llama-2 的词表大小"),
    )
}


def default(fact: str) -> Any:
    """The default value of ``fact`` (KeyError for a fact without one)."""
    return DEFAULTS[fact].value


def given_or_default(values: Mapping[str, Any], fact: str) -> Any:
    """The value the facts give for ``fact``, else its default."""
    return values.get(fact, DEFAULTS[fact].value)
