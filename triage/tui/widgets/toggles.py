"""The what-if check list: one row per remedy, ``[x]`` when it is tried; titles wrap at word boundaries.

Textual's SelectionList draws each option on one line, so a long remedy
title was cut ("Lower the maximum sequence len…") and its check box differed
from the unchecked one only by colour. Here the box reads ``[x]`` or ``[ ]``
and the title wraps beside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from triage.tui.messages import RemedyToggled
from triage.tui.widgets.hanging import hanging

ON, OFF = "[x] ", "[ ] "


class RemedyToggles(OptionList):
    """Space, Enter or a click switches the highlighted remedy; each switch posts :class:`RemedyToggled`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("space", "switch", "Try", show=False)]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]
        self.entries: list[tuple[str, str]] = []
        """(title, remedy id) in the order shown."""
        self.chosen: set[str] = set()

    @property
    def selected(self) -> list[str]:
        """The remedies switched on, in the order shown."""
        return [rid for _, rid in self.entries if rid in self.chosen]

    def show(self, entries: list[tuple[str, str]], chosen: Iterable[str]) -> None:
        """List ``entries`` with ``chosen`` ticked (posts nothing: only the user's switches do)."""
        keep = self.highlighted
        self.entries = entries
        self.chosen = set(chosen) & {rid for _, rid in entries}
        self._draw(keep)

    def _draw(self, keep: int | None) -> None:
        self.clear_options()
        self.add_options(
            [
                Option(hanging(Text(ON if rid in self.chosen else OFF), Text(title)), id=rid)
                for title, rid in self.entries
            ]
        )
        if self.entries:
            self.highlighted = min(keep or 0, len(self.entries) - 1)

    def action_switch(self) -> None:
        i = self.highlighted
        if i is None or not 0 <= i < len(self.entries):
            return
        rid = self.entries[i][1]
        (self.chosen.discard if rid in self.chosen else self.chosen.add)(rid)
        self._draw(i)
        self.post_message(RemedyToggled(tuple(self.selected)))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_switch()
