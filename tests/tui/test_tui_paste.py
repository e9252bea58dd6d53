"""Pilot tests of pasting and of what the TUI shows back: once, whole, any line break, never as markup.

Pastes are posted to the app, which routes them as it routes a terminal's
bracketed paste (to the focused widget, bubbling up to the screen).
test_tui_terminal.py sends the real bytes through tmux.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.geometry import Region
from textual.widget import Widget

from triage import api
from triage.interview import Interview
from triage.tui.app import make_app
from triage.tui.widgets.chat_input import ChatInput
from triage.tui.widgets.conversation import Conversation
from triage.tui.widgets.ranking import RankingPane
from triage.tui.widgets.replies import QuickReplies

FIXTURES = Path(__file__).parent.parent / "fixtures"
TRACEBACK_200 = FIXTURES / "tui" / "paste" / "traceback-200.txt"
OOM_LOGS = sorted((FIXTURES / "ingest" / "oom").glob("*"))


def rendered(widget: Widget) -> str:
    """What ``widget`` draws, line by line, as plain text (borders included)."""
    width, height = widget.outer_size
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, width, height)))


def conversation_drawn(app) -> str:
    return "\n".join(rendered(w) for w in app.screen.query_one(Conversation).children)


def squeezed(text: str) -> str:
    """``text`` without white space and message borders (to find text however it was wrapped)."""
    return "".join(text.replace("█", "").split())


async def paste(pilot, text: str) -> None:
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()
    await pilot.pause()


def test_a_one_line_paste_is_inserted_once(build, drive):
    app = build()

    async def steps(pilot):
        await pilot.press("slash")
        await paste(pilot, "OOM at step 0 on a 3090")
        chat = app.screen.query_one(ChatInput)
        assert chat.value == "OOM at step 0 on a 3090"
        await pilot.press(*" again")
        await paste(pilot, "!\r\n")  # one line with its line break: still one line, inserted at the cursor
        assert chat.value == "OOM at step 0 on a 3090 again!"
        assert app.interview.turns == []

    drive(app, steps)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_a_200_line_paste_arrives_whole_whatever_its_line_breaks(build, drive, fkb, newline):
    text = TRACEBACK_200.read_text()
    expected = {(f.name, f.value) for f in api.read(fkb, logs=[str(TRACEBACK_200)]).facts}
    app = build(symptom=None)

    async def steps(pilot):
        await pilot.press("slash")
        await paste(pilot, text.replace("\n", newline))
        iv = app.interview
        assert len(iv.turns) == 1
        turn = iv.turns[0]
        assert turn.kind == "text"
        assert turn.said == text.strip()  # whole, once, with LF line breaks
        assert {(f.name, f.value) for f in turn.taken.facts} == expected  # what `triage diagnose --log` reads
        assert app.screen.query_one(ChatInput).value == ""
        assert "… (192 more lines)" in conversation_drawn(app)

    drive(app, steps)


@pytest.mark.parametrize("log", OOM_LOGS, ids=[p.name for p in OOM_LOGS])
def test_every_oom_fixture_pasted_with_cr_reads_as_the_log_does(build, drive, fkb, log):
    text = log.read_text(encoding="utf-8", errors="replace")
    if len(text.strip().splitlines()) < 2:
        pytest.skip("one line: typed, not pasted")
    expected = {(f.name, f.value) for f in api.read(fkb, logs=[str(log)]).facts}
    app = build(symptom=None)

    async def steps(pilot):
        await pilot.press("slash")
        await paste(pilot, text.replace("\r\n", "\n").replace("\n", "\r"))
        turn = app.interview.turns[-1]
        assert {(f.name, f.value) for f in turn.taken.facts} == expected

    drive(app, steps)


def test_a_paste_while_the_replies_have_focus_goes_to_the_text_box(build, drive):
    app = build()

    async def steps(pilot):
        assert isinstance(app.focused, QuickReplies)
        await paste(pilot, "CUDA out of memory\rTried to allocate 2.00 GiB\r")
        assert len(app.interview.turns) == 1 and app.interview.turns[0].kind == "text"
        assert app.interview.turns[0].said == "CUDA out of memory\nTried to allocate 2.00 GiB"
        await paste(pilot, "bs 4")  # one line: into the text box, to be edited or sent
        assert isinstance(app.focused, ChatInput) and app.focused.value == "bs 4"
        assert len(app.interview.turns) == 1

    drive(app, steps)


def test_what_was_typed_before_a_multi_line_paste_is_sent_with_it(build, drive):
    app = build(symptom=None)

    async def steps(pilot):
        await pilot.press("slash")
        await pilot.press(*"on a 3090:")
        await paste(pilot, "Traceback (most recent call last):\rtorch.OutOfMemoryError: CUDA out of memory.\r")
        turn = app.interview.turns[-1]
        assert turn.said.split("\n") == [
            "on a 3090:",
            "Traceback (most recent call last):",
            "torch.OutOfMemoryError: CUDA out of memory.",
        ]
        assert app.screen.query_one(ChatInput).value == ""

    drive(app, steps)


MARKUP = "[bold]x[/bold] [link=https://evil.example]click[/link] [red on white]alarm[/]"


def test_user_text_is_shown_as_typed_never_as_markup(build, drive):
    app = build(symptom=None)

    async def steps(pilot):
        await pilot.press("slash")
        await paste(pilot, f"{MARKUP}\rCUDA out of memory at step 0\r")
        assert squeezed(MARKUP) in squeezed(conversation_drawn(app))
        await paste(pilot, MARKUP)  # typed (a one-line paste), then sent with Enter
        await pilot.press("enter")
        await pilot.pause()
        assert squeezed(conversation_drawn(app)).count(squeezed(MARKUP)) == 2

    drive(app, steps)


def test_terminal_sequences_in_user_text_are_not_drawn(build, drive):
    app = build(symptom=None)
    osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # would set the clipboard
    title = "\x1b]0;pwned\x1b\\"
    clear = "\x1b[2J\x1b[31m"

    async def steps(pilot):
        await pilot.press("slash")
        await paste(pilot, f"{osc52}CUDA out of memory{title}\r{clear}at step 0\x07\r")
        drawn = conversation_drawn(app)
        assert "CUDA out of memory" in drawn and "at step 0␇" in drawn
        assert "\x1b" not in drawn and "\x07" not in drawn and "52;c" not in drawn and "pwned" not in drawn
        # the readers get the text as pasted (they strip colour codes themselves)
        assert app.interview.turns[-1].said.startswith(osc52)

    drive(app, steps)


def test_at_80x24_the_current_question_stays_in_view(kb, drive, tmp_path):
    # the review's case, with the shipped knowledge: the phase question, whose hint is taller than the pane
    # (the settings that would move the estimate are stated, so no memory question comes before it)
    settled = api.parse_facts(kb, ["gradient_checkpointing=false", "attn_implementation=sdpa", "torch_dtype=bf16"])
    start = api.read(kb, symptoms=["LLaMA-7B LoRA on a 3090, OOM at step 0"], facts=settled)
    app = make_app(Interview(kb, start=start), export_dir=tmp_path)

    async def steps(pilot):
        conversation = app.screen.query_one(Conversation)
        question = app.interview.question
        assert question is not None
        last = conversation.children[-1]
        assert last.has_class("question")
        height = conversation.scrollable_content_region.height
        assert last.outer_size.height > height  # the case that hid the question
        top = last.virtual_region.y - conversation.scroll_y
        assert top == 0  # its first line, the question, at the top of the pane
        assert squeezed(app.interview.question_text(question)) in squeezed(rendered(last))

    drive(app, steps, size=(80, 24))


def test_titles_wrap_at_word_boundaries(build, drive):
    app = build()

    async def steps(pilot):
        ranking = app.screen.query_one(RankingPane)
        drawn = rendered(ranking)
        words = " ".join(drawn.replace("│", " ").replace("╭", " ").replace("╰", " ").split())
        top = ranking.rows[0]
        title = top.body.plain.split("% ", 1)[1]
        assert title == "Gradient checkpointing is off"
        assert title in words, drawn  # wrapped, but every word whole and in order
        assert max(len(line) for line in drawn.splitlines()) <= ranking.outer_size.width

    drive(app, steps, size=(80, 24))


def test_a_question_taller_than_its_pane_is_shown_from_its_first_line(build, drive):
    app = build()

    async def steps(pilot):
        await pilot.press("slash")
        await paste(pilot, "on a 3090\rstep 0\r")  # a turn before it, so there is something to scroll past
        conversation = app.screen.query_one(Conversation)
        last = conversation.children[-1]
        assert last.has_class("question")
        assert last.outer_size.height > conversation.scrollable_content_region.height
        assert last.virtual_region.y == conversation.scroll_y
        assert conversation.scroll_y < conversation.max_scroll_y  # not simply scrolled to the end

    drive(app, steps, size=(80, 14))
