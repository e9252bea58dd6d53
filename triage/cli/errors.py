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
    from triage.facts import FactError
    from triage.ingest.errors import IngestError
    from triage.kb.loader import KnowledgeError

    outcome = Outcome()
    try:
        yield outcome
    except UsageError as exc:
        print(f"triage: {exc}".replace("triage: triage", "triage"), file=sys.stderr)
        outcome.code = EXIT_USAGE
    except (InputError, FactError, IngestError) as exc:
        print(f"triage: {exc}", file=sys.stderr)
        outcome.code = EXIT_INPUT
    except KnowledgeError as exc:
        for problem in exc.problems[:20]:
            print(problem.render(), file=sys.stderr)
        print(f"triage: {exc}", file=sys.stderr)
        outcome.code = EXIT_INPUT
    except BrokenPipeError:
        outcome.code = EXIT_OK
    except KeyboardInterrupt:
        print("triage: interrupted", file=sys.stderr)
        outcome.code = 130
