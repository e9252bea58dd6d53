"""Live tensor bytes, counted the way the CUDA caching allocator counts them (needs torch).

:class:`LiveBytes` is a ``TorchDispatchMode``: every storage an op creates is registered
once, rounded up to 512 B (``kMinBlockSize``), tagged with a category, and subtracted by a
weakref callback when the storage dies (storages keep their Python object alive for as long
as the StorageImpl lives, so the callback fires exactly at the free). At each new peak it keeps
the per-category totals, the phase, the op and the innermost module running.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.utils._python_dispatch import TorchDispatchMode  # type: ignore[import-not-found, unused-ignore]
from torch.utils._pytree import tree_flatten  # type: ignore[import-not-found, unused-ignore]

from triage.measure.result import BLOCK, round_block

CATEGORY_OF_PHASE = {
    "setup": "weights",
    "prime": "optimizer_state",
    "inputs": "inputs",
    "forward": "activations",
    "backward": "backward_temps",
    "optimizer": "optimizer_temps",
}

#: Extra bytes an op holds on CUDA for its duration that the CPU stand-in does not allocate.
TransientHook = Callable[[Any, tuple[Any, ...], dict[str, Any]], int]

__all__ = ["BLOCK", "CATEGORY_OF_PHASE", "LiveBytes", "round_block"]


class LiveBytes(TorchDispatchMode):  # type: ignore[misc, unused-ignore]
    """Count live storage bytes (512-B blocks) by category; remember the peak and where it was."""

    def __init__(self, transient: TransientHook | None = None) -> None:
        super().__init__()
        self._live: dict[int, list[Any]] = {}
        self.totals: dict[str, int] = defaultdict(int)
        self.current = 0
        self.peak = 0
        self.peak_totals: dict[str, int] = {}
        self.peak_phase = "setup"
        self.peak_op = ""
        self.peak_module = ""
        self.peak_transient = 0
        self.phase = "setup"
        self.modules: list[str] = []
        self.allocations = 0
        self._transient = transient
        self._op = ""

    # ------------------------------------------------------------------ bookkeeping

    def _free(self, key: int) -> None:
        entry = self._live.pop(key, None)
        if entry is not None:
            self.current -= entry[0]
            self.totals[entry[1]] -= entry[0]

    def _finaliser(self, key: int) -> Callable[[Any], None]:
        def free(_ref: Any) -> None:
            self._free(key)

        return free

    def track(self, tensor: Any, category: str | None = None) -> None:
        """Register ``tensor``'s storage if it is new (and check the peak)."""
        if not isinstance(tensor, torch.Tensor):
            return
        try:
            storage = tensor.untyped_storage()
        except (RuntimeError, NotImplementedError):  # tensors without storage (nested, sparse) are not allocated
            return
        key = id(storage)
        if key in self._live:
            return
        size = round_block(int(storage.nbytes()))
        cat = category or CATEGORY_OF_PHASE.get(self.phase, self.phase)
        ref = weakref.ref(storage, self._finaliser(key))
        self._live[key] = [size, cat, ref]
        self.current += size
        self.totals[cat] += size
        self.allocations += 1
        self._check_peak(0)

    def track_all(self, tensors: Iterable[Any], category: str) -> None:
        for t in tensors:
            self.track(t, category)

    def retag(self, tensor: Any, category: str) -> None:
        """Move ``tensor``'s storage to ``category`` (a gradient, an optimizer state)."""
        if not isinstance(tensor, torch.Tensor):
            return
        key = id(tensor.untyped_storage())
        entry = self._live.get(key)
        if entry is None:
            self.track(tensor, category)
            return
        if entry[1] != category:
            self.totals[entry[1]] -= entry[0]
            self.totals[category] += entry[0]
            entry[1] = category

    def category_of(self, tensor: Any) -> str | None:
        entry = self._live.get(id(tensor.untyped_storage()))
        return None if entry is None else str(entry[1])

    def _check_peak(self, transient: int) -> None:
        total = self.current + transient
        if total > self.peak:
            self.peak = total
            self.peak_totals = {k: v for k, v in self.totals.items() if v}
            if transient:
                self.peak_totals["kernel_temps"] = transient
            self.peak_phase = self.phase
            self.peak_op = self._op
            self.peak_module = self.modules[-1] if self.modules else ""
            self.peak_transient = transient

    def reset_peak(self) -> None:
        """Start a new peak from what is live now."""
        self.peak = 0
        self._check_peak(0)

    @contextmanager
    def in_phase(self, phase: str) -> Iterator[None]:
        before = self.phase
        self.phase = phase
        try:
            yield
        finally:
            self.phase = before

    # ------------------------------------------------------------------ dispatch

    def __torch_dispatch__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        self._op = str(func.name()) if hasattr(func, "name") else str(func)
        if self._transient is not None:
            extra = self._transient(func, args, kwargs)
            if extra:
                self._check_peak(extra)
        out = func(*args, **kwargs)
        for t in tree_flatten(out)[0]:
            self.track(t)
        return out
