"""Pick an earlier answer to change."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from triage.tui.plain import shown

TITLE = {"en": "Which answer do you want to change?", "zh": "要修改哪个回答？"}


class AnswersScreen(ModalScreen[str | None]):
    """The answers so far; Enter returns the fact to ask again, Escape returns None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Cancel")]

    def __init__(self, answers: list[tuple[str, str, str]], lang: str) -> None:
        """``answers``: (fact, question, answer) triples."""
        super().__init__()
        self.answers = answers
        self.lang = lang

    def compose(self) -> ComposeResult:
        yield Static(TITLE.get(self.lang, TITLE["en"]), id="answers-title")
        options = [Option(shown(f"{q} → {a}"), id=fact) for fact, q, a in self.answers]
        yield OptionList(*options, id="answers", markup=False)  # answers are the user's words, shown as written
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#answers").focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
