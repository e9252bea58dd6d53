"""The memory panel's model: the estimator's numbers for the run, and what-if with remedies applied.

This is the one place the TUI talks to the estimator (:mod:`triage.estimate`),
through the :class:`~triage.quantify.Memory` the interview already computed
(the same estimate, savings and plan as ``triage diagnose``). What-if applies
the chosen remedies' ``changes`` to the run with
:func:`triage.estimate.saving_detail` and draws the estimate after them. No
Textual here: the panel only draws the :class:`MemoryView` this module returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from triage.api import Estimate, EstimateError, Memory, what_if
from triage.facts import FactSet
from triage.kb.models import Remedy
from triage.render import labels

GIB = 1024**3
#: Components under this share of the bar are drawn together as "other".
SMALL = 0.03
#: The name of the segment outside PyTorch's allocated bytes (CUDA context, workspaces, allocator).
OVERHEAD = "overhead"
OTHER = "other"

#: Any one fact of each group is enough: the model, and the GPU.
NEEDS: dict[str, tuple[str, ...]] = {
    "model": ("model_name", "model_params_b"),
    "gpu": ("gpu_name", "gpu_memory_bytes"),
}


@dataclass(frozen=True)
class Segment:
    """One part of the bar: a component at the peak, the small ones together, or the overhead."""

    name: str
    bytes: int


@dataclass(frozen=True)
class MemoryView:
    """What the memory panel shows."""

    available: bool
    """True when there are numbers to show."""
    segments: tuple[Segment, ...] = ()
    """The components at the peak, largest first, then the overhead; they add up to ``expected``."""
    low: int = 0
    expected: int = 0
    high: int = 0
    """The device total band (allocated peak plus overheads)."""
    capacity: int | None = None
    fits: bool | None = None
    """The estimator's verdict: expected device total <= capacity (None when the GPU is unknown)."""
    peak_phase: str = ""
    applied: tuple[str, ...] = ()
    """The remedies applied (what-if)."""
    saved: int = 0
    """Bytes the applied remedies save against the run as it is."""
    assumptions: tuple[str, ...] = ()
    """What the estimator assumed, "fact = value"."""
    plan: tuple[str, ...] = ()
    """The cheapest set of applicable remedies that fits (remedy ids), for the run as it is."""
    plan_fits: bool | None = None
    plan_after: int | None = None
    """The expected device total once the plan is applied."""
    needs: tuple[str, ...] = ()
    """Facts that would make an estimate (or a verdict) possible (any one per group)."""
    reason: str = ""
    """Why there are no numbers, in words (the estimator's, English)."""
    reason_zh: str = ""
    """The same in Chinese, when the estimator gives it."""
    unapplicable: bool = False
    """True when the what-if changes themselves could not be applied (``reason`` says why)."""
    unsized: str | None = None
    """Set when that saving cannot be sized from what is known (``length_distribution``); ignore ``saved``."""

    @property
    def total(self) -> int:
        return self.expected

    @property
    def over(self) -> int:
        """Bytes over the GPU's capacity (0 when it fits or the GPU is unknown)."""
        return max(0, self.expected - self.capacity) if self.capacity else 0


def missing(facts: FactSet) -> tuple[str, ...]:
    """The fact groups that are still unknown, as "model_name or model_params_b"."""
    return tuple(" or ".join(names) for names in NEEDS.values() if all(facts.value(n) is None for n in names))


def merged_changes(remedies: Sequence[Remedy]) -> dict[str, Any]:
    """The remedies' changes together (a later remedy wins where two set the same fact)."""
    out: dict[str, Any] = {}
    for remedy in remedies:
        out.update(remedy.changes)
    return out


def segments(est: Estimate, small: float = SMALL) -> tuple[Segment, ...]:
    """The estimate's components at the peak, largest first, tiny ones as "other", then the overhead."""
    total = max(est.device_total.expected, 1)
    comps = sorted(est.components.items(), key=lambda kv: -kv[1])
    big = [Segment(name, n) for name, n in comps if n / total >= small]
    rest = sum(n for _, n in comps if n / total < small)
    out = [*big, *([Segment(OTHER, rest)] if rest else [])]
    overhead = est.device_total.expected - est.peak_bytes
    if overhead > 0:
        out.append(Segment(OVERHEAD, overhead))
    return tuple(out)


def _plan(memory: Memory) -> dict[str, Any]:
    p = memory.plan
    if p is None or not p.steps:
        return {}
    return {
        "plan": tuple(s.remedy_id for s in p.steps),
        "plan_fits": p.fits,
        "plan_after": p.after.device_total.expected,
    }


def memory_view(memory: Memory, facts: FactSet, remedies: Sequence[Remedy] = ()) -> MemoryView:
    """The estimate of the run with ``remedies`` applied, or what is needed to make one.

    ``memory`` is the interview's (:attr:`triage.interview.Interview.memory`),
    ``facts`` the facts it was estimated from (the diagnosis' session facts).
    """
    applied = tuple(r.id for r in remedies)
    if memory.estimate is None:
        return MemoryView(
            False, applied=applied, needs=missing(facts), reason=memory.missing or "", reason_zh=memory.missing_zh
        )
    est = memory.estimate
    saved = 0
    unsized = None
    changes: Mapping[str, Any] = merged_changes(remedies)
    if changes:
        try:
            detail = what_if(facts, remedies, before=est)
        except EstimateError as exc:
            return MemoryView(False, applied=applied, reason=str(exc), unapplicable=True)
        # a change whose saving cannot be sized leaves the bar at the run as it is, with the reason
        est, saved, unsized = (est if detail.unsized else detail.after), detail.bytes, detail.unsized
    needs = missing(facts) if est.capacity_bytes is None else ()
    return MemoryView(
        True,
        segments(est),
        est.device_total.low,
        est.device_total.expected,
        est.device_total.high,
        est.capacity_bytes,
        est.fits,
        est.peak_phase,
        applied,
        saved,
        tuple(f"{a.fact} = {a.value}" for a in est.assumptions),
        needs=needs,
        unsized=unsized,
        reason="",
        **_plan(memory),
    )


def scale_of(view: MemoryView) -> int:
    """The bytes the full bar stands for: the larger of the high estimate and the capacity."""
    return max(view.high, view.expected, view.capacity or 0) or 1


def bar_cells(view: MemoryView, width: int) -> list[tuple[str, int]]:
    """How many of ``width`` cells each segment takes, scaled to :func:`scale_of`.

    Then ``("free", n)`` up to the capacity when the run fits, or
    ``("uncertain", n)`` for the band above the expected total; the cells add
    up to at most ``width``.
    """
    if not view.available or width <= 0:
        return []
    scale = scale_of(view)
    cells: list[tuple[str, int]] = []
    used = 0
    for seg in view.segments:
        exact = seg.bytes / scale * width
        n = min(max(1, round(exact)) if exact >= 0.3 else 0, width - used)
        if n:
            cells.append((seg.name, n))
            used += n
    if view.capacity and view.expected < view.capacity:
        free = min(round(view.capacity / scale * width), width) - used
        if free > 0:
            cells.append(("free", free))
            used += free
    high = min(round(view.high / scale * width), width) - used
    if high > 0 and (not view.capacity or view.high > view.capacity):
        cells.append(("uncertain", high))
    return cells


def capacity_cell(view: MemoryView, width: int) -> int | None:
    """The cell where the GPU's capacity falls (the marker in an over-full bar); None when unknown."""
    if not view.available or not view.capacity or width <= 0:
        return None
    return min(width - 1, max(0, round(view.capacity / scale_of(view) * width) - 1))


def gib(n: int | float) -> str:
    return f"{n / GIB:.1f} GiB"


def saving_label(saved: int | None, lang: str) -> str | None:
    """What a remedy's saving on this run reads as, said as every other format says it."""
    return None if saved is None else labels.saving_label(round(saved / GIB, 3), lang)
