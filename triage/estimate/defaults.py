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


DEFAULTS: Mapping[str, Default] = {
    d.fact: d
    for d in (
        Default("quantization", "none", "the base model is loaded unquantized unless a BitsAndBytesConfig says so"),
        Default("finetune_method", "lora", "not given; most fine-tuning on one GPU is LoRA"),
        Default("double_quant", False, "BitsAndBytesConfig default bnb_4bit_use_double_quant=False"),
        Default("lora_r", 8, "peft LoraConfig default r=8"),
        Default("lora_dropout", 0.0, "peft LoraConfig default lora_dropout=0.0"),
        Default("batch_size", 8, "HF TrainingArguments default per_device_train_batch_size=8"),
        Default("grad_accum", 1, "HF TrainingArguments default gradient_accumulation_steps=1"),
        Default("max_length", 1024, "not given; TRL SFTConfig's default max_length"),
        Default("packing", False, "TRL SFTConfig default packing=False"),
        Default("truncation", True, "tokenizers truncate to max_length in the usual recipes"),
        Default("gradient_checkpointing", False, "HF TrainingArguments default"),
        Default("eval_batch_size", 8, "HF TrainingArguments default per_device_eval_batch_size=8"),
        Default("compute_metrics", False, "HF Trainer computes no metrics unless compute_metrics is given"),
        Default("preprocess_logits", False, "HF Trainer default preprocess_logits_for_metrics=None"),
        Default("eval_samples", 1000, "evaluation set size unknown; the accumulated logits grow with it"),
        Default("max_new_tokens", 256, "not given"),
        Default("num_beams", 1, "GenerationConfig default num_beams=1"),
        Default("distributed", "none", "one process on one GPU"),
        Default("gpu_count", 2, "multi-GPU run with the GPU count not given"),
        Default("offload", False, "nothing is offloaded unless DeepSpeed/FSDP are told to"),
        Default("expandable_segments", False, "PYTORCH_CUDA_ALLOC_CONF default"),
        Default("other_process_bytes", 0, "no other process on the GPU"),
        Default("fused_loss", False, "HF's ForCausalLMLoss upcasts the full logits"),
        Default("optimizer_in_backward", False, "HF Trainer steps the optimizer after backward"),
        Default("vocab_size", 32000, "not given; Llama-2's vocabulary"),
    )
}


def default(fact: str) -> Any:
    """The default value of ``fact`` (KeyError for a fact without one)."""
    return DEFAULTS[fact].value


def given_or_default(values: Mapping[str, Any], fact: str) -> Any:
    """The value the facts give for ``fact``, else its default."""
    return values.get(fact, DEFAULTS[fact].value)
