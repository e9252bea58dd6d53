"""Quantify a session: the memory estimate, each remedy's saving on this run, and the plan that fits.

This is the stage around the diagnosis: :func:`derive` adds the estimator's
derived facts before causes are scored (weights alone exceed the GPU, ...),
:func:`saver` gives the engine each remedy's saving so it can rank remedies by
what they buy on *this* run, and :func:`quantify` runs the planner over the
remedies the diagnosis found applicable. Without a known model the estimate
is absent and :attr:`Memory.missing` says what it needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from triage.engine.diagnose import Diagnosis
from triage.estimate import (
    ArchitectureError,
    ChangeError,
    Estimate,
    Fingerprint,
    ModelUnknown,
    OptimizerError,
    Plan,
    RunError,
    derived_facts,
    estimate,
    fingerprint,
    plan,
    saving,
)
from triage.facts import FactSet
from triage.kb.models import Remedy

#: Estimator errors that mean "not enough is known", never a crash.
NOT_ESTIMABLE = (ModelUnknown, RunError, ArchitectureError, OptimizerError, ChangeError)


@dataclass(frozen=True)
class Memory:
    """What the estimator says about a run."""

    estimate: Estimate | None
    """None when the run cannot be estimated (see ``missing``)."""
    missing: str | None
    """Why there is no estimate: what the user should give."""
    plan: Plan | None
    """The cheapest set of applicable remedies that fits; None without an estimate or a GPU."""
    fingerprint: Fingerprint | None
    """Which predicted tensor the failing allocation most likely was."""


def try_estimate(facts: FactSet) -> tuple[Estimate | None, str | None]:
    """The estimate, or None and the reason it cannot be made."""
    try:
        return estimate(facts), None
    except NOT_ESTIMABLE as exc:
        return None, str(exc).strip("'\"")


#: The run settings each derived fact rests on. A derived fact is evidence only when none of
#: them was an assumption of the estimator: "fits at batch 1" computed from an assumed
#: max_length says nothing about the user's run.
DEPENDS_ON: dict[str, frozenset[str]] = {
    "weights_exceed_gpu": frozenset({"quantization"}),
    "does_not_fit_at_batch_1": frozenset({"max_length", "gradient_checkpointing", "quantization"}),
    "largest_component": frozenset({"max_length", "batch_size", "gradient_checkpointing"}),
    "estimated_peak_bytes": frozenset({"max_length", "batch_size", "gradient_checkpointing"}),
}


def derive(facts: FactSet) -> FactSet:
    """``facts`` plus the estimator's derived facts that rest on what the user said; stated facts win."""
    try:
        est = estimate(facts)
        derived = derived_facts(facts, est=est)
    except NOT_ESTIMABLE:
        return facts
    assumed = {a.fact for a in est.assumptions}
    return facts.with_facts(
        f for f in derived if f.name not in facts and not DEPENDS_ON.get(f.name, frozenset()) & assumed
    )


def saver(facts: FactSet, est: Estimate | None) -> Callable[[Remedy], int | None] | None:
    """A function giving a remedy's saving in bytes on this run (None when it has no modelled change)."""
    if est is None:
        return None

    def saving_of(remedy: Remedy) -> int | None:
        if not remedy.changes:
            return None
        try:
            return saving(facts, remedy.changes)
        except NOT_ESTIMABLE:
            return None

    return saving_of


def quantify(diagnosis: Diagnosis, est: Estimate | None, missing: str | None) -> Memory:
    """The plan and fingerprint for a diagnosed session whose estimate is ``est``."""
    facts = diagnosis.session.facts
    if est is None:
        return Memory(None, missing, None, None)
    candidates = [r.remedy for r in diagnosis.remedies if r.applicable is not False and r.remedy.changes]
    try:
        best = plan(facts, candidates) if est.capacity_bytes else None
    except NOT_ESTIMABLE:
        best = None
    try:
        print_ = fingerprint(facts, est)
    except NOT_ESTIMABLE:
        print_ = None
    return Memory(est, None, best, print_)
