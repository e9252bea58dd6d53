"""The free-text input: one line typed, or a whole traceback pasted."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from triage.tui.messages import TextSubmitted


class ChatInput(Input):
    """An Input that passes multi-line pastes on whole instead of keeping only their first line."""

    def _on_paste(self, event: events.Paste) -> None:
        if "\n" in event.text.strip():
            event.stop()
            event.prevent_default()
            self.post_message(TextSubmitted(event.text))
            return
        super()._on_paste(event)
