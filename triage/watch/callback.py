"""``TriageCallback``: a transformers ``TrainerCallback`` that records the run's settings at the start.

With ``triage.watch(trainer=trainer)`` it is added for you and the ``with``
block catches the OOM. Added on its own (``Trainer(callbacks=[TriageCallback()])``)
it catches an OOM that ends the program: at the start of training it chains
itself into ``sys.excepthook`` (restored at the end of training), which Python
calls for an uncaught exception before printing it. An OOM that your own code
catches is not seen that way; wrap the call in ``triage.watch()`` for that.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType
from typing import Any

from transformers import TrainerCallback  # type: ignore[import-not-found, unused-ignore]

from triage.watch import DEFAULT_REPORT, Watch
from triage.watch import capture as _capture


class TriageCallback(TrainerCallback):  # type: ignore[misc, unused-ignore]
    """Records TrainingArguments, the model and peft configs and the parameter counts at ``on_train_begin``,
    and the global step at every step."""

    def __init__(self, path: str | Path = DEFAULT_REPORT, catch: bool = True) -> None:
        self.path = Path(path)
        self.catch = catch
        self.recorded: dict[str, Any] | None = None
        self.step: int | None = None
        self._previous_hook: Any = None

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        notes: list[str] = []
        self.recorded = _capture.settings(args=args, model=model, notes=notes)
        self.recorded["notes"] = notes
        self.step = state.global_step
        if self.catch and self._previous_hook is None:
            self._previous_hook = sys.excepthook
            sys.excepthook = self._excepthook

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.step = state.global_step

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._restore()

    def _restore(self) -> None:
        if self._previous_hook is not None:
            if sys.excepthook == self._excepthook:
                sys.excepthook = self._previous_hook
            self._previous_hook = None

    def _excepthook(self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        previous = self._previous_hook or sys.__excepthook__
        watcher = Watch(path=self.path)
        watcher.callback = self
        watcher.record(exc)
        self._restore()
        previous(kind, exc, tb)
