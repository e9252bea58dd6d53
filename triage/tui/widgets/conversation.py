"""The conversation pane: the interview's turns as messages, rebuilt from its state in its language."""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from triage.interview import Interview, summarize_taken
from triage.render.contract import evidence_state
from triage.render.strings import t
from triage.tui.plain import shown

Role = Literal["assistant", "question", "user", "note"]

#: Longest pasted text shown in the conversation, in lines.
SHOWN_LINES = 8


def _shorten(text: str, lang: str) -> str:
    lines = text.strip().splitlines()
    if len(lines) <= SHOWN_LINES:
        return "\n".join(lines)
    return "\n".join(lines[:SHOWN_LINES]) + f"\n… ({len(lines) - SHOWN_LINES} {t('chat_more', lang)})"


def messages(interview: Interview) -> list[tuple[Role, str]]:
    """The conversation so far, in the interview's current language."""
    lang = interview.lang
    out: list[tuple[Role, str]] = [("assistant", t("chat_intro", lang))]
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
            if turn.also_taken.facts:
                out.append(("note", summarize_taken(interview.kb, turn.also_taken, lang)))
    question = interview.question
    if question is not None:
        prefix = t("chat_changing", lang) + " " if interview.reopened else ""
        out.append(("question", f"{prefix}{interview.question_text(question)}\n({interview.help_text(question)})"))
    else:
        top = interview.diagnosis.causes[0] if interview.diagnosis.causes else None
        if top is not None and top.scored.fired and evidence_state(interview.diagnosis) == "indicated":
            out.append(
                ("assistant", f"{t('chat_done', lang)} {top.scored.cause.title.get(lang)} ({top.probability:.0%})")
            )
        else:
            out.append(("assistant", t("chat_undecided", lang)))
    return out


def render_message(role: Role, text: str) -> Text:
    """One message as plain text (never markup): the question in bold above its hint, user text made safe."""
    text = shown(text)
    if role != "question":
        return Text(text)
    question, _, hint = text.partition("\n")
    return Text.assemble((question, "bold"), ("\n" + hint if hint else "", "dim"))


class Conversation(VerticalScroll, can_focus=False):
    """The messages, newest at the bottom; the current question is always in view."""

    def show(self, interview: Interview) -> None:
        self.remove_children()
        self.mount_all(
            Static(render_message(role, text), classes=f"message {role}", markup=False)
            for role, text in messages(interview)
        )
        self.call_after_refresh(self.scroll_to_last)

    def scroll_to_last(self) -> None:
        """Scroll to the end, but never past the top of the last message (a long hint must not hide its question)."""
        if self.children:
            self.scroll_to_widget(self.children[-1], top=True, animate=False)
