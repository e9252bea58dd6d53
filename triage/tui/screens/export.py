"""Export: the markdown report written to a new file (and offered to the clipboard), with a preview."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown, Static


def write_new(directory: Path, text: str, stem: str = "triage-report") -> Path:
    """Write ``text`` to ``stem.md`` in ``directory``, or ``stem-2.md``...: never overwrites a file."""
    for n in range(1, 1000):
        path = directory / (f"{stem}.md" if n == 1 else f"{stem}-{n}.md")
        try:
            with open(path, "x", encoding="utf-8") as fh:
                fh.write(text)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"too many reports in {directory}")


class ExportScreen(ModalScreen[None]):
    """Shows where the report went and what it says."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Close")]

    def __init__(self, report: str, where: str) -> None:
        super().__init__()
        self.report = report
        self.where = where

    def compose(self) -> ComposeResult:
        yield Static(self.where, id="export-where", markup=False)
        with VerticalScroll(id="export-body"):
            yield Markdown(self.report, id="export-preview")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#export-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
