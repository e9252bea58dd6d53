"""The main screen: the conversation, the live ranking and the memory panel."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, ClassVar, cast

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Input

from triage.interview import InterviewError
from triage.render.explain import explain
from triage.render.strings import t
from triage.tui.messages import DetailsRequested, RemedyToggled, ReplyChosen, TextSubmitted
from triage.tui.plain import unify_line_breaks
from triage.tui.widgets.chat_input import ChatInput
from triage.tui.widgets.conversation import Conversation
from triage.tui.widgets.memory import MemoryPanel
from triage.tui.widgets.ranking import RankingPane
from triage.tui.widgets.replies import QuickReplies

if TYPE_CHECKING:
    from triage.tui.app import TriageApp

PLACEHOLDER = {"en": "type an answer, or paste an error / log / config", "zh": "输入答案，或粘贴报错 / 日志 / 配置"}


class MainScreen(Screen[None]):
    """Everything at once; every action has a key, shown in the footer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "reply('1')", "Answer", key_display="1-9"),
        *[Binding(str(n), f"reply('{n}')", show=False) for n in range(2, 10)],
        Binding("0", "reply('0')", "Unsure"),
        Binding("slash", "focus_input", "Type", key_display="/"),
        Binding("b", "back", "Back"),
        Binding("c", "change", "Edit"),
        Binding("d", "details", "Info"),
        Binding("l", "lang", "Lang"),
        Binding("p", "plan", "Plan"),
        Binding("e", "export", "Report"),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("q", "app.quit", "Quit", show=False),
        Binding("escape", "leave_input", show=False),
    ]

    @property
    def triage(self) -> TriageApp:
        return cast("TriageApp", self.app)

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="body"):
            with Vertical(id="chat"):
                yield Conversation(id="conversation")
                yield QuickReplies(id="replies")
                yield ChatInput(id="input")
            with Vertical(id="side"):
                yield RankingPane(id="ranking")
                yield MemoryPanel(id="memory")
        yield Footer(compact=True)

    #: Actions whose keys type into the input while it has focus: hidden from the footer then.
    TYPING_HIDES = frozenset({"reply", "focus_input", "back", "change", "details", "lang", "plan", "export", "help"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.TYPING_HIDES and isinstance(self.focused, ChatInput):
            return False
        # no plan to try (the run fits, or is not estimated): the key is hidden
        return action != "plan" or bool(self.triage.plan())

    def on_mount(self) -> None:
        self.redraw()
        replies = self.query_one(QuickReplies)
        (replies if replies.display else self.query_one(RankingPane)).focus()

    def on_resize(self) -> None:
        self.redraw_memory()

    # ---- drawing

    def redraw(self) -> None:
        app = self.triage
        interview = app.interview
        lang = interview.lang
        self.title = "triage"
        self.sub_title = "OOM interview" if lang == "en" else "显存问诊"
        self.query_one(Conversation).show(interview)
        self.query_one(QuickReplies).show(interview.replies())
        self.query_one(RankingPane).show(interview.diagnosis, app.savings())
        self.refresh_bindings()
        self.query_one(ChatInput).placeholder = PLACEHOLDER[lang]
        self.redraw_memory()

    def redraw_memory(self) -> None:
        app = self.triage
        self.query_one(MemoryPanel).show(app.memory_view(), app.whatif_remedies(), app.interview.lang)

    def _after_turn(self) -> None:
        self.triage.applied = ()
        self.redraw()
        if self.query_one(ChatInput).has_focus:
            return
        replies = self.query_one(QuickReplies)
        (replies if replies.display else self.query_one(RankingPane)).focus()

    # ---- answering

    def _do(self, move: str, *args: str) -> None:
        interview = self.triage.interview
        before = tuple(interview.turns)
        try:
            getattr(interview, move)(*args)
            self._after_turn()
        except InterviewError as exc:
            self.notify(str(exc), severity="error", markup=False)
        except Exception as exc:  # a bug in triage: the chat goes on without this turn (TRIAGE_DEBUG=1 raises)
            if os.environ.get("TRIAGE_DEBUG"):
                raise
            interview.rollback(before)
            self._after_turn()
            said = t("tui_internal_error", interview.lang).format(error=f"{type(exc).__name__}: {exc}")
            self.notify(said, severity="error", markup=False, timeout=30)

    def action_reply(self, key: str) -> None:
        if self.triage.interview.question is None:
            self.notify(
                "no question to answer: press / to type"
                if self.triage.interview.lang == "en"
                else "当前没有问题：按 / 输入文字",
                severity="warning",
            )
            return
        self._do("press", key)

    @on(ReplyChosen)
    def _reply_chosen(self, event: ReplyChosen) -> None:
        self.action_reply(event.key)

    @on(Input.Submitted, "#input")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value
        event.input.value = ""
        if text.strip():
            self._do("tell", text)

    @on(TextSubmitted)
    def _pasted(self, event: TextSubmitted) -> None:
        self._do("tell", event.text)

    def on_paste(self, event: events.Paste) -> None:
        """A paste while the replies or the ranking have focus goes to the text box (the text box takes its own)."""
        event.stop()
        chat = self.query_one(ChatInput)
        if "\n" not in unify_line_breaks(event.text).strip():
            chat.focus()  # one line: inserted, so it can be edited before it is sent
        chat.take_paste(event.text)

    def action_focus_input(self) -> None:
        self.query_one(ChatInput).focus()

    def action_leave_input(self) -> None:
        replies = self.query_one(QuickReplies)
        (replies if replies.display else self.query_one(RankingPane)).focus()

    def action_back(self) -> None:
        if self.triage.interview.back() is None:
            self.notify("nothing to take back" if self.triage.interview.lang == "en" else "没有可撤回的回答")
        self._after_turn()

    def action_change(self) -> None:
        from triage.tui.screens.answers import AnswersScreen

        interview = self.triage.interview
        answers = [
            (t.fact, interview.kb.facts[t.fact].question.get(interview.lang), interview.answer_label(t))
            for t in interview.answered
            if t.fact is not None
        ]
        if not answers:
            self.notify("no answers yet" if interview.lang == "en" else "还没有回答")
            return

        def reopen(fact: str | None) -> None:
            if fact is not None:
                interview.reopen(fact)
                self.redraw()
                self.query_one(QuickReplies).focus()

        self.app.push_screen(AnswersScreen(answers, interview.lang), reopen)

    def action_lang(self) -> None:
        self.triage.interview.toggle_lang()
        self.redraw()

    # ---- details, export, help

    def action_details(self, entity_id: str | None = None) -> None:
        from triage.tui.screens.details import DetailsScreen

        interview = self.triage.interview
        ranking = self.query_one(RankingPane)
        entity_id = entity_id or (ranking.highlighted_id if ranking.has_focus else None)
        if entity_id is None and interview.diagnosis.causes:
            entity_id = interview.diagnosis.causes[0].id
        entity = interview.kb.entity(entity_id) if entity_id else None
        if entity is None:
            return
        self.app.push_screen(DetailsScreen(explain(interview.kb, entity, interview.lang)))

    @on(DetailsRequested)
    def _details_requested(self, event: DetailsRequested) -> None:
        self.action_details(event.entity_id)

    @on(RemedyToggled)
    def _toggled(self, event: RemedyToggled) -> None:
        self.triage.applied = event.remedy_ids
        self.redraw_memory()

    def action_plan(self) -> None:
        """Apply the cheapest plan that fits as a what-if (again: back to the run as it is)."""
        app = self.triage
        plan = app.plan()
        if not plan:
            lang = app.interview.lang
            self.notify(
                "no plan to try: the run fits, or its size is not known"
                if lang == "en"
                else "没有可试用的方案：已放得下，或无法估算"
            )
            return
        app.applied = () if app.applied == plan else plan
        self.redraw_memory()

    def action_export(self) -> None:
        from triage.tui.screens.export import ExportScreen

        report, where = self.triage.export()
        self.app.push_screen(ExportScreen(report, where))

    def action_help(self) -> None:
        from triage.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.triage.interview.lang))
