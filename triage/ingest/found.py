"""What a reader found before it is typed: a fact name, a raw value, and where it was said.

Readers stay independent of the knowledge base: they return :class:`Found`
records, and :func:`to_facts` types them with the fact vocabulary's
:class:`~triage.kb.models.FactSpec` objects (the caller passes them in).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from triage.facts import Fact, FactError, Source, make_fact
from triage.facts.spec import FactSpec

#: Longest excerpt kept with a fact (characters).
EXCERPT_LIMIT = 160


@dataclass(frozen=True)
class Found:
    """A raw reading: ``name`` = ``raw`` said at ``line`` by ``excerpt``."""

    name: str
    raw: object
    line: int | None = None
    excerpt: str | None = None
    note: str | None = None
    """Why the reader believes it, when it is inferred rather than read (shown to the user)."""


def excerpt(text: str) -> str:
    """One line of at most :data:`EXCERPT_LIMIT` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_LIMIT else flat[: EXCERPT_LIMIT - 1] + "…"


def to_facts(
    specs: Mapping[str, FactSpec], found: Iterable[Found], kind: str, path: str | None
) -> tuple[list[Fact], list[str]]:
    """Type every reading; readings that do not fit their fact become notes, never exceptions."""
    facts: list[Fact] = []
    notes: list[str] = []
    for item in found:
        where = f"{path or kind}:{item.line}" if item.line is not None else (path or kind)
        try:
            fact = make_fact(specs, item.name, item.raw, Source(kind, path, item.line, item.excerpt))
        except FactError as exc:
            notes.append(f"{where}: ignored {item.name}={item.raw!r}: {exc}")
            continue
        facts.append(fact)
        if item.note:
            notes.append(f"{where}: {item.name}={fact.value}: {item.note}")
    return facts, notes
