"""The memory panel's model: the estimate of the run, and what-if with remedies applied.

This is the one place the TUI talks to the estimator (:mod:`triage.estimate`).
Without it, or without a known model and GPU, :func:`memory_view` says which
facts it needs and shows no numbers. No Textual here: the panel only draws
the :class:`MemoryView` this module returns.

The estimator is expected as ``triage.estimate.estimate(facts) -> Estimate``
where ``Estimate.components`` maps a component name to bytes (or is a
sequence of objects with ``name`` and ``bytes``). :func:`load_estimator`
adapts that to a :data:`Estimator`; adjust it there if the API differs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from triage.facts import Fact, FactError, FactSet, Source, coerce
from triage.kb.loader import KnowledgeBase
from triage.kb.models import Remedy

GIB = 1024**3


@dataclass(frozen=True)
class Band:
    """One component of the estimate."""

    name: str
    bytes: int


@dataclass(frozen=True)
class Breakdown:
    """What an estimator returns: the components and, if it knows it, the GPU capacity."""

    components: tuple[Band, ...]
    capacity: int | None = None


Estimator = Callable[[FactSet], Breakdown]

#: Any one fact of each group is enough: the model, and the GPU.
NEEDS: dict[str, tuple[str, ...]] = {
    "model": ("model_name", "model_params_b"),
    "gpu": ("gpu_memory_bytes", "gpu_name"),
}


@dataclass(frozen=True)
class MemoryView:
    """What the memory panel shows."""

    available: bool
    """True when there are numbers to show."""
    components: tuple[Band, ...] = ()
    capacity: int | None = None
    applied: tuple[str, ...] = ()
    """The remedies applied (what-if)."""
    needs: tuple[str, ...] = ()
    """Facts that would make an estimate possible (any one per group)."""
    reason: str = ""
    """Why there are no numbers, in words."""

    @property
    def total(self) -> int:
        return sum(b.bytes for b in self.components)

    @property
    def fits(self) -> bool | None:
        if not self.available or self.capacity is None:
            return None
        return self.total <= self.capacity


def _adapt(estimate: Callable[[FactSet], Any]) -> Estimator:
    def run(facts: FactSet) -> Breakdown:
        result = estimate(facts)
        raw = result.components
        if isinstance(raw, Mapping):
            bands = tuple(Band(str(k), int(v)) for k, v in raw.items() if v)
        else:
            bands = tuple(Band(str(c.name), int(c.bytes)) for c in raw if c.bytes)
        device_total = getattr(result, "device_total", None)
        overhead = int(device_total.expected) - sum(b.bytes for b in bands) if device_total is not None else 0
        if overhead > 0:
            # CUDA context and allocator overhead: a separate band, outside PyTorch's allocated bytes
            bands = (*bands, Band("overhead", overhead))
        capacity = getattr(result, "capacity_bytes", None)
        return Breakdown(bands, int(capacity) if capacity else None)

    return run


def load_estimator() -> Estimator | None:
    """The estimator of :mod:`triage.estimate` when it is installed, else None."""
    for name in ("triage.estimate", "triage.estimate.estimator"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name in {"triage.estimate", name}:
                return None
            raise
        estimate = getattr(module, "estimate", None)
        if callable(estimate):
            return _adapt(estimate)
    return None


def apply_changes(kb: KnowledgeBase, facts: FactSet, remedies: Iterable[Remedy]) -> FactSet:
    """The facts of the run with each remedy's ``changes`` applied (later remedies win)."""
    changed: list[Fact] = []
    for remedy in remedies:
        for name, raw in remedy.changes.items():
            spec = kb.facts.get(name)
            if spec is None:
                continue
            try:
                value = coerce(spec, raw)
            except FactError:
                continue
            changed.append(Fact(name, value, Source("derived", excerpt=f"what-if: {remedy.id}")))
    return facts.with_facts(changed)


def missing(facts: FactSet) -> tuple[str, ...]:
    """The fact groups that are still unknown, as "model_name or model_params_b"."""
    return tuple(" or ".join(names) for names in NEEDS.values() if all(facts.value(n) is None for n in names))


def memory_view(
    kb: KnowledgeBase,
    facts: FactSet,
    estimator: Estimator | None,
    remedies: Sequence[Remedy] = (),
) -> MemoryView:
    """The estimate of the run with ``remedies`` applied, or what is needed to make one."""
    applied = tuple(r.id for r in remedies)
    needs = missing(facts)
    if estimator is None:
        return MemoryView(False, applied=applied, needs=needs, reason="the memory estimator is not installed")
    if needs:
        return MemoryView(False, applied=applied, needs=needs, reason="the model and the GPU must be known")
    try:
        result = estimator(apply_changes(kb, facts, remedies))
    except (ValueError, KeyError) as exc:
        return MemoryView(False, applied=applied, reason=f"cannot estimate: {exc}")
    capacity = facts.value("gpu_memory_bytes")
    cap = int(capacity) if isinstance(capacity, (int, float)) else result.capacity
    return MemoryView(True, result.components, cap, applied)


def saving(kb: KnowledgeBase, facts: FactSet, estimator: Estimator | None, remedy: Remedy) -> int | None:
    """Bytes ``remedy`` saves on this run (estimate before minus after), or None when unknown."""
    if not remedy.changes:
        return None
    before = memory_view(kb, facts, estimator)
    after = memory_view(kb, facts, estimator, [remedy])
    if not (before.available and after.available):
        return None
    return before.total - after.total


def bar_cells(view: MemoryView, width: int) -> list[tuple[str, int]]:
    """How many of ``width`` cells each component takes, scaled to max(total, capacity).

    A final ``("free", n)`` entry fills the rest when the run fits.
    """
    if not view.available or width <= 0:
        return []
    scale = max(view.total, view.capacity or 0) or 1
    cells: list[tuple[str, int]] = []
    used = 0
    for band in view.components:
        n = max(1, round(band.bytes / scale * width)) if band.bytes > 0 else 0
        n = min(n, width - used)
        if n:
            cells.append((band.name, n))
            used += n
    if view.capacity and view.total < view.capacity and used < width:
        cells.append(("free", width - used))
    return cells


def gib(n: int | float) -> str:
    return f"{n / GIB:.1f} GiB"
