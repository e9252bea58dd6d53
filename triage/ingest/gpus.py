"""A small catalogue of the GPUs people fine-tune on: memory and compute capability by model.

Used to turn "3090" or "RTX 4090" in free text or a GPU name from an
environment report into gpu_memory_bytes and compute_capability. Models sold
with several memory sizes (A100 40/80 GB, V100 16/32 GB...) give no memory
unless the text states it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GiB = 1024**3


@dataclass(frozen=True)
class GpuModel:
    """One GPU model: a canonical name, memory sizes sold (GiB) and compute capability."""

    name: str
    memory_gib: tuple[int, ...]
    capability: float | None


#: (pattern matched against a lower-cased name, model); the first match wins, so longer names come first.
CATALOGUE: tuple[tuple[re.Pattern[str], GpuModel], ...] = tuple(
    (re.compile(pattern, re.ASCII), GpuModel(name, memory, cc))
    for pattern, name, memory, cc in (
        (r"\b4090\s*d\b", "RTX 4090 D", (24,), 8.9),
        (r"\b4090\b", "RTX 4090", (24,), 8.9),
        (r"\b4080\s*(?:super|s)\b", "RTX 4080 SUPER", (16,), 8.9),
        (r"\b4080\b", "RTX 4080", (16,), 8.9),
        (r"\b4070\s*ti\s*(?:super|s)\b", "RTX 4070 Ti SUPER", (16,), 8.9),
        (r"\b4070\b", "RTX 4070", (12,), 8.9),
        (r"\b4060\s*ti\b", "RTX 4060 Ti", (8, 16), 8.9),
        (r"\b4060\b", "RTX 4060", (8,), 8.9),
        (r"\b5090\b", "RTX 5090", (32,), 12.0),
        (r"\b5080\b", "RTX 5080", (16,), 12.0),
        (r"\b3090\s*ti\b", "RTX 3090 Ti", (24,), 8.6),
        (r"\b3090\b", "RTX 3090", (24,), 8.6),
        (r"\b3080\s*ti\b", "RTX 3080 Ti", (12,), 8.6),
        (r"\b3080\b", "RTX 3080", (10, 12), 8.6),
        (r"\b3070\b", "RTX 3070", (8,), 8.6),
        (r"\b3060\s*ti\b", "RTX 3060 Ti", (8,), 8.6),
        (r"\b3060\b", "RTX 3060", (12,), 8.6),
        (r"\b2080\s*ti\b", "RTX 2080 Ti", (11,), 7.5),
        (r"\b2080\b", "RTX 2080", (8,), 7.5),
        (r"\b2070\b", "RTX 2070", (8,), 7.5),
        (r"\b1080\s*ti\b", "GTX 1080 Ti", (11,), 6.1),
        (r"\btitan\s*rtx\b", "TITAN RTX", (24,), 7.5),
        (r"\ba100\b", "A100", (40, 80), 8.0),
        (r"\ba800\b", "A800", (40, 80), 8.0),
        (r"\bh100\b", "H100", (80, 94), 9.0),
        (r"\bh800\b", "H800", (80,), 9.0),
        (r"\bh200\b", "H200", (141,), 9.0),
        (r"\bh20\b", "H20", (96,), 9.0),
        (r"\bl40s\b", "L40S", (48,), 8.9),
        (r"\bl40\b", "L40", (48,), 8.9),
        (r"\bl20\b", "L20", (48,), 8.9),
        (r"\bl4\b", "L4", (24,), 8.9),
        (r"\ba10g\b", "A10G", (24,), 8.6),
        (r"\ba10\b", "A10", (24,), 8.6),
        (r"\ba40\b", "A40", (48,), 8.6),
        (r"\ba30\b", "A30", (24,), 8.0),
        (r"\ba6000\b|rtx\s*6000\s*ada", "RTX A6000", (48,), 8.6),
        (r"\ba5000\b", "RTX A5000", (24,), 8.6),
        (r"\ba4000\b", "RTX A4000", (16,), 8.6),
        (r"\bv100\b", "V100", (16, 32), 7.0),
        (r"\bt4\b", "T4", (16,), 7.5),
        (r"\bp100\b", "P100", (16,), 6.0),
        (r"\bp40\b", "P40", (24,), 6.1),
        (r"\bmi300x\b", "MI300X", (192,), None),
        (r"\bmi250x?\b", "MI250", (128,), None),
    )
)


def lookup(name: str) -> GpuModel | None:
    """The catalogue entry for a GPU name such as 'NVIDIA GeForce RTX 3090' or 'a100-80g'."""
    low = name.lower()
    for pattern, model in CATALOGUE:
        if pattern.search(low):
            return model
    return None
