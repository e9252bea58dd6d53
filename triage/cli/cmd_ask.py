"""``triage ask``: the interview as a plain line-based prompt (dumb terminals, notebooks, pipes)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from triage.cli.errors import EXIT_OK, InputError

if TYPE_CHECKING:
    from triage.interview import Interview
    from triage.kb.loader import KnowledgeBase

NAME = "ask"
HELP = "answer a few questions, one at a time, to find why the GPU ran out of memory (plain prompt)"

_WORDS = {
    "en": {
        "hint": "number = quick reply, or type an answer / paste text; b = back, l = 中文, q = stop",
        "done": "That is all I need to ask.",
        "bad": "Not an answer",
        "report": "Report written to",
        "back": "Took back",
        "nothing": "Nothing to take back.",
    },
    "zh": {
        "hint": "输入数字快速回答，或直接输入答案/粘贴文本；b = 返回上一步，l = English，q = 结束",
        "done": "需要问的就这些。",
        "bad": "无法作为答案",
        "report": "报告已写入",
        "back": "已撤回",
        "nothing": "没有可撤回的回答。",
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


def converse(interview: Interview, stdin: TextIO, stdout: TextIO) -> None:
    """Ask until the engine has nothing worth asking, the user stops, or input ends."""
    from triage.interview import InterviewError, describe_taken

    echo = not stdin.isatty()

    def say(*lines: str) -> None:
        for line in lines:
            stdout.write(line + "\n")
        stdout.flush()

    say(*_ranking(interview))
    while True:
        w = _WORDS[interview.lang]
        question = interview.question
        if question is None:
            say(w["done"])
            return
        replies = "  ".join(f"{r.key}) {r.label}" for r in interview.replies())
        say("", f"? {interview.question_text(question)}", f"  ({interview.help_text(question)})", f"  {replies}")
        stdout.write("> ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            say("")
            return
        said = line.strip()
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
        if turn.kind == "text":
            say(*describe_taken(interview.kb, turn.taken, interview.lang))
        say(*_ranking(interview))


def write_report(interview: Interview, path: Path) -> None:
    """Write the markdown report to a new file (an existing file is never overwritten)."""
    from triage.report import render_report

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
    from triage.render.text import render_text

    if args.report is not None and args.report.exists():
        raise InputError(f"{args.report} exists; choose another --report file")
    _, interview = start_interview(args)
    converse(interview, sys.stdin, sys.stdout)
    sys.stdout.write("\n" + render_text(to_dict(interview.kb, interview.diagnosis, memory=interview.memory)))
    if args.report is not None:
        write_report(interview, args.report)
        sys.stdout.write(f"{_WORDS[interview.lang]['report']} {args.report}\n")
    return EXIT_OK
