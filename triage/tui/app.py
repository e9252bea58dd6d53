"""The Textual app, built by :func:`make_app` from an :class:`~triage.interview.Interview`."""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import ClassVar

from textual.app import App

from triage.interview import Interview
from triage.kb.models import Remedy
from triage.render.contract import outcome_dict
from triage.render.report import render_report
from triage.render.strings import t
from triage.tui.screens.export import write_new
from triage.tui.screens.main import MainScreen
from triage.tui.whatif import MemoryView, gib, memory_view, saving_label

STYLES = Path(__file__).parent / "styles"


class TriageApp(App[None]):
    """Holds the interview (the pure state); screens render it and call its moves."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [STYLES / "app.tcss", STYLES / "main.tcss", STYLES / "modals.tcss"]
    TITLE = "triage"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, interview: Interview, *, export_dir: Path) -> None:
        super().__init__()
        self.interview = interview
        self.export_dir = export_dir
        self.applied: tuple[str, ...] = ()
        """Remedies switched on in the what-if panel."""
        self.last_export: Path | None = None

    def on_mount(self) -> None:
        self.push_screen(MainScreen())

    # ---- memory

    def whatif_remedies(self) -> list[Remedy]:
        """The remedies of the diagnosis that declare a change to the run, best first (the planner's candidates)."""
        return [
            rr.remedy for rr in self.interview.diagnosis.remedies if rr.remedy.changes and rr.applicable is not False
        ]

    def memory_view(self) -> MemoryView:
        """The estimate of the run with the what-if remedies applied."""
        iv = self.interview
        remedies = [iv.kb.remedies[r] for r in self.applied if r in iv.kb.remedies]
        return memory_view(iv.memory, iv.diagnosis.session.facts, remedies)

    def plan(self) -> tuple[str, ...]:
        """The remedies of the cheapest plan that fits (empty when there is none or nothing is needed)."""
        plan = self.interview.memory.plan
        return tuple(s.remedy_id for s in plan.steps) if plan is not None else ()

    def savings(self) -> dict[str, str]:
        """Each remedy's saving on this run as the ranking shows it (the diagnosis' own numbers)."""
        lang = self.interview.lang
        memory = self.interview.memory
        fitted = memory.estimate.fits if memory.estimate is not None else None
        out = {}
        for rr in self.interview.diagnosis.remedies:
            label = saving_label(rr.saving_bytes, lang)
            done = memory.outcomes.get(rr.remedy.id)
            after = outcome_dict(done, lang, fitted)["label"] if done and (done.targets or done.unsized) else None
            said = " · ".join(x for x in (label, after) if x)
            if said:
                out[rr.remedy.id] = said
        return out

    # ---- export

    def whatif_lines(self) -> list[str]:
        """The what-if currently applied, for the report, in the interview's language."""
        view = self.memory_view()
        if not self.applied:
            return []
        lang = self.interview.lang
        applied = ", ".join(self.applied)
        if not view.available:
            why = (view.reason_zh if lang == "zh" and view.reason_zh else view.reason) or t("report_gpu_unknown", lang)
            if view.unapplicable:
                why = t("whatif_cannot_apply", lang).format(why=why)
            return [t("whatif_with", lang).format(applied=applied, what=why)]
        what = gib(view.expected)
        if view.capacity:
            verdict = t("fits" if view.fits else "does_not_fit", lang)
            what = t("whatif_of", lang).format(used=what, capacity=gib(view.capacity), verdict=verdict)
        elif view.needs:
            what = f"{what} ({t('report_gpu_unknown', lang)})"
        line = t("whatif_with", lang).format(applied=applied, what=what)
        if view.unsized:
            return [t("whatif_unsized", lang).format(line=line, why=t(f"outcome_unsized_{view.unsized}", lang))]
        return [f"{line} ({saving_label(view.saved, lang)})"]

    def report(self) -> str:
        iv = self.interview
        return render_report(
            iv.kb,
            iv.diagnosis,
            memory=iv.memory,
            transcript=iv.transcript(),
            pasted=iv.pasted(),
            whatif=self.whatif_lines(),
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


def make_app(interview: Interview, *, export_dir: Path | None = None) -> TriageApp:
    """The app for ``interview``; reports are written to ``export_dir`` (default: the working directory)."""
    return TriageApp(interview, export_dir=export_dir or Path.cwd())
