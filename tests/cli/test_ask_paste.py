"""``triage ask`` takes a pasted block as one answer: the reader on scripted lines, then a real terminal (a pty).

tests/tui/test_tui_terminal.py pastes into ``triage ask`` through tmux as well.
"""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from triage.cli.cmd_ask import PASTE_END, PASTE_START, StreamLines, read_answer

FIXTURES = Path(__file__).parent.parent / "fixtures"
FIXTURE_KB = FIXTURES / "tui" / "knowledge"
TRACEBACK = "Traceback" + (FIXTURES / "ingest" / "oom" / "torch20_backward.log").read_text().split("Traceback", 1)[1]


class Script:
    """Lines as a terminal would deliver them: ``(line, arrives_with_the_previous_one)``."""

    def __init__(self, *lines: tuple[str, bool]) -> None:
        self.lines = list(lines)
        self.read: list[str] = []

    def readline(self) -> str:
        if not self.lines:
            return ""
        line = self.lines.pop(0)[0]
        self.read.append(line)
        return line

    def waiting(self, timeout: float) -> bool:
        return bool(self.lines) and self.lines[0][1]


def typed(*lines: str) -> list[tuple[str, bool]]:
    return [(line, False) for line in lines]


def pasted(*lines: str) -> list[tuple[str, bool]]:
    return [(lines[0], False), *[(line, True) for line in lines[1:]]]


def test_a_typed_line_is_one_answer():
    lines = Script(*typed("2\n", "b\n"))
    assert read_answer(lines) == "2"
    assert read_answer(lines) == "b"
    assert read_answer(lines) is None


def test_a_marked_paste_is_one_answer_up_to_the_enter_after_it():
    lines = Script(
        *typed(f"{PASTE_START}Traceback (most recent call last):\n", '  File "t.py", line 1\n'),
        *typed(f"torch.OutOfMemoryError: CUDA out of memory.{PASTE_END} on a 3090\n", "2\n"),
    )
    assert read_answer(lines) == (
        'Traceback (most recent call last):\n  File "t.py", line 1\n'
        "torch.OutOfMemoryError: CUDA out of memory. on a 3090"
    )
    assert read_answer(lines) == "2"  # the next answer is a key again


def test_a_marked_paste_with_cr_and_crlf_line_breaks():
    # a terminal with its CR-to-LF translation off hands the paste's CRs over as they are
    lines = Script(*typed(f"{PASTE_START}one\rtwo\r\nthree\r{PASTE_END}\n"))
    assert read_answer(lines) == "one\ntwo\nthree"


def test_an_unmarked_paste_is_one_answer_ended_by_an_empty_line():
    notes = []
    lines = Script(
        *pasted("Traceback (most recent call last):\n", '  File "t.py", line 1\n', "\n", "During handling\n"),
        # the paste's last line had no line break: it came with the user's Enter, then the empty line
        *typed("torch.OutOfMemoryError: CUDA out of memory.\n", "\n", "2\n"),
    )
    answer = read_answer(lines, notes.append)
    assert answer == (
        'Traceback (most recent call last):\n  File "t.py", line 1\n\nDuring handling\n'
        "torch.OutOfMemoryError: CUDA out of memory."
    )
    assert notes == [4]
    assert read_answer(lines) == "2"


def test_pipes_are_read_one_answer_per_line_marks_still_honoured():
    stream = io.StringIO(f"2\n0\n{PASTE_START}a\nb{PASTE_END}\nb\n")
    lines = StreamLines(stream)
    assert [read_answer(lines) for _ in range(5)] == ["2", "0", "a\nb", "b", None]


def test_end_of_input_inside_a_paste_keeps_what_came():
    assert read_answer(Script(*typed(f"{PASTE_START}a\n", "b\n"))) == "a\nb"


def test_ask_in_a_pipe_reads_a_marked_block_as_one_answer():
    # after the paste: "which model?" (0 = don't know), then "gradient checkpointing?" (2 = no)
    stdin = f"{PASTE_START}{TRACEBACK.replace(chr(10), chr(13))}{PASTE_END}\n0\n2\n"
    out = subprocess.run(
        [sys.executable, "-m", "triage", "ask", "--knowledge", str(FIXTURE_KB)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("\n? ") == 3
    assert "I took from that:" in out.stdout and "error_kind = cuda_oom" in out.stdout
    assert "I found no facts in that" not in out.stdout
    assert "gradient_checkpointing = false (answer)" in out.stdout


def test_the_hint_says_how_to_paste():
    out = subprocess.run(
        [sys.executable, "-m", "triage", "ask", "--knowledge", str(FIXTURE_KB)],
        input="\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "a multi-line paste is read as one text" in out.stdout
    assert "press Enter on an empty line to send it" in out.stdout


# --------------------------------------------------------------------------- a real terminal

try:
    import pty
    import termios
except ImportError:  # not a POSIX system
    pty = termios = None  # type: ignore[assignment]

needs_pty = pytest.mark.skipif(pty is None, reason="no pseudo-terminals here")


class Terminal:
    """``triage ask`` on the slave side of a pty; this side types and reads the screen as a terminal would."""

    def __init__(self, *args: str, home: Path) -> None:
        self.master, self.slave = pty.openpty()
        self.before = termios.tcgetattr(self.slave)
        env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"), "TERM": "xterm"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "triage", *args],
            stdin=self.slave,
            stdout=self.slave,
            stderr=self.slave,
            env=env,
            start_new_session=True,
        )
        self.output = b""

    def drain(self, timeout: float = 0.0) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], timeout)
            if not ready:
                return
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:  # the child is gone
                return
            if not data:
                return
            self.output += data
            timeout = 0.0

    def type(self, data: str) -> None:
        raw = data.encode()
        for i in range(0, len(raw), 256):  # a terminal's pace: read the echo while writing
            os.write(self.master, raw[i : i + 256])
            self.drain(0.01)

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", "replace").replace("\r\n", "\n")

    def wait_for(self, pattern: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.text):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {pattern!r}; the terminal shows:\n{self.text}")
            self.drain(0.2)
        return self.text

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=20)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def terminal(tmp_path):
    started: list[Terminal] = []

    def start(*args: str) -> Terminal:
        t = Terminal(*args, home=tmp_path)
        started.append(t)
        return t

    yield start
    for t in started:
        t.close()


def prompts(text: str) -> int:
    return len(re.findall(r"^\? ", text, flags=re.M))


@needs_pty
def test_a_marked_paste_on_a_terminal(terminal):
    term = terminal("ask", "--knowledge", str(FIXTURE_KB))
    term.wait_for(r"\n> $")
    assert "\x1b[?2004h" in term.text  # bracketed paste asked for
    # a terminal's bracketed paste: the marks, every line break a CR; then the user's Enter
    term.type(PASTE_START + TRACEBACK.replace("\n", "\r") + PASTE_END)
    term.type("\r")
    text = term.wait_for(r"took from that:[\s\S]*\n> $")
    assert prompts(text) == 2  # the first question and the one after the paste, not 17
    assert "I found no facts in that" not in text
    assert "error_kind = cuda_oom" in text and "phase = backward" in text
    assert "^[[200~" not in text  # the marks are not echoed as ^[[200~
    term.type("q\r")
    term.wait_for(r"\x1b\[\?2004l")
    assert term.proc.wait(timeout=30) == 0
    assert termios.tcgetattr(term.slave) == term.before  # the terminal is left as it was


@needs_pty
def test_an_unmarked_paste_on_a_terminal(terminal):
    term = terminal("ask", "--knowledge", str(FIXTURE_KB))
    term.wait_for(r"\n> $")
    # a terminal without bracketed paste: the lines arrive at once, the last one without its line break
    term.type(TRACEBACK.rstrip("\n").replace("\n", "\r"))
    term.wait_for(r"15 lines pasted: press Enter on an empty line")
    term.type("\r")  # ends the last line
    term.type("\r")  # the empty line sends the paste
    text = term.wait_for(r"took from that:[\s\S]*\n> $")
    assert prompts(text) == 2
    assert "I found no facts in that" not in text
    assert "error_kind = cuda_oom" in text  # the last line, the OOM message, is in
    term.type("0\r")  # typed answers still go one at a time: which model? don't know
    term.wait_for(r"gradient checkpointing enabled\?[\s\S]*\n> $")
    term.type("2\r")
    text = term.wait_for(r"gradient_checkpointing|That is all I need")
    assert "Not an answer" not in text
