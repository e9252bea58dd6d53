"""The one API both faces use: inputs -> :class:`~triage.engine.diagnose.Session` -> diagnosis.

The CLI, the TUI and the knowledge-base case runner all build sessions here,
so a case in ``<id>.cases.yaml`` exercises exactly the path a user's
``triage --symptom ...`` takes: the same readers, the same merge of facts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from triage.engine.diagnose import Diagnosis, Session, diagnose
from triage.engine.scoring import Scorer
from triage.facts import Fact, FactSet, Source, make_fact
from triage.ingest.inputs import gather
from triage.kb.loader import KnowledgeBase
from triage.quantify import Memory, derive, quantify, saver, try_estimate


def facts_from_mapping(kb: KnowledgeBase, values: Mapping[str, Any], source: Source) -> list[Fact]:
    """Typed facts from a ``{name: value}`` mapping (cases, --fact), raising FactError on bad ones."""
    return [make_fact(kb.facts, name, value, source) for name, value in values.items()]


def build_session(
    kb: KnowledgeBase,
    *,
    symptoms: Iterable[str] = (),
    logs: Sequence[str] = (),
    envs: Sequence[str] = (),
    configs: Sequence[str] = (),
    inputs: Sequence[str] = (),
    facts: Iterable[Fact] = (),
    lang: str = "en",
) -> Session:
    """Read every input through the ingest readers and merge the facts.

    Explicit ``facts`` (``--fact``, interview answers, case facts) win over
    anything read; disagreements between inputs are kept as notes for the user.
    Raises :class:`~triage.ingest.errors.IngestError` for an unreadable input.
    """
    got = gather(
        kb.facts,
        symptoms=[s for s in symptoms if s],
        logs=logs,
        envs=envs,
        configs=configs,
        inputs=inputs,
        cli_facts=list(facts),
    )
    return Session(
        facts=FactSet().with_facts(got.facts),
        text=got.text,
        lang=lang,
        conflicts=tuple(c.describe() for c in got.conflicts),
        unknown_keys=tuple(f"{path}: {key}" for path, key in got.unknown_keys),
        notes=tuple(got.notes),
        read_as=tuple(got.read_as),
    )


@dataclass(frozen=True)
class Analysis:
    """A diagnosis and what the estimator says about the same run."""

    diagnosis: Diagnosis
    memory: Memory


def analyse(kb: KnowledgeBase, session: Session, scorer: Scorer | None = None) -> Analysis:
    """Estimate, diagnose and plan: the whole pipeline after the readers.

    The estimator's derived facts join the session's facts before causes are
    scored, and remedies are ranked by what they save on this run. Pass a
    ``scorer`` built for the session's text to reuse its text matches (the
    interview does, between answers).
    """
    session = replace(session, facts=derive(session.facts))
    est, missing = try_estimate(session.facts)
    need = None
    if est is not None and est.capacity_bytes:
        need = max(0, est.device_total.expected - est.capacity_bytes) or None
    diagnosis = diagnose(kb, session, scorer, saving_of=saver(session.facts, est), need=need)
    return Analysis(diagnosis, quantify(diagnosis, est, missing))


def run(kb: KnowledgeBase, session: Session) -> Diagnosis:
    """Diagnose a session (with the estimator's derived facts and savings)."""
    return analyse(kb, session).diagnosis
