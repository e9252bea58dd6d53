"""Shared pieces for the measurement-oracle tests: the tiny Llama of exact-measurement.md."""

from __future__ import annotations

import json
from pathlib import Path

import builders
import pytest

#: as config.json writes it: the tiny Llama plus its dtype
TINY_LLAMA = {**builders.TINY_LLAMA, "torch_dtype": "bfloat16"}


@pytest.fixture
def tiny_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    return path
