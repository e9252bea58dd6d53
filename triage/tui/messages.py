"""The TUI's own messages: small dataclasses, one place."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class ReplyChosen(Message):
    """A quick reply was chosen (by number key, Enter or click)."""

    key: str


@dataclass
class TextSubmitted(Message):
    """The user typed or pasted free text."""

    text: str


@dataclass
class DetailsRequested(Message):
    """Open the full explanation of a cause, remedy or myth."""

    entity_id: str


@dataclass
class RemedyToggled(Message):
    """A what-if remedy was switched on or off in the memory panel."""

    remedy_ids: tuple[str, ...]
    """All remedies switched on now."""
