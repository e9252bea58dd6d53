"""Watch a training run from inside and write the facts of an out-of-memory error the moment it happens.

    import triage

    with triage.watch(trainer=trainer):          # or triage.watch() around any PyTorch code
        trainer.train()

    # or, for a script you do not want to edit:
    #   python -m triage.watch train.py --its --own args

On ``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError`` and an old
torch's ``RuntimeError: ... out of memory``) the watcher writes
``triage-report.json`` (the phase from the live stack, the global step, the
batch's shape, the TrainingArguments, model and peft configs, versions, GPUs and
the allocator's counters), says where on stderr, and re-raises the exception
unchanged. ``triage diagnose --report triage-report.json`` reads it as exact facts.
An existing report is never overwritten: the next free name is used, and said.

``snapshot=True`` records the CUDA allocator's history and dumps a memory
snapshot beside the report at the OOM (``triage diagnose --snapshot``). On a
machine without CUDA there is nothing to record, and the watcher says so.

The module itself is callable (``triage.watch(...)`` is :func:`watch`), and importing
it imports neither torch nor transformers; ``pip install 'triage-oom[watch]'``
installs what a run needs.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from triage.watch.callback import TriageCallback

DEFAULT_REPORT = "triage-report.json"
DEFAULT_SNAPSHOT = "triage-snapshot.pickle"
#: Allocator events kept for the snapshot (several KB each, so ~0.5-1 GB at most).
SNAPSHOT_ENTRIES = 100_000


def _say(message: str) -> None:
    print(f"triage.watch: {message}", file=sys.stderr, flush=True)


class Watch:
    """The context manager :func:`watch` returns."""

    def __init__(
        self, trainer: Any = None, snapshot: bool = False, path: str | Path = DEFAULT_REPORT, quiet: bool = False
    ) -> None:
        self.trainer = trainer
        self.snapshot = snapshot
        self.path = Path(path)
        self.quiet = quiet
        self.callback: TriageCallback | None = None
        self.recording = False
        self.notes: list[str] = []
        self.written: Path | None = None
        """Where the last report went (None until an OOM)."""

    def __enter__(self) -> Watch:
        if self.trainer is not None:
            from triage.watch.callback import TriageCallback

            self.callback = TriageCallback(path=self.path, catch=False)
            self.trainer.add_callback(self.callback)
        if self.snapshot:
            self._start_history()
        return self

    def _start_history(self) -> None:
        import torch  # type: ignore[import-not-found, unused-ignore]

        if not torch.cuda.is_available():
            note = "snapshot=True: no CUDA device here, so there is no allocator history to record (no snapshot)"
            self.notes.append(note)
            _say(note)
            return
        torch.cuda.memory._record_memory_history(max_entries=SNAPSHOT_ENTRIES)
        self.recording = True

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> Literal[False]:
        try:
            if exc is not None:
                self.record(exc)
        finally:
            if self.callback is not None and self.trainer is not None:
                self.trainer.remove_callback(self.callback)
            if self.recording:
                sys.modules["torch"].cuda.memory._record_memory_history(enabled=None)
                self.recording = False
        return False  # the user's exception goes on exactly as it was

    def record(self, exc: BaseException) -> Path | None:
        """Write the report of ``exc`` when it is an out-of-memory error; never raises (the user's error wins)."""
        from triage.watch import capture

        if not capture.is_oom(exc):
            return None
        snap = None
        try:
            snap = self._dump_snapshot()
        except Exception as err:  # a snapshot is extra too: the report is still written
            self.notes.append(f"the memory snapshot could not be written: {type(err).__name__}: {err}")
            _say(self.notes[-1])
        try:
            start = self.callback.recorded if self.callback is not None else None
            step = self.callback.step if self.callback is not None else None
            report = capture.build(exc, start=start, trainer=self.trainer, step=step, snapshot=snap, notes=self.notes)
            self.written = capture.write_new(self._for_rank(self.path), capture.report_bytes(report))
        except Exception as err:  # the report is extra; the user's OOM must reach them unchanged
            _say(f"could not write the report: {type(err).__name__}: {err}")
            return None
        if self.written != self._for_rank(self.path):
            _say(f"{self._for_rank(self.path)} exists; wrote {self.written} instead")
        if not self.quiet:
            where = f" in {report.phase}" if report.phase else ""
            step_text = f" at step {report.global_step}" if report.global_step is not None else ""
            _say(f"out of memory{where}{step_text}; report: {self.written}  (triage diagnose --report {self.written})")
        return self.written

    @staticmethod
    def _for_rank(path: Path) -> Path:
        """``report-rank1.json`` in a run of several processes (``RANK`` and ``WORLD_SIZE`` set), else ``path``."""
        rank, world = os.environ.get("RANK", ""), os.environ.get("WORLD_SIZE", "")
        if rank.isdigit() and world.isdigit() and int(world) > 1:
            return path.with_name(f"{path.stem}-rank{rank}{path.suffix}")
        return path

    def _dump_snapshot(self) -> str | None:
        if not self.recording:
            return None
        import pickle

        from triage.watch import capture

        torch = sys.modules["torch"]
        data = pickle.dumps(torch.cuda.memory._snapshot())
        target = capture.write_new(self._for_rank(self.path.with_name(DEFAULT_SNAPSHOT)), data)
        _say(f"memory snapshot: {target}  (triage diagnose --snapshot {target})")
        return str(target)


def watch(trainer: Any = None, snapshot: bool = False, path: str | Path = DEFAULT_REPORT) -> Watch:
    """Watch the code in a ``with`` block; with ``trainer``, also record its settings at the start of training."""
    return Watch(trainer=trainer, snapshot=snapshot, path=path)


def __getattr__(name: str) -> Any:
    if name == "TriageCallback":  # imports transformers, so only when asked for
        from triage.watch.callback import TriageCallback

        return TriageCallback
    raise AttributeError(f"module 'triage.watch' has no attribute {name!r}")


class _CallableModule(types.ModuleType):
    """``triage.watch(...)`` calls :func:`watch` whether ``triage.watch`` was reached as the module or the name."""

    def __call__(self, trainer: Any = None, snapshot: bool = False, path: str | Path = DEFAULT_REPORT) -> Watch:
        return watch(trainer=trainer, snapshot=snapshot, path=path)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["DEFAULT_REPORT", "TriageCallback", "Watch", "watch"]
