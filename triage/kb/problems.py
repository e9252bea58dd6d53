"""Problems found while loading or linting the knowledge base."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one file: a code, where it is and how to fix it."""

    path: str
    """The file, relative to the knowledge directory when possible."""
    line: int | None
    """1-based line, when known."""
    code: str
    """KB000 (YAML/schema) ... KB0nn; see ``triage kb lint --codes``."""
    message: str
    """What is wrong."""
    hint: str
    """How to fix it."""

    def render(self) -> str:
        """``causes/x.yaml:12: KB003 unknown fact 'foo' (hint: ...)``."""
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.code} {self.message} (fix: {self.hint})"
