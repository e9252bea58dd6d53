"""The plan: the cheapest combination of remedies that brings the estimate under the GPU.

The caller passes the remedies that apply (prerequisites and required versions already
checked); the planner respects ``conflicts`` (either direction) and never combines two
remedies that set the same fact to different values. Cost of a remedy = speed level +
20 x quality level (none 0, low 1, medium 2, high 4) + 0.25 per remedy + 1.5 per library it
upgrades (a ``*_version`` change: a remedy that only a newer transformers unlocks is offered
with the upgrade, which costs more than a flag but no quality): a change that
costs no quality (a smaller micro-batch with more accumulation, checkpointing, SDPA, a
fused loss) always comes before one that changes the result (a shorter max_length, LoRA
instead of a full fine-tune, 4-bit), however slow; among equals fewer and faster changes
win. Combinations are tried cheapest first; the first that brings the expected device
total under ``capacity x (1 - headroom)`` is the plan.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from triage.estimate.architecture import Architecture
from triage.estimate.changes import Target, apply_changes, targets
from triage.estimate.estimator import Estimate, estimate
from triage.estimate.run import fact_values

if TYPE_CHECKING:
    from triage.facts import FactSet
    from triage.kb.models import Remedy

LEVEL = {"none": 0.0, "low": 1.0, "medium": 2.0, "high": 4.0}
DEFAULT_HEADROOM = 0.05
"""Fraction of the GPU's capacity kept free by a plan."""


def remedy_cost(remedy: Remedy) -> float:
    """The planner's cost of one remedy (an upgrade it needs included)."""
    upgrades = sum(1 for fact in remedy.changes if fact.endswith("_version"))
    return LEVEL[remedy.cost.speed] + QUALITY_WEIGHT * LEVEL[remedy.cost.quality] + 0.25 + UPGRADE_COST * upgrades


#: What upgrading one library adds to a remedy's cost: more than flipping a flag (0.25), far less than
#: any change that costs quality (20 and up).
UPGRADE_COST = 1.5


#: A quality level outweighs any speed cost of up to four remedies (4 x high = 16).
QUALITY_WEIGHT = 20.0


@dataclass(frozen=True)
class PlanStep:
    """One remedy of a plan."""

    remedy_id: str
    changes: Mapping[str, Any]
    saving_alone: int
    """Bytes this remedy saves on its own on the user's run."""
    cost: float
    targets: tuple[Target, ...] = ()
    """The settings it moves, from the run's value to the new one (``max_length`` 2048 -> 1024)."""
    after_alone: int | None = None
    """Expected device total with this remedy alone."""


@dataclass(frozen=True)
class Plan:
    """The cheapest combination found, and how each candidate fared alone."""

    before: Estimate
    after: Estimate
    steps: tuple[PlanStep, ...]
    target_bytes: int | None
    """capacity x (1 - headroom); None when the GPU is unknown."""
    headroom: float
    fits: bool
    """The plan's expected device total is under the target (already true if nothing was needed)."""
    savings: Mapping[str, int]
    """Every candidate remedy's saving alone, in bytes."""
    conflicts_skipped: int = 0

    @property
    def cost(self) -> float:
        return sum(s.cost for s in self.steps)

    @property
    def saved_bytes(self) -> int:
        return self.before.device_total.expected - self.after.device_total.expected


def _compatible(combo: Sequence[Remedy]) -> bool:
    ids = {r.id for r in combo}
    for r in combo:
        if ids & set(r.conflicts) - {r.id}:
            return False
    seen: dict[str, Any] = {}
    for r in combo:
        for fact, value in r.changes.items():
            if fact in seen and str(seen[fact]).lower() != str(value).lower():
                return False
            seen[fact] = value
    return True


def _merge(combo: Sequence[Remedy]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for r in combo:
        merged.update(r.changes)
    return merged


def plan(
    facts: FactSet | Mapping[str, Any],
    remedies: Iterable[Remedy],
    headroom: float = DEFAULT_HEADROOM,
    arch: Architecture | None = None,
    max_remedies: int = 4,
) -> Plan:
    """The cheapest combination of ``remedies`` that fits the GPU with ``headroom`` to spare."""
    if not 0 <= headroom < 1:
        raise ValueError(f"headroom is a fraction of the GPU's memory in [0, 1); got {headroom}")
    values = fact_values(facts)
    before = estimate(values, arch)
    target = None if before.capacity_bytes is None else int(before.capacity_bytes * (1 - headroom))
    candidates = [r for r in remedies if r.changes]
    savings: dict[str, int] = {}
    alone: dict[str, Estimate] = {}
    useful: list[Remedy] = []
    for r in candidates:
        after = estimate(apply_changes(values, r.changes), arch)
        alone[r.id] = after
        savings[r.id] = before.device_total.expected - after.device_total.expected
        if savings[r.id] > 0:
            useful.append(r)
    if target is None or before.device_total.expected <= target:
        return Plan(before, before, (), target, headroom, target is not None, savings)
    combos: list[tuple[float, tuple[Remedy, ...]]] = []
    skipped = 0
    for k in range(1, min(max_remedies, len(useful)) + 1):
        for combo in itertools.combinations(useful, k):
            if not _compatible(combo):
                skipped += 1
                continue
            combos.append((sum(remedy_cost(r) for r in combo), combo))
    combos.sort(key=lambda c: (c[0], -sum(savings[r.id] for r in c[1])))
    best: tuple[Estimate, tuple[Remedy, ...]] | None = None
    for _, combo in combos:
        after = estimate(apply_changes(values, _merge(combo)), arch)
        if after.device_total.expected <= target:
            best = (after, combo)
            break
        if best is None or after.device_total.expected < best[0].device_total.expected:
            best = (after, combo)
    if best is None:
        return Plan(before, before, (), target, headroom, False, savings, skipped)
    after, combo = best
    steps = tuple(
        PlanStep(
            r.id,
            dict(r.changes),
            savings[r.id],
            remedy_cost(r),
            targets(before, alone[r.id], r.changes, values),
            alone[r.id].device_total.expected,
        )
        for r in sorted(combo, key=lambda r: -savings[r.id])
    )
    return Plan(before, after, steps, target, headroom, after.device_total.expected <= target, savings, skipped)
