"""The one API both faces use: inputs -> :class:`~triage.engine.diagnose.Session` -> diagnosis.

The CLI, the TUI and the knowledge-base case runner all build sessions here,
so a case in ``<id>.cases.yaml`` exercises exactly the path a user's
``triage --symptom ...`` takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from triage.engine.diagnose import Diagnosis, Session, diagnose
from triage.facts import Fact, FactSet, Source, make_fact
from triage.kb.loader import KnowledgeBase


def facts_from_mapping(kb: KnowledgeBase, values: Mapping[str, Any], source: Source) -> list[Fact]:
    """Typed facts from a ``{name: value}`` mapping (cases, --fact), raising FactError on bad ones."""
    return [make_fact(kb.facts, name, value, source) for name, value in values.items()]


def build_session(
    kb: KnowledgeBase,
    *,
    symptoms: Iterable[str] = (),
    facts: Iterable[Fact] = (),
    lang: str = "en",
) -> Session:
    """A session from free text and explicit facts; explicit facts win over facts read from text."""
    text = "\n".join(s for s in symptoms if s)
    return Session(facts=FactSet().with_facts(facts), text=text, lang=lang)


def run(kb: KnowledgeBase, session: Session) -> Diagnosis:
    """Diagnose a session."""
    return diagnose(kb, session)
