"""Shared pieces for the measurement-oracle tests: the tiny Llama of exact-measurement.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

#: hidden 256, intermediate 688, 4 layers, 8 heads, vocab 1000 (the study's faithfulness model).
TINY_LLAMA = {
    "model_type": "llama",
    "hidden_size": 256,
    "intermediate_size": 688,
    "num_hidden_layers": 4,
    "num_attention_heads": 8,
    "num_key_value_heads": 8,
    "vocab_size": 1000,
    "max_position_embeddings": 512,
    "torch_dtype": "bfloat16",
}


@pytest.fixture
def tiny_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    return path
