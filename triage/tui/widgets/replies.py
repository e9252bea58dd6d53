"""Quick replies to the current question: an option list whose ids are the answer keys."""

from __future__ import annotations

from textual import on
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from triage.interview import Reply
from triage.tui.messages import ReplyChosen
from triage.tui.plain import shown


class QuickReplies(OptionList):
    """``1 yes``, ``2 no``, ``0 don't know``: Enter or a click answers, as do the number keys."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]  # labels are shown as written

    def show(self, replies: list[Reply]) -> None:
        self.clear_options()
        # a number question's values other than 1-9 have no number key: they are chosen from the list
        self.add_options([Option(f"{r.key if r.key.isdigit() else ' '}  {shown(r.label)}", id=r.key) for r in replies])
        self.display = bool(replies)
        if replies:
            self.highlighted = 0

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(ReplyChosen(event.option.id))
