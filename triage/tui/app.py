"""The Textual app, built by :func:`make_app` from an :class:`~triage.interview.Interview`."""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import ClassVar

from textual.app import App

from triage.interview import Interview
from triage.kb.models import Remedy
from triage.report import render_report
from triage.tui.screens.export import write_new
from triage.tui.screens.main import MainScreen
from triage.tui.whatif import Estimator, MemoryView, gib, load_estimator, memory_view, saving

STYLES = Path(__file__).parent / "styles"


class TriageApp(App[None]):
    """Holds the interview (the pure state); screens render it and call its moves."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [STYLES / "app.tcss", STYLES / "main.tcss", STYLES / "modals.tcss"]
    TITLE = "triage"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, interview: Interview, *, estimator: Estimator | None, export_dir: Path) -> None:
        super().__init__()
        self.interview = interview
        self.estimator = estimator
        self.export_dir = export_dir
        self.applied: tuple[str, ...] = ()
        """Remedies switched on in the what-if panel."""
        self.last_export: Path | None = None

    def on_mount(self) -> None:
        self.push_screen(MainScreen())

    # ---- memory

    def whatif_remedies(self) -> list[Remedy]:
        """The remedies of the diagnosis that declare a change to the run, best first."""
        return [
            rr.remedy for rr in self.interview.diagnosis.remedies if rr.remedy.changes and rr.applicable is not False
        ]

    def memory_view(self) -> MemoryView:
        kb = self.interview.kb
        remedies = [kb.remedies[r] for r in self.applied if r in kb.remedies]
        return memory_view(kb, self.interview.facts, self.estimator, remedies)

    def savings(self) -> dict[str, str]:
        out = {}
        for rr in self.interview.diagnosis.remedies:
            saved = saving(self.interview.kb, self.interview.facts, self.estimator, rr.remedy)
            if saved is not None:
                out[rr.remedy.id] = ("saves " if self.interview.lang == "en" else "节省 ") + gib(saved)
        return out

    # ---- export

    def memory_lines(self) -> list[str]:
        view = self.memory_view()
        if not view.available:
            return []
        lines = [f"{b.name}: {gib(b.bytes)}" for b in view.components]
        total = f"total {gib(view.total)}"
        if view.capacity:
            total += f" of {gib(view.capacity)}: " + ("fits" if view.fits else "does not fit")
        if view.applied:
            total += f" (with {', '.join(view.applied)})"
        return [*lines, total]

    def report(self) -> str:
        iv = self.interview
        return render_report(
            iv.kb,
            iv.diagnosis,
            transcript=iv.transcript(),
            pasted=iv.pasted(),
            memory=self.memory_lines(),
            savings=self.savings(),
        )

    def export(self) -> tuple[str, str]:
        """Write the report to a new file; returns the report and a line saying where it went."""
        text = self.report()
        try:
            path = write_new(self.export_dir, text)
        except OSError as exc:
            return text, f"could not write the report: {exc}; it is copied to the clipboard"
        finally:
            self.copy_to_clipboard(text)
        self.last_export = path
        return text, f"report written to {path} (and copied to the clipboard)"


def make_app(
    interview: Interview,
    *,
    estimator: Estimator | None = None,
    use_estimator: bool = True,
    export_dir: Path | None = None,
) -> TriageApp:
    """The app for ``interview``; the estimator of :mod:`triage.estimate` is used when installed."""
    if estimator is None and use_estimator:
        estimator = load_estimator()
    return TriageApp(interview, estimator=estimator, export_dir=export_dir or Path.cwd())
