"""The full explanation of a cause, remedy or myth: the same text as ``triage explain``."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown


class DetailsScreen(ModalScreen[None]):
    """A scrollable markdown view; Escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Close")]

    def __init__(self, markdown: str) -> None:
        super().__init__()
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="details-body"):
            yield Markdown(self.markdown, id="details")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#details-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
