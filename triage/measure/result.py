"""What a measured step reports (pure Python, no torch)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from triage.measure.spec import MeasureSpec

GiB = 1024**3
#: The CUDA caching allocator's kMinBlockSize: every request is rounded up to a multiple of it.
BLOCK = 512

#: Breakdown categories, in report order.
CATEGORIES = (
    "weights",
    "grads",
    "optimizer_state",
    "activations",
    "backward_temps",
    "optimizer_temps",
    "kernel_temps",
    "inputs",
)
LABELS = {
    "weights": "weights (params + buffers)",
    "grads": "gradients",
    "optimizer_state": "optimizer state",
    "activations": "activations (saved in forward)",
    "backward_temps": "backward temporaries",
    "optimizer_temps": "optimizer temporaries",
    "kernel_temps": "kernel scratch (CUDA emulation)",
    "inputs": "input ids",
}


def round_block(nbytes: int) -> int:
    """Bytes the CUDA caching allocator hands out for a request: 0 for 0, else a multiple of 512."""
    if nbytes <= 0:
        return 0
    return -(-nbytes // BLOCK) * BLOCK


@dataclass(frozen=True)
class Measurement:
    """The allocated peak of one training step (what ``torch.cuda.max_memory_allocated`` reports)."""

    spec: MeasureSpec
    peak_bytes: int
    phase: str
    """forward, backward or optimizer: where the peak landed."""
    op: str
    """The aten op that made the peak (e.g. aten::_log_softmax_backward_data)."""
    module: str
    """The innermost module running at the peak (reliable in forward and in checkpoint recompute)."""
    breakdown: dict[str, int]
    """Live bytes per category at the peak."""
    params_total: int
    params_trainable: int
    seconds: float
    versions: dict[str, str]
    mode: str = "fake"
    """fake (shapes only) or real (CPU tensors; self-test)."""
    notes: tuple[str, ...] = field(default=())

    @property
    def peak_gib(self) -> float:
        return self.peak_bytes / GiB

    def where(self) -> str:
        place = f" in {self.module}" if self.module else ""
        return f"{self.phase}{place} ({self.op})" if self.op else f"{self.phase}{place}"

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.spec.label(),
            "peak_allocated_bytes": self.peak_bytes,
            "peak_allocated_gib": round(self.peak_gib, 3),
            "peak_phase": self.phase,
            "peak_op": self.op,
            "peak_module": self.module,
            "breakdown_gib": {k: round(v / GiB, 3) for k, v in self.breakdown.items()},
            "params_total": self.params_total,
            "params_trainable": self.params_trainable,
            "seconds": round(self.seconds, 2),
            "versions": self.versions,
            "mode": self.mode,
            "notes": list(self.notes),
        }
