from typing import Any

from triage.estimate import Run, run_from_facts
from triage.estimate.components.context import Context, context

#: LLaMA-7B LoRA r=8 on q,v in bf16, batch 1 x 2048, fused AdamW, transformers 5 (SDPA): the
#: seed-claims run, with every setting the components read given.
BASE: dict[str, Any] = {
    "model_name": "llama-7b",
    "torch_dtype": "bf16",
    "finetune_method": "lora",
    "lora_r": 8,
    "lora_target_modules": "q_proj,v_proj",
    "batch_size": 1,
    "max_length": 2048,
    "optimizer": "adamw_torch_fused",
    "gradient_checkpointing": False,
    "transformers_version": "5.0.0",
}


def run_of(**facts: Any) -> Run:
    """The run of BASE with ``facts`` changed."""
    return run_from_facts(dict(BASE, **facts))


def context_of(**facts: Any) -> Context:
    return context(run_of(**facts))
