"""The GPU catalogue: memory, compute capability, bf16 and FlashAttention-2 support, by card.

One table (``data/gpus.yaml``, package data, read with the safe loader) serves both the readers
and the estimator:

* :func:`find_mention` finds a GPU named inside a sentence or an ``nvidia-smi`` name ("on a single
  RTX 3090 (24GB)", "NVIDIA A100-SXM4-80GB") and says which memory size is meant, when it can
  tell: a size written right after the name, or the only size the model is sold with.
* :func:`find_gpu` turns what people type or what ``nvidia-smi`` prints ("3090", "NVIDIA GeForce
  RTX 3090", "A100-SXM4-80GB", "a100 40g") into one preset, taking the ``default`` size of a
  model sold with several when the text does not say.

Two memory figures per card, deliberately different (see the YAML header):

* :attr:`Gpu.total_bytes` is the total as ``nvidia-smi`` prints it (``memory.total``). It is what
  the ``gpu_memory_bytes`` fact holds when a reader derives it from the GPU's name.
* :attr:`Gpu.capacity_bytes` is the "total capacity" PyTorch reports (the figure in its OOM
  message): what the caching allocator can ever get. The estimator compares against this one;
  :func:`usable_bytes` converts a stated total into it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from triage.datacache import yaml_data

DATA = Path(__file__).resolve().parent / "data"
GiB = 1024**3
MiB = 1024**2

USABLE_RATIO = 0.98
"""PyTorch's capacity / nvidia-smi's total assumed for a card without a measured ``usable_gib``."""

_FLAGS = re.IGNORECASE | re.ASCII  # ASCII word boundaries: "用的4090显卡" has one on each side


class CatalogueError(ValueError):
    """The bundled GPU catalogue is malformed (a packaging bug, not a user error)."""


@dataclass(frozen=True)
class Gpu:
    """One card as it is sold (one memory size of one model)."""

    id: str
    name: str
    model: str
    """The model as a reader names it when the text names no size ("A100", "RTX 3090")."""
    match: str
    """Regex (matched ignoring case, ASCII word boundaries) that finds the model in a sentence."""
    nominal_gb: int
    """The size it is sold and typed as (the 80 of "A100 80GB")."""
    memory_mib: int
    """Total memory as nvidia-smi shows it (memory.total)."""
    usable_gib: float
    """The total capacity PyTorch reports (what the caching allocator can ever get)."""
    capability: float | None
    """CUDA compute capability; None for AMD cards."""
    arch: str
    aliases: tuple[str, ...] = ()
    default: bool = False
    """The size a bare model name means, for a model sold with several."""
    usable_measured: bool = True
    """False when usable_gib is :data:`USABLE_RATIO` x memory_mib rather than a reported figure."""
    flash_attention_2: bool | None = None
    """None: decided by the capability (Ampere, Ada, Hopper)."""
    bf16_support: bool | None = None
    """None: decided by the capability (>= 8.0)."""

    @property
    def bf16(self) -> bool:
        """bf16 needs Ampere or newer (compute capability >= 8.0)."""
        if self.bf16_support is not None:
            return self.bf16_support
        return self.capability is not None and self.capability >= 8.0

    @property
    def supports_fa2(self) -> bool:
        """Whether FlashAttention-2 runs on this card."""
        if self.flash_attention_2 is not None:
            return self.flash_attention_2
        return self.capability is not None and 8.0 <= self.capability < 10.0

    @property
    def total_bytes(self) -> int:
        """nvidia-smi's total, in bytes: the value of the ``gpu_memory_bytes`` fact."""
        return self.memory_mib * MiB

    @property
    def capacity_bytes(self) -> int:
        """PyTorch's total capacity, in bytes: what the estimator compares against."""
        return int(self.usable_gib * GiB)


@dataclass(frozen=True)
class Mention:
    """A GPU model named in a text, and the card meant when the text or the model settles it."""

    model: str
    start: int
    end: int
    variants: tuple[Gpu, ...]
    """Every size the model is sold with, the default first."""
    stated_gb: int | None
    """A memory size written right after the name ("A100 80GB", "RTX 3090 (24GB)")."""
    gpu: Gpu | None
    """The card: the variant of the stated size, or the only one; None when the size is open."""

    @property
    def capability(self) -> float | None:
        """The model's compute capability (the same for every size)."""
        return self.variants[0].capability

    @property
    def likely(self) -> Gpu:
        """The card, or the model's default size when the text leaves it open."""
        return self.gpu or self.variants[0]


def _gpu(raw: object) -> Gpu:
    if not isinstance(raw, dict):
        raise CatalogueError(f"gpus.yaml: every entry must be a mapping, got {raw!r}")
    item = dict(raw)
    try:
        item["aliases"] = tuple(str(a) for a in item.get("aliases", ()))
        item["bf16_support"] = item.pop("bf16", None)
        if item.get("usable_gib") is None:
            item["usable_gib"] = round(USABLE_RATIO * int(item["memory_mib"]) / 1024, 2)
            item["usable_measured"] = False
        re.compile(str(item["match"]), _FLAGS)
        return Gpu(**item)
    except (KeyError, TypeError, re.error) as exc:
        raise CatalogueError(f"gpus.yaml: bad entry {raw!r}: {exc}") from exc


@cache
def gpu_presets() -> tuple[Gpu, ...]:
    """Every card in the catalogue, in the file's order."""
    (data,) = yaml_data("gpus", [DATA / "gpus.yaml"])
    return tuple(_gpu(item) for item in data["gpus"])


def _plural(match: str) -> str:
    """``\\bA100\\b`` also matches "A100s" and "4xA100": people count cards ("on 4xA100s")."""
    first = match.find(r"\b")
    end = match.find(r"\b", first + 2) if first == 0 else -1
    if end < 0:
        return match
    plural = "" if "super" in match.lower() else "s?"  # "4080s" is a 4080 SUPER, not several 4080s
    return r"(?:(?<=\d[x×])|\b)" + match[2:end] + plural + match[end:]


@cache
def _models() -> tuple[tuple[re.Pattern[str], tuple[Gpu, ...]], ...]:
    """(pattern, variants with the default first) per model, in the file's order."""
    groups: dict[str, list[Gpu]] = {}
    for gpu in gpu_presets():
        groups.setdefault(gpu.model, []).append(gpu)
    plain = {model: re.compile(variants[0].match, _FLAGS) for model, variants in groups.items()}
    out = []
    for model, variants in groups.items():
        variants.sort(key=lambda g: not g.default)
        # no plural where "<model>s" names another card (L40S, a 4080 S)
        taken = any(other != model and pat.fullmatch(f"{model}s") for other, pat in plain.items())
        match = variants[0].match if taken else _plural(variants[0].match)
        out.append((re.compile(match, _FLAGS), tuple(variants)))
    return tuple(out)


def model_patterns() -> tuple[str, ...]:
    """The ``match`` regex of every model, for readers that embed them in larger patterns."""
    return tuple(pattern.pattern for pattern, _ in _models())


@cache
def names_pattern() -> str:
    """Every model's ``match`` regex as one alternation, for readers that embed it in larger patterns.

    Each model's pattern opens with the same ``(?:(?<=\\d[x×])|\\b)`` (a word boundary, or right after "8x"):
    said once before the alternation, it is tried once per position of a line instead of once per model, which
    makes reading a long text about a fifth faster (``bench/bench_reader_speed.py``). The order of the models is
    kept; a pattern without that opening comes after the others.
    """
    shared = r"(?:(?<=\d[x×])|\b)"
    patterns = model_patterns()
    opened = [p[len(shared) :] for p in patterns if p.startswith(shared)]
    rest = [p for p in patterns if not p.startswith(shared)]
    return "|".join([*([shared + "(?:" + "|".join(opened) + ")"] if opened else []), *rest])


@cache
def _any_name() -> re.Pattern[str]:
    return re.compile(names_pattern(), _FLAGS)


#: The card's size written after its name: "A100 80GB", "A100-40G", "A100/40GB", "4 A100 GPUs (each 80G)".
_STATED = re.compile(
    r"\s*[-(（/]?\s*(?:(?:pcie|sxm\d?|nvl)\s*[- ]?\s*)?(?P<n>\d+)\s*(?:G|GB|GiB)\b|"
    r"\s*(?:gpus?|cards?)?\s*[(（]\s*each\s+(?P<each>\d+)\s*(?:G|GB|GiB)\b",
    _FLAGS,
)
#: The size said as the memory the card has: "A100 with 40GB memory", "an A100 GPU of 80GB memory". Read only when
#: it is one of the model's own sizes ("a 3090 with 64GB memory" is the host's RAM, not the card's).
_STATED_MEMORY = re.compile(
    r"\s*(?:gpus?|cards?)?\s*(?:with|of|has)\s+(?P<n>\d+)\s*(?:G|GB|GiB)\s+(?:of\s+)?(?:gpu\s+|graphics\s+|video\s+)?"
    r"(?:memory|vram|显存)\b",
    _FLAGS,
)
#: A laptop's chip of the same name has less memory than the desktop card ("RTX 3060 Laptop" has 6 GB, not 12).
_MOBILE = re.compile(r"\s*[-(（]?\s*(?:laptop|mobile|notebook|max-q)(?![a-z])|\s*(?:笔记本|移动版)", _FLAGS)


def mentions(text: str) -> list[Mention]:
    """Every GPU model named in ``text``, in the order they appear.

    A laptop chip ("RTX 3060 Laptop 6GB") is none of the desktop presets: its size is the one
    written after it, or unknown.
    """
    out: list[Mention] = []
    if _any_name().search(text) is None:
        return out  # most lines name no card: one search instead of one per model
    for pattern, variants in _models():
        for m in pattern.finditer(text):
            mobile = _MOBILE.match(text, m.end())
            after = mobile.end() if mobile else m.end()
            stated = _STATED.match(text, after)
            size = int(stated.group("n") or stated.group("each")) if stated else None
            said = _STATED_MEMORY.match(text, after) if size is None else None
            if said is not None and any(g.nominal_gb == int(said.group("n")) for g in variants):
                size = int(said.group("n"))
            if mobile:
                gpu = None
            elif size is not None:
                gpu = next((g for g in variants if g.nominal_gb == size), None)
            else:
                gpu = variants[0] if len(variants) == 1 else None
            out.append(Mention(variants[0].model, m.start(), m.end(), variants, size, gpu))
    out.sort(key=lambda x: x.start)
    return out


def find_mention(text: str) -> Mention | None:
    """The first GPU model named in ``text``, or None."""
    found = mentions(text)
    return found[0] if found else None


def _key(text: str) -> str:
    low = text.lower()
    low = re.sub(r"\b(nvidia|geforce|tesla|graphics|card)\b", " ", low)
    low = re.sub(r"(\d+)\s*g(?:ib|b)?\b", r"\1gb", low)
    return re.sub(r"[^a-z0-9]", "", low)


@cache
def _index() -> dict[str, Gpu]:
    out: dict[str, Gpu] = {}
    for gpu in gpu_presets():
        for name in (gpu.id, gpu.name, *gpu.aliases):
            out.setdefault(_key(name), gpu)
    return out


def find_gpu(text: str) -> Gpu | None:
    """The preset for what people type or nvidia-smi prints, or None when nothing matches well.

    Exact ids, names and aliases first; then the model named in the text, in the size written
    after it or else its default size; then a fuzzy match (rapidfuzz) that keeps every digit,
    so a typo never turns a 3090 into a 3080.
    """
    index = _index()
    key = _key(text)
    if not key:
        return None
    if key in index:
        return index[key]
    mention = find_mention(text)
    if mention is not None:
        if mention.stated_gb is not None and mention.gpu is None:
            return None  # a size this model is not sold with: not a preset
        return mention.likely
    from rapidfuzz import fuzz, process

    best = process.extractOne(key, list(index), scorer=fuzz.ratio, score_cutoff=85)
    if best is None or re.findall(r"\d+", key) != re.findall(r"\d+", best[0]):
        return None
    return index[best[0]]


def usable_bytes(total_bytes: int, gpu: Gpu | None = None) -> int:
    """PyTorch's capacity for a card whose total memory (``gpu_memory_bytes``) is ``total_bytes``.

    A total that is the preset's own (nvidia-smi's figure, or its nominal size) gives the preset's
    measured capacity. A total at or below that capacity already is PyTorch's figure (an OOM
    message's "total capacity"), so it is kept. A total that is neither (another card's) is taken
    as nvidia-smi's figure and scaled by :data:`USABLE_RATIO`. With no card known, which of the two
    figures it is cannot be told, and it is used as given.
    """
    if gpu is None or total_bytes <= gpu.capacity_bytes:
        return total_bytes
    if total_bytes == gpu.nominal_gb * GiB or abs(total_bytes - gpu.total_bytes) <= 0.01 * gpu.total_bytes:
        return gpu.capacity_bytes
    return int(total_bytes * USABLE_RATIO)
