"""GPU presets: memory, compute capability, bf16 and FlashAttention-2 support.

Presets live in ``data/gpus.yaml``. :func:`find_gpu` accepts what people type or what
``nvidia-smi`` prints ("3090", "NVIDIA GeForce RTX 3090", "A100-SXM4-80GB", "a100 40g").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

DATA = Path(__file__).resolve().parent / "data"
GiB = 1024**3
MiB = 1024**2


@dataclass(frozen=True)
class Gpu:
    """One GPU model."""

    id: str
    name: str
    memory_mib: int
    """Total memory as nvidia-smi shows it."""
    usable_gib: float
    """The total capacity PyTorch reports (what the caching allocator can ever get)."""
    capability: float
    arch: str
    aliases: tuple[str, ...] = ()
    flash_attention_2: bool | None = None
    """None: decided by the capability (>= 8.0)."""

    @property
    def bf16(self) -> bool:
        """bf16 needs Ampere or newer (compute capability >= 8.0)."""
        return self.capability >= 8.0

    @property
    def supports_fa2(self) -> bool:
        if self.flash_attention_2 is not None:
            return self.flash_attention_2
        return 8.0 <= self.capability < 10.0

    @property
    def capacity_bytes(self) -> int:
        return int(self.usable_gib * GiB)


@cache
def gpu_presets() -> tuple[Gpu, ...]:
    """Every bundled GPU preset."""
    text = (DATA / "gpus.yaml").read_text(encoding="utf-8")
    data = yaml.load(text, Loader=_Loader)
    out = []
    for item in data["gpus"]:
        item = dict(item)
        item["aliases"] = tuple(str(a) for a in item.get("aliases", ()))
        out.append(Gpu(**item))
    return tuple(out)


def _key(text: str) -> str:
    low = text.lower()
    low = re.sub(r"\b(nvidia|geforce|tesla|graphics|card)\b", " ", low)
    low = re.sub(r"(\d+)\s*g(?:ib|b)?\b", r"\1gb", low)
    return re.sub(r"[^a-z0-9]", "", low)


@cache
def _gpu_index() -> dict[str, Gpu]:
    out: dict[str, Gpu] = {}
    for gpu in gpu_presets():
        for name in (gpu.id, gpu.name, *gpu.aliases):
            out.setdefault(_key(name), gpu)
    return out


def find_gpu(name: str) -> Gpu | None:
    """The preset for a GPU name, or None when nothing matches well."""
    index = _gpu_index()
    key = _key(name)
    if key in index:
        return index[key]
    # the longest preset key contained in the text ("nvidia a100-sxm4-80gb"), whose digits all
    # appear in the text, so "a100" never becomes an A10
    digits = set(re.findall(r"\d+", key))
    contained = [k for k in index if len(k) >= 2 and k in key and set(re.findall(r"\d+", k)) <= digits
                 and not re.search(re.escape(k) + r"\d", key)]
    if contained:
        return index[max(contained, key=len)]
    from rapidfuzz import fuzz, process

    best = process.extractOne(key, list(index), scorer=fuzz.ratio, score_cutoff=85)
    if best is None or re.findall(r"\d+", key) != re.findall(r"\d+", best[0]):
        return None
    return index[best[0]]
