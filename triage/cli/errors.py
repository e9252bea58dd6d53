"""Exit codes and the one place CLI errors become one-line messages."""

from __future__ import annotations

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
            raise
        print(f"triage: {exc}", file=sys.stderr)
        outcome.code = EXIT_INPUT
    except Exception as exc:
        from triage.api import KnowledgeError

        if not isinstance(exc, KnowledgeError):
            raise
        for problem in exc.problems[:20]:
            print(problem.render(), file=sys.stderr)
        print(f"triage: {exc}", file=sys.stderr)
        outcome.code = EXIT_INPUT
    except KeyboardInterrupt:
        print("triage: interrupted", file=sys.stderr)
        outcome.code = 130
