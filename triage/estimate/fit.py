"""``triage fit``: the largest max_length, batch size or LoRA rank that fits the GPU."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from triage.estimate.architecture import Architecture
from triage.estimate.estimator import Estimate, estimate
from triage.estimate.run import RunError, fact_values

if TYPE_CHECKING:
    from triage.facts import FactSet

VARIABLES = ("max_length", "batch_size", "lora_r")


@dataclass(frozen=True)
class FitResult:
    """The answer of :func:`fit`."""

    variable: str
    value: int | None
    """The largest value that fits; None when even 1 does not."""
    estimate: Estimate
    """The estimate at ``value`` (or at 1 when nothing fits)."""
    target_bytes: int
    upper: int
    """The search's upper bound (the value is capped there)."""


def fit(
    facts: FactSet | Mapping[str, Any],
    variable: str,
    headroom: float = 0.05,
    arch: Architecture | None = None,
    upper: int | None = None,
) -> FitResult:
    """Binary search for the largest ``variable`` whose expected device total stays under the target."""
    if variable not in VARIABLES:
        raise ValueError(f"fit solves for one of {', '.join(VARIABLES)}; got {variable!r}")
    values = fact_values(facts)
    first = estimate(values, arch)
    if first.capacity_bytes is None:
        raise RunError(
            "fit needs the GPU: give gpu_name or gpu_memory_bytes",
            "fit 需要知道显卡：请给出 gpu_name 或 gpu_memory_bytes",
        )
    target = int(first.capacity_bytes * (1 - headroom))
    if upper is None:
        upper = {"max_length": max(first.run.arch.max_position, 2048), "batch_size": 4096, "lora_r": 4096}[variable]

    def at(n: int) -> Estimate:
        return estimate(dict(values, **{variable: n}), arch)

    low_est = at(1)
    if low_est.device_total.expected > target:
        return FitResult(variable, None, low_est, target, upper)
    lo, hi = 1, upper
    best = low_est
    while lo < hi:
        mid = (lo + hi + 1) // 2
        est = at(mid)
        if est.device_total.expected <= target:
            lo, best = mid, est
        else:
            hi = mid - 1
    return FitResult(variable, lo, best, target, upper)
