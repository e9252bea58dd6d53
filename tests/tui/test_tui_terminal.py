"""Pasting through a real terminal: ``triage tui`` and ``triage ask`` in a tmux pane (skipped without tmux).

The Pilot tests post Paste events; these send the bytes a terminal sends:
bracketed-paste marks around the text and a CR for every line break.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tmux_pane import TMUX, Panes, cell, left_column, report_facts

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")

FIXTURES = Path(__file__).parent.parent / "fixtures"
FIXTURE_KB = FIXTURES / "tui" / "knowledge"
TRACEBACK_200 = FIXTURES / "tui" / "paste" / "traceback-200.txt"
TRACEBACK_16 = FIXTURES / "ingest" / "oom" / "torch20_backward.log"


@pytest.fixture
def panes(tmp_path):
    started = Panes(tmp_path)
    yield started
    started.close()


def diagnose_log_facts(path: Path) -> dict[str, str]:
    """The facts ``triage diagnose --log`` reads from ``path``, as the report's table writes them."""
    args = ["diagnose", "--log", str(path), "--format", "json", "--knowledge", str(FIXTURE_KB)]
    out = subprocess.run(
        [sys.executable, "-m", "triage", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return {name: cell(fact["value"]) for name, fact in json.loads(out.stdout)["facts"].items()}


def test_a_200_line_cr_paste_in_the_tui_reads_as_the_same_log(panes, tmp_path):
    text = TRACEBACK_200.read_text()
    assert len(text.splitlines()) == 200
    expected = diagnose_log_facts(TRACEBACK_200)
    assert expected["error_kind"] == "cuda_oom" and expected["phase"] == "forward"
    # what follows from a fact read (quantify.implied: the step says whether it trained first) is not "taken"
    taken = {name: value for name, value in expected.items() if name != "trained_before_oom"}
    pane = panes.start("tui", "--knowledge", str(FIXTURE_KB), size=(80, 24))
    pane.wait_for(lambda s: "Ranking" in s and "type an answer" in s)
    pane.keys("/")
    pane.paste(text.replace("\n", "\r"), bracketed=True)  # every line break a CR, as terminals send them
    screen = pane.wait_for(lambda s: "took " in left_column(s))
    conversation = left_column(screen)
    assert f"took {len(taken)} facts from your text" in conversation, screen
    assert "error_kind=cuda_oom" in conversation
    # the paste went in once, whole: the text box is empty again and the report holds all 200 lines, once
    assert "type an answer" in screen
    pane.keys("Escape")  # (on its own: ESC and a key sent together read as Alt+key)
    pane.wait_for(lambda s: "Report" in s.splitlines()[-1])
    pane.keys("e")
    report_path = tmp_path / "triage-report.md"
    pane.wait_for(lambda s: report_path.is_file() and "report written" in s)
    report = report_path.read_text()
    pasted = report.split("What was pasted</summary>", 1)[1].split("```", 2)[1].strip("\n").splitlines()
    assert len(pasted) == 200
    assert pasted.count("Traceback (most recent call last):") == 2  # the chained traceback's two, not four
    assert pasted[-1].startswith("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB")
    # the facts are those `triage diagnose --log FILE` reads from the same text
    assert report_facts(report) == expected


def test_a_one_line_paste_is_inserted_once(panes):
    pane = panes.start("tui", "--knowledge", str(FIXTURE_KB), size=(80, 24))
    pane.wait_for(lambda s: "Ranking" in s)
    pane.keys("/")
    pane.paste("OOM at step 0 on a 3090", bracketed=True)
    screen = pane.wait_for(lambda s: "OOM at step 0" in s)
    assert screen.count("OOM at step 0 on a 3090") == 1, screen


def test_at_80x24_the_current_question_stays_in_view(panes, fkb):
    from triage import api
    from triage.interview import Interview

    symptom = "LLaMA-7B LoRA on a 3090, CUDA out of memory at step 0"
    interview = Interview(fkb, start=api.read(fkb, symptoms=[symptom]))
    assert interview.question is not None
    question = interview.question_text(interview.question)
    pane = panes.start("tui", "--knowledge", str(FIXTURE_KB), "--symptom", symptom, size=(80, 24))
    screen = pane.wait_for(lambda s: "Ranking" in s)
    assert question in left_column(screen), screen


def _prompts(screen: str) -> int:
    return sum(1 for line in screen.splitlines() if line.startswith("? "))


@pytest.mark.parametrize("bracketed", [True, False], ids=["marked-paste", "unmarked-paste"])
def test_ask_reads_a_pasted_traceback_as_one_answer(panes, bracketed):
    text = TRACEBACK_16.read_text().split("Traceback", 1)[1]
    text = "Traceback" + text
    assert len(text.splitlines()) == 16
    pane = panes.start("ask", "--knowledge", str(FIXTURE_KB), size=(100, 50))
    pane.wait_for(lambda s: s.rstrip().endswith(">"))
    pane.paste(text, bracketed=bracketed)
    if not bracketed:  # the terminal did not mark the paste: an empty line sends it
        pane.wait_for(lambda s: "16 lines pasted" in s, history=True)
    pane.keys("Enter")
    screen = pane.wait_for(lambda s: "took from that" in s and _prompts(s) >= 2, history=True)
    assert _prompts(screen) == 2, screen  # the first question, and the one after the paste: not 17
    assert "I found no facts in that" not in screen
    assert "error_kind = cuda_oom" in screen and "phase = backward" in screen
    # the next answer is a key again ("0", don't know, is a key of every question; the next one may be the
    # model, which is answered in words)
    pane.keys("0", "Enter")
    screen = pane.wait_for(lambda s: _prompts(s) >= 3 or "That is all I need to ask." in s, history=True)
    assert "Not an answer" not in screen
