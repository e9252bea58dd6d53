"""The free-text input: one line typed, or a whole traceback pasted."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import Input

from triage.tui.messages import TextSubmitted
from triage.tui.plain import one_line, unify_line_breaks


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
        # Textual calls ``_on_paste`` of every class in the MRO until the default is prevented:
        # this handler does the whole job, so Input's (which would insert the text again) never runs.
        event.stop()
        event.prevent_default()
        self.take_paste(event.text)

    def take_paste(self, text: str) -> None:
        """A paste: several lines are sent at once (with what was typed before them), one line is inserted.

        Terminals send pasted line breaks as CR (tmux, most emulators), CRLF or
        LF; all three count.
        """
        text = unify_line_breaks(text)
        if "\n" in text.strip():
            typed = self.value.strip()
            self.value = ""
            self.post_message(TextSubmitted(f"{typed}\n{text}" if typed else text))
            return
        line = one_line(text.strip("\n"))
        if not line:
            return
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(line)
        else:
            self.replace(line, *selection)
