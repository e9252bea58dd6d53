"""``triage tui``: the chat interview in the terminal (the default with no arguments on a terminal)."""

from __future__ import annotations

import argparse

from triage.cli.cmd_ask import add_input_arguments, start_interview
from triage.cli.errors import EXIT_OK

NAME = "tui"
HELP = "the interactive interview: questions, a live ranking of causes and a what-if memory panel"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)


def run(args: argparse.Namespace) -> int:
    _, interview = start_interview(args)
    from triage.tui.app import make_app  # Textual is imported only here

    make_app(interview).run()
    return EXIT_OK
