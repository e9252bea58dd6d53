"""Exit codes and the one place CLI errors become one-line messages."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

EXIT_OK = 0
EXIT_FAILED = 1
"""Checks ran and found problems (lint, case tests)."""
EXIT_USAGE = 2
EXIT_INPUT = 3
"""Unreadable or invalid input."""
EXIT_INTERNAL = 70
"""A bug in triage itself (sysexits' EX_SOFTWARE): one line, and the traceback with ``TRIAGE_DEBUG=1``."""


class UsageError(Exception):
    """Wrong arguments: exit code 2."""


class InputError(Exception):
    """Input that cannot be read or understood: exit code 3."""


@dataclass
class Outcome:
    code: int = EXIT_OK


@contextmanager
def report_errors() -> Iterator[Outcome]:
    """Turn known errors into ``triage: message`` on stderr and the matching exit code."""
    outcome = Outcome()
    try:
        yield outcome
    except UsageError as exc:
        print(f"triage: {exc}".replace("triage: triage", "triage"), file=sys.stderr)
        outcome.code = EXIT_USAGE
    except InputError as exc:
        print(f"triage: {exc}", file=sys.stderr)
        outcome.code = EXIT_INPUT
    except BrokenPipeError:
        outcome.code = EXIT_OK
    except ValueError as exc:
        # the API's input errors (FactError, IngestError) are ValueErrors; imported only once one is raised
        from triage.api import FactError, IngestError

        if not isinstance(exc, (FactError, IngestError)):
            _internal(exc, outcome)
            return
        print(f"triage: {exc}", file=sys.stderr)
        outcome.code = EXIT_INPUT
    except Exception as exc:
        from triage.api import KnowledgeError

        if not isinstance(exc, KnowledgeError):
            _internal(exc, outcome)
            return
        for problem in exc.problems[:20]:
            print(problem.render(), file=sys.stderr)
        print(f"triage: {exc}", file=sys.stderr)
        outcome.code = EXIT_INPUT
    except KeyboardInterrupt:
        print("triage: interrupted", file=sys.stderr)
        outcome.code = 130


def _internal(exc: Exception, outcome: Outcome) -> None:
    """A bug, not the user's input: one line saying so and how to see it (``TRIAGE_DEBUG=1`` re-raises)."""
    if os.environ.get("TRIAGE_DEBUG"):
        raise exc
    print(
        f"triage: internal error ({type(exc).__name__}: {exc}); this is a bug in triage, not in your input. "
        "Please report it with the command you ran; TRIAGE_DEBUG=1 shows the traceback.",
        file=sys.stderr,
    )
    outcome.code = EXIT_INTERNAL
