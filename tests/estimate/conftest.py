from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "estimate"

#: The issue's scenario: LLaMA-7B LoRA on a 3090, max_length 2048, batch 4, no gradient checkpointing
#: (transformers 4.31: eager attention, the seed-claims setup).
SCENARIO = {
    "model_name": "LLaMA-7B",
    "finetune_method": "lora",
    "lora_r": 8,
    "lora_target_modules": "q_proj,v_proj",
    "gpu_name": "NVIDIA GeForce RTX 3090",
    "max_length": 2048,
    "batch_size": 4,
    "gradient_checkpointing": False,
    "torch_dtype": "bf16",
    "transformers_version": "4.31.0",
}


@pytest.fixture
def scenario() -> dict[str, object]:
    return dict(SCENARIO)
