"""The conversation pane: the interview's turns as messages, rebuilt from its state in its language."""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from triage.interview import Interview, summarize_taken

Role = Literal["assistant", "user", "note"]

#: Longest pasted text shown in the conversation, in lines.
SHOWN_LINES = 8

WORDS: dict[str, dict[str, str]] = {
    "intro": {
        "en": "Tell me what you see: paste the error or the log, or answer my questions. "
        "Number keys answer, / types, ? shows the keys.",
        "zh": "告诉我你看到了什么：粘贴报错或日志，或者回答我的问题。数字键回答，/ 输入文字，? 查看按键。",
    },
    "changing": {"en": "Changing your earlier answer:", "zh": "修改之前的回答："},
    "done": {"en": "I have nothing more worth asking. Most likely:", "zh": "没有更值得问的问题了。最可能的原因："},
    "undecided": {
        "en": "I have nothing more worth asking, and no cause stands out. Tell me more in your own words.",
        "zh": "没有更值得问的问题了，也没有哪个原因明显领先。请用自己的话多说一些。",
    },
    "more": {"en": "more lines", "zh": "行未显示"},
}


def _shorten(text: str, lang: str) -> str:
    lines = text.strip().splitlines()
    if len(lines) <= SHOWN_LINES:
        return "\n".join(lines)
    return "\n".join(lines[:SHOWN_LINES]) + f"\n… ({len(lines) - SHOWN_LINES} {WORDS['more'][lang]})"


def messages(interview: Interview) -> list[tuple[Role, str]]:
    """The conversation so far, in the interview's current language."""
    lang = interview.lang
    out: list[tuple[Role, str]] = [("assistant", WORDS["intro"][lang])]
    if interview.start.text:
        out.append(("user", _shorten(interview.start.text, lang)))
    if interview.start.facts or interview.start.notes:
        out.append(("note", summarize_taken(interview.kb, interview.start, lang)))
    for turn in interview.turns:
        if turn.kind == "text":
            out.append(("user", _shorten(turn.said, lang)))
            out.append(("note", summarize_taken(interview.kb, turn.taken, lang)))
        elif turn.fact is not None:
            out.append(("assistant", interview.kb.facts[turn.fact].question.get(lang)))
            out.append(("user", interview.answer_label(turn)))
    question = interview.question
    if question is not None:
        prefix = WORDS["changing"][lang] + " " if interview.reopened else ""
        out.append(("assistant", f"{prefix}{interview.question_text(question)}\n({interview.help_text(question)})"))
    else:
        top = interview.diagnosis.causes[0] if interview.diagnosis.causes else None
        if top is not None and top.scored.fired:
            out.append(
                ("assistant", f"{WORDS['done'][lang]} {top.scored.cause.title.get(lang)} ({top.probability:.0%})")
            )
        else:
            out.append(("assistant", WORDS["undecided"][lang]))
    return out


class Conversation(VerticalScroll, can_focus=False):
    """The messages, newest at the bottom."""

    def show(self, interview: Interview) -> None:
        self.remove_children()
        self.mount_all(
            Static(Text(text), classes=f"message {role}", markup=False) for role, text in messages(interview)
        )
        self.call_after_refresh(self.scroll_end, animate=False)
