"""The estimator's result records: a sized :class:`Component`, a :class:`Phase` of live bytes,
the :class:`Band` of memory outside PyTorch's counter, and the whole :class:`Estimate`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from triage.estimate.run import Assumption, Run, in_lang

GiB = 1024**3
MiB = 1024**2


@dataclass(frozen=True)
class Component:
    """One memory component: its bytes and the formula that gave them."""

    name: str
    bytes: int
    formula: str
    formula_zh: str = ""
    """The formula in Chinese (the same numbers; empty only in stand-ins built by tests)."""

    @property
    def gib(self) -> float:
        return self.bytes / GiB

    def formula_in(self, lang: str) -> str:
        """The formula in ``lang`` (``zh`` or ``en``)."""
        return in_lang(self.formula, self.formula_zh, lang)


@dataclass(frozen=True)
class Phase:
    """Live bytes at one moment of the run."""

    name: str
    """backward, optimizer, evaluation or generation (the values of the ``phase`` fact)."""
    detail: str
    components: Mapping[str, int]
    detail_zh: str = ""
    """The moment in Chinese."""

    def detail_in(self, lang: str) -> str:
        return in_lang(self.detail, self.detail_zh, lang)

    @property
    def total(self) -> int:
        return sum(self.components.values())


@dataclass(frozen=True)
class BandItem:
    """One part of the memory outside PyTorch's allocated counter."""

    name: str
    low: int
    expected: int
    high: int
    why: str
    why_zh: str = ""

    def why_in(self, lang: str) -> str:
        return in_lang(self.why, self.why_zh, lang)


@dataclass(frozen=True)
class Band:
    """What the device holds in total: allocated peak plus the overheads, low/expected/high."""

    low: int
    expected: int
    high: int
    items: tuple[BandItem, ...]


@dataclass(frozen=True)
class Estimate:
    """The estimate of one run."""

    run: Run
    sizes: Mapping[str, Component]
    """Every component, sized (whether or not it is live at the peak)."""
    phases: tuple[Phase, ...]
    peak: Phase
    device_total: Band
    capacity_bytes: int | None
    fits: bool | None
    """device_total.expected <= capacity (None when the GPU is unknown)."""
    tensors: Mapping[str, int] = field(default_factory=dict)
    """Single large tensors the run allocates (for the OOM fingerprint)."""
    notes: tuple[str, ...] = ()
    notes_zh: tuple[str, ...] = ()
    """``notes`` in Chinese, one for one."""

    def notes_in(self, lang: str) -> tuple[str, ...]:
        return self.notes_zh if lang == "zh" and len(self.notes_zh) == len(self.notes) else self.notes

    @property
    def verdict(self) -> str:
        """fits, borderline, does_not_fit or unknown (no GPU capacity), from the device-total band.

        *borderline* is "fits only at the low end of the estimate": the expected device total is over
        the capacity but the low end of the band is not. *fits* means the expected total fits (the
        high end may not: the text says so); *does_not_fit* means even the low end is over.
        """
        cap = self.capacity_bytes
        if cap is None:
            return "unknown"
        if self.device_total.expected <= cap:
            return "fits"
        if self.device_total.low <= cap:
            return "borderline"
        return "does_not_fit"

    @property
    def peak_bytes(self) -> int:
        """Peak allocated bytes (what ``torch.cuda.max_memory_allocated`` would report)."""
        return self.peak.total

    @property
    def peak_phase(self) -> str:
        return self.peak.name

    @property
    def components(self) -> dict[str, int]:
        """Bytes of each component live at the peak (zeros left out)."""
        return {k: v for k, v in self.peak.components.items() if v > 0}

    @property
    def assumptions(self) -> tuple[Assumption, ...]:
        return self.run.assumptions

    @property
    def largest_component(self) -> str:
        comps = self.components
        return max(comps, key=lambda k: comps[k]) if comps else "weights"

    @property
    def weights_bytes(self) -> int:
        return self.sizes["weights"].bytes

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """The ``triage estimate --format json`` contract; its texts (detail, formulas, reasons, notes) in ``lang``,
        its keys and values (phase names, component names, facts, verdicts) the same in every language."""

        def gib(n: int) -> float:
            return round(n / GiB, 3)

        return {
            "model": self.run.arch.name,
            "gpu": self.run.gpu.name if self.run.gpu else None,
            "peak_allocated_gib": gib(self.peak_bytes),
            "peak_phase": self.peak_phase,
            "peak_detail": self.peak.detail_in(lang),
            "device_total_gib": {
                "low": gib(self.device_total.low),
                "expected": gib(self.device_total.expected),
                "high": gib(self.device_total.high),
            },
            "overheads": [
                {
                    "name": i.name,
                    "low_gib": gib(i.low),
                    "expected_gib": gib(i.expected),
                    "high_gib": gib(i.high),
                    "why": i.why_in(lang),
                }
                for i in self.device_total.items
            ],
            "components": {k: gib(v) for k, v in self.components.items()},
            "formulas": {k: self.sizes[k].formula_in(lang) for k in self.components if k in self.sizes},
            "phases": {f"{p.name}:{p.detail}": gib(p.total) for p in self.phases},
            "fits": self.fits,
            "verdict": self.verdict,
            "gpu_capacity_gib": gib(self.capacity_bytes) if self.capacity_bytes else None,
            "assumptions": [a.to_json(lang) for a in self.assumptions],
            "notes": list(self.notes_in(lang)),
        }
