"""Pilot tests: complete interviews driven by keyboard, free text, what-if, export, language, help."""

from __future__ import annotations

from textual import events
from textual.widgets import Markdown, Static

from triage.estimate import estimate, saving
from triage.tui.screens.answers import AnswersScreen
from triage.tui.screens.details import DetailsScreen
from triage.tui.screens.export import ExportScreen
from triage.tui.screens.help import HelpScreen
from triage.tui.screens.main import MainScreen
from triage.tui.widgets.chat_input import ChatInput
from triage.tui.widgets.conversation import Conversation
from triage.tui.widgets.ranking import RankingPane
from triage.tui.widgets.replies import QuickReplies
from triage.tui.widgets.toggles import RemedyToggles

HF = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"


def conversation_text(app) -> str:
    return "\n".join(str(s.content) for s in app.screen.query_one(Conversation).query(Static))


def ranking_labels(app) -> list[str]:
    """The cause rows of the ranking, best first."""
    return [row.text for row in app.screen.query_one(RankingPane).rows if row.kind == "cause"]


def rows_under(app, key: str) -> list[str]:
    return [row.text for row in app.screen.query_one(RankingPane).rows if row.under == key]


def memory_text(app) -> str:
    return str(app.screen.query_one("#mem-bar", Static).content)


def test_complete_interview_answered_by_number_keys(build, drive):
    app = build()

    async def steps(pilot):
        iv = app.interview
        assert iv.question is not None and iv.question.fact == "gradient_checkpointing"
        assert "Is gradient checkpointing enabled?" in conversation_text(app)
        replies = app.screen.query_one(QuickReplies)
        assert app.focused is replies
        assert [o.prompt for o in replies._options] == ["1  yes", "2  no", "0  don't know"]
        await pilot.press("2")
        await pilot.pause()
        assert iv.facts.value("gradient_checkpointing") is False
        assert iv.done
        assert "Most likely: Gradient checkpointing is off" in conversation_text(app)
        assert "Gradient checkpointing is off" in ranking_labels(app)[0]
        assert not replies.display

    drive(app, steps)


def test_dont_know_asks_the_next_question(build, drive):
    app = build(symptom="CUDA out of memory at step 0")

    async def steps(pilot):
        first = app.interview.question.fact
        await pilot.press("0")
        await pilot.pause()
        assert app.interview.turns[-1].kind == "unknown"
        assert app.interview.question is not None and app.interview.question.fact != first

    drive(app, steps)


def test_free_text_answer_and_english_paste(build, drive):
    app = build(symptom=None)
    paste = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    trainer.train()\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "23.69 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 22.62 GiB memory in use. "
        "Of the allocated memory 21.1 GiB is allocated by PyTorch, and 1.2 GiB is reserved by PyTorch but "
        "unallocated.\n  0%|          | 0/1000 [00:03<?, ?it/s]\n"
    )

    async def steps(pilot):
        iv = app.interview
        await pilot.press("slash")
        assert isinstance(app.focused, ChatInput)
        app.focused.post_message(events.Paste(paste))
        await pilot.pause()
        turn = iv.turns[-1]
        assert turn.kind == "text"
        assert "Tried to allocate 2.00 GiB" in iv.text
        taken = {f.name for f in turn.taken.facts}
        assert "gpu_memory_bytes" in taken or "oom_requested_bytes" in taken
        note = next(line for line in conversation_text(app).splitlines() if line.startswith("took "))
        assert note.startswith(f"took {len(turn.taken.facts)} facts from your text: ")
        assert "error_kind=cuda_oom" in note
        # now answer the pending question in words
        question = iv.question
        assert question is not None
        if question.fact == "gradient_checkpointing":
            await pilot.press(*"no, it is off")
            await pilot.press("enter")
            await pilot.pause()
            assert iv.facts.value("gradient_checkpointing") is False
        else:
            await pilot.press(*"don't know")
            await pilot.press("enter")
            await pilot.pause()
            assert iv.turns[-1].kind == "unknown"

    drive(app, steps)


def test_chinese_interview_by_free_text(build, drive):
    app = build(symptom=None, lang="zh")

    async def steps(pilot):
        iv = app.interview
        await pilot.press("slash")
        await pilot.press(*"3090 上 LoRA 微调 LLaMA-7B，max_length 2048，第一步就 CUDA out of memory")
        await pilot.press("enter")
        await pilot.pause()
        assert iv.turns[-1].kind == "text"
        assert iv.question is not None and iv.question.fact == "gradient_checkpointing"
        assert "是否开启了梯度检查点" in conversation_text(app)
        await pilot.press(*"没开")
        await pilot.press("enter")
        await pilot.pause()
        assert iv.facts.value("gradient_checkpointing") is False
        assert iv.diagnosis.causes[0].id == "gradient-checkpointing-off"
        assert "未开启梯度检查点" in ranking_labels(app)[0]
        assert "最可能的原因" in conversation_text(app) or "没有更值得问的问题" in conversation_text(app)

    drive(app, steps)


def test_changing_an_earlier_answer(build, drive):
    app = build()

    async def steps(pilot):
        iv = app.interview
        await pilot.press("2")  # gradient checkpointing: no
        await pilot.pause()
        assert iv.diagnosis.causes[0].id == "gradient-checkpointing-off"
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, AnswersScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert iv.reopened == "gradient_checkpointing"
        assert "Changing your earlier answer" in conversation_text(app)
        await pilot.press("1")  # yes, it is on
        await pilot.pause()
        assert iv.facts.value("gradient_checkpointing") is True
        assert [t.fact for t in iv.answered] == ["gradient_checkpointing"]
        gc = next(rc for rc in iv.diagnosis.causes if rc.id == "gradient-checkpointing-off")
        assert gc.scored.excluded
        assert "Gradient checkpointing is off" not in ranking_labels(app)[0]

    drive(app, steps)


def test_back_takes_the_answer_back(build, drive):
    app = build()

    async def steps(pilot):
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert app.interview.facts.value("gradient_checkpointing") is None
        assert app.interview.question.fact == "gradient_checkpointing"
        assert app.screen.query_one(QuickReplies).display

    drive(app, steps)


def gib_text(n: int) -> str:
    return f"{n / 1024**3:.1f} GiB"


def test_what_if_remedies_redraw_the_memory_bar_with_the_real_estimator(build, drive):
    app = build()

    async def steps(pilot):
        await pilot.press("2")  # gradient checkpointing off
        await pilot.pause()
        facts = app.interview.diagnosis.session.facts
        before = estimate(facts)  # the estimator itself, called apart from the TUI
        assert before.fits is False
        text = memory_text(app)
        assert f"does not fit: {gib_text(before.device_total.expected)}" in text
        assert f"/ ┃ {gib_text(before.capacity_bytes)} GPU" in text
        assert f"activations {gib_text(before.components['activations'])}" in text
        # the GPU's capacity is marked inside the over-full bar
        bar = text.splitlines()[0]
        assert "┃" in bar and 0 < bar.index("┃") < len(bar) - 1
        # the ranking shows the remedy's saving on this run
        saved = saving(facts, {"gradient_checkpointing": True})
        ranking = app.screen.query_one(RankingPane)
        top = ranking.rows[0]
        remedy_labels = [
            r.text for r in ranking.rows if r.under == top.key and r.entity_id == "enable-gradient-checkpointing"
        ]
        assert remedy_labels and f"saves {gib_text(saved)}" in remedy_labels[0]
        toggles = app.screen.query_one("#whatif", RemedyToggles)
        assert toggles.display
        toggles.focus()
        await pilot.pause()
        ids = [toggles.get_option_at_index(i).id for i in range(toggles.option_count)]
        toggles.highlighted = ids.index("enable-gradient-checkpointing")
        await pilot.press("space")
        await pilot.pause()
        assert app.applied == ("enable-gradient-checkpointing",)
        after = estimate({**{n: f.value for n, f in facts.items()}, "gradient_checkpointing": True})
        assert after.fits is True
        text = memory_text(app)
        assert f"✓ fits: {gib_text(after.device_total.expected)}" in text
        assert f"saves {gib_text(before.device_total.expected - after.device_total.expected)}" in text
        await pilot.press("space")
        await pilot.pause()
        assert app.applied == ()
        assert "does not fit" in memory_text(app)

    drive(app, steps, size=(120, 40))


def test_the_plan_is_shown_and_applied_with_one_key(build, drive):
    app = build()

    async def steps(pilot):
        await pilot.press("2")
        await pilot.pause()
        plan = app.interview.memory.plan
        assert plan is not None and plan.fits
        ids = tuple(s.remedy_id for s in plan.steps)
        assert "plan: Enable gradient checkpointing → " + gib_text(plan.after.device_total.expected) in memory_text(app)
        await pilot.press("p")
        await pilot.pause()
        assert app.applied == ids
        assert "✓ fits" in memory_text(app)
        toggles = app.screen.query_one("#whatif", RemedyToggles)
        assert tuple(toggles.selected) == ids  # the toggles show what the plan switched on
        await pilot.press("p")  # again: back to the run as it is
        await pilot.pause()
        assert app.applied == ()
        assert not toggles.selected
        assert "does not fit" in memory_text(app)

    drive(app, steps, size=(120, 40))


def test_memory_panel_says_what_it_needs(build, drive):
    app = build(symptom="CUDA out of memory")

    async def steps(pilot):
        text = memory_text(app)
        assert "To estimate memory I need" in text
        assert "model_name or model_params_b" in text
        assert "the model is unknown" in text  # the estimator's own words
        assert "GiB" not in text
        assert not app.screen.query_one("#whatif", RemedyToggles).display

    drive(app, steps)


def test_memory_panel_says_what_it_needs_in_chinese(build, drive):
    app = build(symptom="CUDA out of memory", lang="zh")

    async def steps(pilot):
        text = memory_text(app)
        assert "要估算显存，我需要知道" in text
        assert "model_name 或 model_params_b" in text
        assert "模型未知" in text and "the model is unknown" not in text

    drive(app, steps)


def test_exported_what_if_line_is_in_the_interview_language(build, drive):
    app = build(symptom="LLaMA-7B LoRA on a 3090, CUDA out of memory at step 0", lang="zh")

    async def steps(pilot):
        remedy = next(r for r in app.whatif_remedies())
        app.applied = (remedy.id,)
        lines = app.whatif_lines()
        assert len(lines) == 1 and lines[0].startswith(f"应用 {remedy.id} 后：")
        assert "with " not in lines[0] and "fits" not in lines[0]

    drive(app, steps)


def test_memory_panel_without_a_gpu_shows_numbers_but_no_verdict(build, drive):
    app = build(symptom="LLaMA-7B LoRA, CUDA out of memory at step 0")

    async def steps(pilot):
        est = app.interview.memory.estimate
        assert est is not None and est.capacity_bytes is None
        text = memory_text(app)
        assert gib_text(est.device_total.expected) in text
        assert "GPU unknown: give gpu_name or gpu_memory_bytes" in text
        assert "fits" not in text and "┃" not in text

    drive(app, steps, size=(120, 40))


def test_footer_shows_only_the_typing_keys_while_typing(build, drive):
    app = build()

    def footer_keys() -> set[str]:
        active = app.screen.active_bindings
        return {b.binding.description for b in active.values() if b.binding.show and b.enabled}

    async def steps(pilot):
        assert {"Answer", "Back", "Report", "Plan", "Help"} <= footer_keys()
        await pilot.press("slash")
        await pilot.pause()
        keys = footer_keys()
        assert {"Send", "Stop typing"} <= keys
        assert not keys & {"Answer", "Back", "Edit", "Info", "Lang", "Report", "Plan", "Type", "Help"}
        await pilot.press("b")  # types, does not take anything back
        await pilot.pause()
        assert app.screen.query_one(ChatInput).value == "b"
        await pilot.press("escape")
        await pilot.pause()
        assert {"Answer", "Back"} <= footer_keys()

    drive(app, steps)


def test_export_writes_a_redacted_report_and_never_overwrites(build, drive, tmp_path):
    app = build(symptom=f"export HF_TOKEN={HF}\nLLaMA-7B LoRA on a 3090, CUDA out of memory at step 0")

    async def steps(pilot):
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        report = (tmp_path / "triage-report.md").read_text()
        assert "**Most likely:** Gradient checkpointing is off" in report
        assert "| `gradient_checkpointing` | False | answer | no |" in report
        assert HF not in report and "[REDACTED:hf-token]" in report
        # the estimator's breakdown, each remedy's saving and the plan are in the report
        assert "### Memory" in report and "| **device total** |" in report
        assert "### Plan" in report and "**Enable gradient checkpointing** — saves " in report
        assert "triage-report.md" in str(app.screen.query_one("#export-where", Static).content)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        await pilot.press("e")
        await pilot.pause()
        assert (tmp_path / "triage-report-2.md").is_file()
        assert (tmp_path / "triage-report.md").read_text() == report

    drive(app, steps)


def test_switching_language(build, drive):
    app = build()

    async def steps(pilot):
        await pilot.press("l")
        await pilot.pause()
        assert app.interview.lang == "zh"
        assert "是否开启了梯度检查点" in conversation_text(app)
        replies = app.screen.query_one(QuickReplies)
        assert [o.prompt for o in replies._options] == ["1  是", "2  否", "0  不知道"]
        assert "未开启梯度检查点" in ranking_labels(app)[0]
        # evidence in Chinese: a text signal's label is English-only, so the matched words are shown
        evidence = rows_under(app, app.screen.query_one(RankingPane).rows[0].key)
        assert any("文本提到“step 0”" in e for e in evidence)
        assert not any("fails at the first step" in e for e in evidence)
        # "on a 3090": one card, since 2026-12-04; "it trained first?" follows from step 0 and is not counted as read
        assert "从你的文本读取到 9 个事实" in conversation_text(app)
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        assert app.interview.lang == "en"
        text = conversation_text(app)
        assert "Is gradient checkpointing enabled?" in text and "\nno" in "\n" + text

    drive(app, steps)


def test_help_screen(build, drive):
    app = build()

    async def steps(pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "take back the last answer" in app.screen.query_one(Markdown).source
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)

    drive(app, steps)


def test_details_of_the_top_cause_and_a_remedy(build, drive):
    app = build()

    async def steps(pilot):
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DetailsScreen)
        source = app.screen.query_one(Markdown).source
        assert source.startswith("# Gradient checkpointing is off")
        assert "## References" in source
        await pilot.press("escape")
        await pilot.pause()
        ranking = app.screen.query_one(RankingPane)
        ranking.focus()
        ranking.highlighted = 0
        await pilot.press("right")  # opens the top cause (at 80x24 the ranking starts with every cause closed)
        await pilot.pause()
        ranking.highlight("remedy", "enable-gradient-checkpointing")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailsScreen)
        assert "### HF Trainer / TRL" in app.screen.query_one(Markdown).source

    drive(app, steps)


def test_survives_resizing(build, drive):
    app = build()

    async def steps(pilot):
        for size in [(60, 18), (200, 60), (80, 24)]:
            await pilot.resize_terminal(*size)
            await pilot.pause()
        await pilot.press("2")
        await pilot.pause()
        assert app.interview.facts.value("gradient_checkpointing") is False
        assert ranking_labels(app)

    drive(app, steps)


def test_a_bug_while_reading_a_reply_keeps_the_chat_and_its_answers(build, drive, monkeypatch):
    """An unexpected error in triage (not the user's input) is one line; the reply is dropped, the chat goes on."""
    import triage.interview as interview_module

    real = interview_module.read_text

    def broken(kb, text):
        if "boom" in text:
            raise KeyError("max sequence length")
        return real(kb, text)

    monkeypatch.setattr(interview_module, "read_text", broken)
    monkeypatch.delenv("TRIAGE_DEBUG", raising=False)
    app = build(symptom="CUDA out of memory at step 0")

    async def steps(pilot):
        iv = app.interview
        await pilot.press("0")  # one answer that must survive
        await pilot.pause()
        kept = list(iv.turns)
        await pilot.press("slash")
        chat = app.screen.query_one(ChatInput)
        chat.post_message(events.Paste("it went boom\nat step 0"))
        await pilot.pause()
        await pilot.pause()
        assert app.is_running
        assert iv.turns == kept
        said = [n.message for n in app._notifications]
        assert any(m.startswith("internal error (KeyError: 'max sequence length')") for m in said)
        chat.post_message(events.Paste("trained fine\nthen OOM at step 0"))  # the next reply is taken as usual
        await pilot.pause()
        await pilot.pause()
        assert len(iv.turns) == len(kept) + 1

    drive(app, steps)


def test_an_answer_in_words_that_says_more_shows_what_else_it_gave(fkb):
    # "3090 上 LoRA 微调 LLaMA-7B，第一步就 OOM" to "in which phase?" answers it (training) and names the model and
    # the card: those are shown, as they would be for a text that answered nothing
    from triage.interview import Interview
    from triage.tui.widgets.conversation import messages

    iv = Interview(fkb)
    assert iv.question is not None and iv.question.fact == "phase"
    turn = iv.tell("3090 上 LoRA 微调 LLaMA-7B，第一步就 CUDA out of memory")
    assert (turn.kind, turn.fact, turn.value) == ("answer", "phase", "training")
    notes = [text for role, text in messages(iv) if role == "note"]
    assert any("model_name=LLaMA-7B" in n and "phase" not in n for n in notes), notes


def test_a_number_question_shows_number_keys_only_where_they_are_the_number(drive):
    """ZeRO stages 0-3: keys 1, 2 and 3 are stages 1, 2 and 3; stage 0 is chosen from the list (0 = don't know)."""
    from triage.api import read
    from triage.interview import Interview
    from triage.kb.loader import load_checked
    from triage.tui.app import make_app

    kb = load_checked()
    iv = Interview(kb, start=read(kb, symptoms=["CUDA out of memory under DeepSpeed on 4 A100s"]), lang="en")
    while iv.question is not None and iv.question.fact != "zero_stage":
        iv.dont_know()
    assert iv.question is not None
    app = make_app(iv)

    async def steps(pilot):
        prompts = [str(o.prompt) for o in app.screen.query_one(QuickReplies)._options]
        assert prompts[:4] == [
            "   stage 0 (nothing sharded)",
            "1  stage 1 (optimizer states sharded)",
            "2  stage 2 (+ gradients sharded)",
            "3  stage 3 (+ weights sharded)",
        ]
        assert prompts[-1] == "0  don't know"
        await pilot.press("3")
        await pilot.pause()
        assert iv.facts.value("zero_stage") == 3

    drive(app, steps)
