"""The one way in: every command, the TUI, the interview and the case runner call only this.

    kb = api.knowledge()                       # the validated knowledge base (cached)
    inputs = api.read(kb, symptoms=[...], configs=[...], facts=api.parse_facts(kb, ["lora_r=16"]))
    analysis = api.analyse(kb, inputs.session("en"))   # estimate, diagnose, plan
    est = api.estimate_inputs(inputs)          # the memory estimate alone
    result = api.fit_inputs(inputs, "max_length", headroom=0.05, upper=None)
    saving = api.what_if(facts, [remedy, ...]) # the run with some remedies applied
    captured = api.capture(["python", "train.py", ...])  # run a command, watching it (triage run)
    inputs = api.read_capture(kb, captured)    # what it said, as facts with their sources
    interview = api.start_interview(kb, inputs, lang="zh")

Reading goes through the same merge and conflict rules whatever the command,
so two configs that disagree are reported by ``triage estimate`` exactly as
by ``triage diagnose``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from triage.capture.errors import RunError
from triage.engine.diagnose import Diagnosis, Session
from triage.estimate import Estimate, gpu_presets, presets
from triage.facts import Fact, FactError, Source, make_fact
from triage.ingest.errors import IngestError
from triage.kb.loader import KnowledgeBase, KnowledgeError, load_checked
from triage.pipeline import (
    Analysis,
    EstimateError,
    Inputs,
    alternatives_of,
    analyse,
    case_name,
    estimate_inputs,
    fit_inputs,
    read,
    read_capture,
    run_of,
    solved_reports_index,
    what_if,
)
from triage.quantify import Memory
from triage.similar import Index

if TYPE_CHECKING:
    from triage.capture.session import Capture
    from triage.interview import Interview


def knowledge(directory: Path | None = None) -> KnowledgeBase:
    """The validated knowledge base (``directory`` or the bundled one); raises on an invalid one."""
    return load_checked(directory)


def facts_from_mapping(kb: KnowledgeBase, values: Mapping[str, Any], source: Source) -> list[Fact]:
    """Typed facts from a ``{name: value}`` mapping (cases, flags), raising FactError on bad ones."""
    return [make_fact(kb.facts, name, value, source) for name, value in values.items()]


def parse_facts(kb: KnowledgeBase, assignments: Iterable[str]) -> list[Fact]:
    """``--fact NAME=VALUE`` arguments as typed facts; an unknown name suggests the nearest ones."""
    out = []
    for text in assignments:
        name, sep, raw = text.partition("=")
        name = name.strip()
        if not sep or not name:
            raise FactError(f"--fact expects NAME=VALUE; got {text!r}")
        if name not in kb.facts:
            from rapidfuzz import process

            near = [m[0] for m in process.extract(name, sorted(kb.facts), limit=3)]
            raise FactError(f"unknown fact {name!r}; did you mean {', '.join(near)}?")
        out.append(make_fact(kb.facts, name, raw.strip(), Source("cli", excerpt=text)))
    return out


def build_session(kb: KnowledgeBase, *, lang: str = "en", **inputs: Any) -> Session:
    """:func:`read` (same keyword arguments) then :meth:`Inputs.session`: the session for a diagnosis."""
    return read(kb, **inputs).session(lang)


def run(kb: KnowledgeBase, session: Session) -> Diagnosis:
    """Diagnose a session (with the estimator's derived facts and savings)."""
    return analyse(kb, session).diagnosis


def capture(argv: Sequence[str], *, log_to: str | None = None) -> Capture:
    """Run a training command unchanged (``triage run``): output passed through, signals forwarded.

    Returns what its command line, config files, environment and output said; turn it into
    :class:`Inputs` with :func:`read_capture`. Raises :class:`RunError` when it cannot be started.
    """
    import os

    if os.name != "posix":
        raise RunError("triage run needs Linux or macOS (pseudo-terminals and POSIX signals)", 2, "not_posix")
    from triage.capture.session import capture as run_captured

    return run_captured(argv, log_to=log_to)


def start_interview(
    kb: KnowledgeBase, inputs: Inputs, lang: str = "en", similar: Index | None = None, exclude: Sequence[str] = ()
) -> Interview:
    """An interview that starts from what the user already gave (``similar``/``exclude``: see :func:`analyse`)."""
    from triage.interview import Interview

    return Interview(kb, start=inputs, lang=lang, similar=similar, exclude=exclude)


__all__ = [
    "Analysis",
    "Diagnosis",
    "Estimate",
    "EstimateError",
    "FactError",
    "IngestError",
    "Inputs",
    "KnowledgeError",
    "Memory",
    "RunError",
    "Session",
    "alternatives_of",
    "analyse",
    "build_session",
    "capture",
    "case_name",
    "estimate_inputs",
    "facts_from_mapping",
    "fit_inputs",
    "gpu_presets",
    "knowledge",
    "parse_facts",
    "presets",
    "read",
    "read_capture",
    "run",
    "run_of",
    "solved_reports_index",
    "start_interview",
    "what_if",
]
