"""The free-text input: one line typed, or a whole traceback pasted."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import Input

from triage.tui.messages import TextSubmitted


class ChatInput(Input):
    """An Input that passes multi-line pastes on whole instead of keeping only their first line.

    While it has focus the footer shows only what works when typing (the
    screen hides its single-letter keys then).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send"),
        Binding("escape", "screen.leave_input", "Stop typing", key_display="esc"),
    ]

    def _on_paste(self, event: events.Paste) -> None:
        if "\n" in event.text.strip():
            event.stop()
            event.prevent_default()
            self.post_message(TextSubmitted(event.text))
            return
        super()._on_paste(event)
