"""``triage ask``: the interview as a plain line-based prompt (dumb terminals, notebooks, pipes)."""

from __future__ import annotations

import argparse
import codecs
import contextlib
import os
import select
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from triage.cli.errors import EXIT_OK, InputError

if TYPE_CHECKING:
    from triage.engine.questions import Question
    from triage.interview import Interview
    from triage.kb.loader import KnowledgeBase

NAME = "ask"
HELP = "answer a few questions, one at a time, to find why the GPU ran out of memory (plain prompt)"

_WORDS = {
    "en": {
        "hint": (
            "number = quick reply, or type an answer; b = back, l = 中文, q = stop. Paste a traceback, log or"
            " config as it is: a multi-line paste is read as one text (when your terminal does not mark"
            " pastes, press Enter on an empty line to send it)"
        ),
        "pasted": "({n} lines pasted: press Enter on an empty line to send them as one text)",
        "done": "That is all I need to ask.",
        "bad": "Not an answer",
        "report": "Report written to",
        "back": "Took back",
        "nothing": "Nothing to take back.",
        "numbers": "type a number, e.g. {values}; ? = don't know",
        "number": "type a number; ? = don't know",
    },
    "zh": {
        "hint": (
            "输入数字快速回答，或直接输入答案；b = 返回上一步，l = English，q = 结束。"
            "可直接粘贴 traceback、日志或配置：多行粘贴会作为一段文本读取（终端不标记粘贴时，在空行按回车发送）"
        ),
        "pasted": "（已粘贴 {n} 行：在空行按回车，作为一段文本发送）",
        "done": "需要问的就这些。",
        "bad": "无法作为答案",
        "report": "报告已写入",
        "back": "已撤回",
        "nothing": "没有可撤回的回答。",
        "numbers": "输入数字，例如 {values}；? = 不知道",
        "number": "输入数字；? = 不知道",
    },
}


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """The starting inputs shared by ``ask`` and ``tui``."""
    src = parser.add_argument_group("what you have")
    src.add_argument("--symptom", action="append", default=[], metavar="TEXT", help="what you see (repeatable)")
    src.add_argument("--log", action="append", default=[], type=Path, metavar="FILE", help="a training log to read")
    src.add_argument("--env", action="append", default=[], type=Path, metavar="FILE", help="an environment report")
    src.add_argument("--config", action="append", default=[], type=Path, metavar="FILE", help="a training config")
    src.add_argument("--fact", action="append", default=[], metavar="NAME=VALUE", help="state a fact (repeatable)")
    parser.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the interview")
    parser.add_argument("--knowledge", type=Path, metavar="DIR", help="use this knowledge directory")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--report", type=Path, metavar="FILE", help="write a markdown report to FILE at the end")


def start_interview(args: argparse.Namespace) -> tuple[KnowledgeBase, Interview]:
    """Load the knowledge base and read the starting inputs (shared with ``triage tui``)."""
    from triage import api

    for path in [*args.log, *args.env, *args.config]:
        if not path.is_file():
            raise InputError(f"cannot read {path}: no such file")
    kb = api.knowledge(args.knowledge)
    facts = api.parse_facts(kb, args.fact)
    start = api.read(
        kb,
        symptoms=args.symptom,
        logs=[str(p) for p in args.log],
        envs=[str(p) for p in args.env],
        configs=[str(p) for p in args.config],
        facts=facts,
    )
    return kb, api.start_interview(kb, start, lang=args.lang)


def _ranking(interview: Interview, top: int = 3) -> list[str]:
    out = []
    for rc in interview.diagnosis.causes[:top]:
        if rc.scored.excluded:
            break
        filled = round(rc.probability * 10)
        out.append(
            f"  {'█' * filled}{'·' * (10 - filled)} {rc.probability:4.0%}  {rc.scored.cause.title.get(interview.lang)}"
        )
    return out


# --------------------------------------------------------------------------- reading what the user types or pastes
#
# One answer is one line, and one paste is one answer however many lines it has.
# On a terminal, ``triage ask`` turns on bracketed paste (the terminal then
# wraps a paste in ESC[200~ ... ESC[201~; xterm, tmux, iTerm2, GNOME, kitty,
# Windows Terminal and most others do) and reads everything between the marks
# as one text; the Enter after the paste sends it. A terminal that does not
# mark pastes delivers a paste as lines that are all there at once, while a
# person types one line at a time: lines that arrive within PASTE_WINDOW of
# each other are taken as one paste, and since the paste's last line may still
# wait in the terminal for its Enter, an empty line sends the paste. Pipes and
# files are read one answer per line (scripted answers), marks still honoured.

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
#: Lines that arrive this close together (seconds) were pasted together (terminals without bracketed paste).
PASTE_WINDOW = 0.1
_BRACKETED_ON = "\x1b[?2004h"
_BRACKETED_OFF = "\x1b[?2004l"


class Lines(Protocol):
    """Where answers come from, a line at a time."""

    def readline(self) -> str:
        """The next line with its line break; "" at the end of input."""
        ...

    def waiting(self, timeout: float) -> bool:
        """Whether another whole line arrives within ``timeout`` seconds (False when that cannot be known)."""
        ...


class StreamLines:
    """A pipe, a file or a test's StringIO: lines as they come, no timing."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def readline(self) -> str:
        return self.stream.readline()

    def waiting(self, timeout: float) -> bool:
        return False


class TerminalLines:
    """A terminal in its normal (canonical) mode: the system hands over one finished line per read."""

    def __init__(self, fd: int, encoding: str = "utf-8") -> None:
        self.fd = fd
        self.decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self.buffer = ""

    def readline(self) -> str:
        while "\n" not in self.buffer:
            data = os.read(self.fd, 1 << 16)
            if not data:  # Ctrl-D: the end of input (what was typed on the line before it counts)
                line, self.buffer = self.buffer + self.decoder.decode(b"", final=True), ""
                return line
            self.buffer += self.decoder.decode(data)
        line, _, self.buffer = self.buffer.partition("\n")
        return line + "\n"

    def waiting(self, timeout: float) -> bool:
        if "\n" in self.buffer:
            return True
        ready, _, _ = select.select([self.fd], [], [], timeout)
        return bool(ready)


def unify_line_breaks(text: str) -> str:
    """CRLF and lone CR (what terminals send for a pasted line break) become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _bracketed(lines: Lines, first: str) -> str:
    """The rest of a marked paste, and what was typed around it up to the Enter that sent it."""
    text = first
    while text.count(PASTE_START) > text.count(PASTE_END):
        line = lines.readline()
        if not line:
            break
        text += line
    return text.replace(PASTE_START, "").replace(PASTE_END, "")


def read_answer(lines: Lines, note: Callable[[int], None] = lambda n: None) -> str | None:
    """One answer: a typed line, or a whole paste (line breaks as LF); None at the end of input.

    ``note(n)`` is called when an unmarked paste of ``n`` lines waits for the
    empty line that sends it.
    """
    first = lines.readline()
    if not first:
        return None
    if PASTE_START in first:
        return unify_line_breaks(_bracketed(lines, first)).strip("\n")
    block = [first]
    while lines.waiting(PASTE_WINDOW):
        line = lines.readline()
        if not line:
            break
        block.append(line)
    if len(block) > 1:
        # an unmarked paste: its last line may still be waiting for an Enter, so an empty line ends it
        note(len(block))
        while True:
            line = lines.readline()
            if not line.strip():
                break
            block.append(line)
    return unify_line_breaks("".join(block)).strip("\n")


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty() and stream.fileno() >= 0
    except (AttributeError, OSError, ValueError):  # a StringIO, a closed stream
        return False


@contextlib.contextmanager
def _terminal_for_pastes(stdin: TextIO, stdout: TextIO) -> Iterator[Lines]:
    """The lines of ``stdin``; on a terminal, with bracketed paste on and its marks not echoed (both undone after)."""
    if sys.platform == "win32" or not (_is_terminal(stdin) and _is_terminal(stdout)):
        yield StreamLines(stdin)  # (a Windows console cannot be polled with select; it reads line by line)
        return
    fd = stdin.fileno()
    saved = None
    try:
        import termios

        saved = termios.tcgetattr(fd)
        quiet = termios.tcgetattr(fd)
        quiet[3] &= ~termios.ECHOCTL  # the marks would be echoed as ^[[200~ ... ^[[201~ around the paste
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
    except (ImportError, AttributeError, OSError):  # not a POSIX terminal: the marks are removed all the same
        saved = None
    stdout.write(_BRACKETED_ON)
    stdout.flush()
    try:
        yield TerminalLines(fd, getattr(stdin, "encoding", None) or "utf-8")
    finally:
        stdout.write(_BRACKETED_OFF)
        stdout.flush()
        if saved is not None:
            termios.tcsetattr(fd, termios.TCSANOW, saved)


# --------------------------------------------------------------------------- the interview


def converse(interview: Interview, stdin: TextIO, stdout: TextIO) -> None:
    """Ask until the engine has nothing worth asking, the user stops, or input ends."""
    with _terminal_for_pastes(stdin, stdout) as lines:
        _converse(interview, lines, stdout, echo=not _is_terminal(stdin))


def _converse(interview: Interview, lines: Lines, stdout: TextIO, *, echo: bool) -> None:
    from triage.interview import InterviewError, describe_taken
    from triage.render.outbound import for_terminal

    def say(*out: str) -> None:
        for line in out:
            stdout.write(for_terminal(line) + "\n")
        stdout.flush()

    def note(n: int) -> None:
        say("", _WORDS[interview.lang]["pasted"].format(n=n))

    say(*_ranking(interview))
    say(f"({_WORDS[interview.lang]['hint']})")
    while True:
        w = _WORDS[interview.lang]
        question = interview.question
        if question is None:
            say(w["done"])
            return
        replies = _replies_line(interview, question)
        say("", f"? {interview.question_text(question)}", f"  ({interview.help_text(question)})", f"  {replies}")
        stdout.write("> ")
        stdout.flush()
        answer = read_answer(lines, note)
        if answer is None:
            say("")
            return
        said = answer.strip()
        if echo:
            say(said)
        if not said:
            say(w["hint"])
            continue
        low = said.lower()
        if low in {"q", "quit", "exit"}:
            return
        if low in {"l", "lang"}:
            interview.toggle_lang()
            continue
        if low in {"b", "back"}:
            turn = interview.back()
            say(f"{w['back']}: {turn.said}" if turn else w["nothing"])
            continue
        try:
            turn = interview.tell(said)
        except InterviewError as exc:
            say(f"{w['bad']}: {exc}")
            continue
        if turn.kind == "text" or turn.also_taken.facts:
            # an answer in words that said more ("3090 上 LoRA 微调 LLaMA-7B，第一步就 OOM"): everything it gave
            say(*describe_taken(interview.kb, turn.taken, interview.lang))
        say(*_ranking(interview))


def _replies_line(interview: Interview, question: Question) -> str:
    """The quick replies as the prompt shows them. A number question lists its values to type: a digit typed is
    the number itself ("2" GPUs), so keys beside them ("3) 5") would read as values."""
    from triage.interview import NUMBERS
    from triage.render.labels import fact_value

    replies = interview.replies(question)
    spec = interview.kb.facts[question.fact]
    if spec.type not in NUMBERS:
        return "  ".join(f"{r.key}) {r.label}" for r in replies)
    w = _WORDS[interview.lang]
    values = [fact_value(spec, r.value, interview.lang) for r in replies if r.value is not None]
    if not values:
        return w["number"]
    return w["numbers"].format(values=", ".join(values))


def write_report(interview: Interview, path: Path) -> None:
    """Write the markdown report to a new file (an existing file is never overwritten)."""
    from triage.render.report import render_report

    text = render_report(
        interview.kb,
        interview.diagnosis,
        memory=interview.memory,
        transcript=interview.transcript(),
        pasted=interview.pasted(),
    )
    try:
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise InputError(f"{path} exists; choose another --report file") from None
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    from triage.render.contract import to_dict
    from triage.render.outbound import for_terminal
    from triage.render.text import render_text

    if args.report is not None and args.report.exists():
        raise InputError(f"{args.report} exists; choose another --report file")
    _, interview = start_interview(args)
    converse(interview, sys.stdin, sys.stdout)
    data = to_dict(interview.kb, interview.diagnosis, memory=interview.memory, similar=interview.similar_reports)
    sys.stdout.write("\n" + for_terminal(render_text(data)))
    if args.report is not None:
        write_report(interview, args.report)
        sys.stdout.write(f"{_WORDS[interview.lang]['report']} {args.report}\n")
    return EXIT_OK
