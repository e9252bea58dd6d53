"""The one path from what the user has to an answer: read, merge, estimate, diagnose, plan.

Every face reaches this through :mod:`triage.api`; the interview replays it
after every turn. Keeping the steps here, once, is what makes ``triage
diagnose``, ``triage estimate``, the interview and the TUI agree: the same
readers, the same merge and conflict rules, the same model architecture from
the same ``config.json``, the same estimator.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from triage.corpus import Record, default_corpus_dir, load_corpus
from triage.engine.diagnose import Diagnosis, Session, diagnose
from triage.engine.questions import Question
from triage.engine.scoring import Item, Scorer, remedy_tables
from triage.estimate import (
    NOT_ESTIMABLE,
    Architecture,
    ArchitectureError,
    Estimate,
    FitResult,
    Run,
    Saving,
    estimate,
    fit,
    run_from_facts,
    saving_detail,
)
from triage.estimate.alternatives import Alternative, alternatives
from triage.estimate.architecture import from_hf_config, load_hf_config
from triage.facts import Fact, FactSet
from triage.ingest.errors import IngestError
from triage.ingest.found import to_facts
from triage.ingest.inputs import gather
from triage.kb.loader import KnowledgeBase
from triage.kb.models import Remedy
from triage.quantify import (
    DOUBTED_WEIGHT,
    Memory,
    Outcome,
    derive,
    doubt,
    memory_questions,
    quantify,
    saver,
)
from triage.similar import NEIGHBOURS, Example, Index, Neighbour, shown_share, votes

if TYPE_CHECKING:
    from triage.capture.session import Capture
    from triage.ingest.snapshot import SnapshotMemory

#: What the estimator raises when the run is not known well enough to size.
EstimateError = NOT_ESTIMABLE


@dataclass(frozen=True)
class Inputs:
    """Everything read from what the user gave, merged by the readers' rules."""

    facts: tuple[Fact, ...] = ()
    text: str = ""
    """The free text (symptoms, log excerpts) that signals match."""
    conflicts: tuple[str, ...] = ()
    """Where two inputs disagreed, and which one was believed."""
    unknown_keys: tuple[str, ...] = ()
    """Config keys the readers did not understand, ``path: key``."""
    notes: tuple[str, ...] = ()
    """What the readers want the user to know."""
    read_as: tuple[tuple[str, str], ...] = ()
    """(path, kind) of every input file read."""
    architecture: Architecture | None = None
    """The model's shape from a ``config.json`` among the inputs, when one was given."""
    snapshot: SnapshotMemory | None = None
    """The live memory by component of a memory snapshot (``--snapshot``), when one was given."""

    def session(self, lang: str = "en") -> Session:
        """The engine's view of these inputs."""
        return Session(
            facts=FactSet().with_facts(self.facts),
            text=self.text,
            lang=lang,
            conflicts=self.conflicts,
            unknown_keys=self.unknown_keys,
            notes=self.notes,
            read_as=self.read_as,
        )

    def all_notes(self) -> tuple[str, ...]:
        """Notes, conflicts and unused keys, as one list for a person to read."""
        keys = self.unknown_keys
        out = [*self.notes, *(f"conflict: {c}" for c in self.conflicts)]
        if keys:
            out.append("keys not used: " + ", ".join(keys[:10]) + (" ..." if len(keys) > 10 else ""))
        return tuple(out)


def read(
    kb: KnowledgeBase,
    *,
    symptoms: Iterable[str] = (),
    logs: Sequence[str] = (),
    envs: Sequence[str] = (),
    configs: Sequence[str] = (),
    inputs: Sequence[str] = (),
    reports: Sequence[str] = (),
    snapshot: str | None = None,
    facts: Iterable[Fact] = (),
) -> Inputs:
    """Read every input through the ingest readers and merge the facts.

    Explicit ``facts`` (``--fact``, flags, interview answers) win over anything
    read; disagreements between inputs are kept for the user. A model
    ``config.json`` among the configs also gives the model's architecture, so
    it means the same whichever flag brought it, and so does the model config
    inside a watcher report (``reports``). Raises
    :class:`~triage.ingest.errors.IngestError` for an unreadable input.
    """
    got = gather(
        kb.facts,
        symptoms=[s for s in symptoms if s],
        logs=logs,
        envs=envs,
        configs=configs,
        inputs=inputs,
        reports=reports,
        snapshot=snapshot,
        cli_facts=list(facts),
    )
    arch = None
    for where, cfg in got.model_configs:
        try:
            arch = from_hf_config(cfg, where)
        except ArchitectureError as exc:
            got.notes.append(f"{exc} (the estimate uses the model name instead)")
    for path, kind in got.read_as:
        if kind == "config:model_config":
            try:
                arch = load_hf_config(path)
            except ArchitectureError as exc:
                raise IngestError(str(exc)) from None
    return Inputs(
        facts=tuple(got.facts),
        text=got.text,
        conflicts=tuple(c.describe() for c in got.conflicts),
        unknown_keys=tuple(f"{path}: {key}" for path, key in got.unknown_keys),
        notes=tuple(got.notes),
        read_as=tuple(got.read_as),
        architecture=arch,
        snapshot=got.snapshot,
    )


def read_capture(kb: KnowledgeBase, captured: Capture) -> Inputs:
    """The facts of a captured run (``triage run``), merged by the same rules as :func:`read`.

    Each source of the capture is typed in the order it lists them (a launcher's guess, config
    files, the script's arguments, the machine, the output, the exit status), so a config file
    beats the launcher, the script's own arguments beat the config file, and every disagreement
    is reported as it would be between inputs given to ``triage diagnose``.
    """
    facts: list[Fact] = []
    notes = list(captured.all_notes())
    for found, kind, path in captured.groups():
        typed, problems = to_facts(kb.facts, found, kind, path)
        facts += typed
        notes += problems
    got = gather(kb.facts, cli_facts=facts)
    arch = None
    for path, reading in captured.configs:
        if reading.kind == "model_config":
            try:
                arch = load_hf_config(path)
            except ArchitectureError as exc:
                notes.append(f"{path}: {exc}")
    return Inputs(
        facts=tuple(got.facts),
        text=captured.finished.reading.excerpt,
        conflicts=tuple(c.describe() for c in got.conflicts),
        unknown_keys=tuple(f"{path}: {key}" for path, key in captured.unknown_keys()),
        notes=tuple(notes),
        read_as=captured.read_as(),
        architecture=arch,
    )


@dataclass(frozen=True)
class Analysis:
    """A diagnosis, what the estimator says about the same run, and similar solved reports."""

    diagnosis: Diagnosis
    memory: Memory
    similar: tuple[Neighbour, ...] = ()


def similar_index(kb: KnowledgeBase) -> Index | None:
    """The index of the corpus of solved reports (``$TRIAGE_CORPUS`` or the bundled one; None when it is empty),
    its word model also taught by the knowledge base's worked cases (:func:`worked_examples`)."""
    return _index_of(default_corpus_dir(), worked_examples(kb))


@cache
def _index_of(root: Path, examples: tuple[Example, ...]) -> Index | None:
    records = load_corpus(root)
    return Index([r for r in records if r.scope == "in"], examples) if records else None


def solved_reports_index(kb: KnowledgeBase, records: Sequence[Record]) -> Index:
    """An index of these solved reports (the benches pass the development split's), taught by the worked cases too."""
    return Index(records, worked_examples(kb))


def worked_examples(kb: KnowledgeBase) -> tuple[Example, ...]:
    """The words of every case that must bring its cause out (``expect: fire`` or ``rank``), by the cause's category.

    Each cause's cases show how its reports read, so they teach the word model the
    vocabulary of categories the corpus has few reports of; they are never shown as
    similar reports.
    """
    return tuple(
        Example(kb.causes[cause].category.value, case.symptom, case_name(cause, case.name))
        for cause, cases in sorted(kb.cases.items())
        if cause in kb.causes
        for case in cases.cases
        if case.shows_cause and case.symptom
    )


def case_name(cause: str, case: str) -> str:
    """The name a worked case goes by in the word model (what ``exclude`` takes to leave it out)."""
    return f"case:{cause}/{case}"


def _similar_item(share: float, rank: int, kinds: int, vote: float, n: int, examples: int) -> Item:
    """The evidence line of a category's share: how often such a share came true (:func:`~triage.similar.shown_share`;
    the vote is that figure's log too), where it stands among the ``kinds`` categories (a small share still adds a
    little when most kinds get less), and what the word model learned from."""
    among = f"the {_ordinal(rank)} most often of {kinds} kinds"
    if rank == 1:
        among = f"more often than any other of {kinds} kinds"
    among_zh = f"在 {kinds} 类原因中最多" if rank == 1 else f"在 {kinds} 类原因中排第 {rank}"
    came_true = shown_share(share)
    label = (
        f"reports worded like yours ended with this kind of cause {came_true:.0%} of the time, {among}"
        f" (a word model over {n} solved public reports, how they were resolved, and {examples} worked examples)"
    )
    zh = (
        f"与您措辞相似的报告中约 {came_true:.0%} 最终是这类原因，{among_zh}"
        f"（基于 {n} 篇已解决的公开报告、它们的解决方式和 {examples} 个示例的词语模型）"
    )
    return Item("similar", label, vote, "true", label_zh=zh)


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def scorer_for(
    kb: KnowledgeBase, text: str, index: Index | None = None, exclude: Sequence[str] = ()
) -> tuple[Scorer, tuple[Neighbour, ...]]:
    """The scorer for ``text``: the knowledge base's signals plus the evidence of similar solved reports.

    The solved reports' word model (:meth:`~triage.similar.Index.shares`) adds evidence for each
    category by its share (to the category's best-supported cause); the
    :data:`~triage.similar.NEIGHBOURS` most similar reports are the ones shown to the user.
    """
    index = index if index is not None else similar_index(kb)
    by_category: dict[str, list[Item]] = {}
    neighbours: tuple[Neighbour, ...] = ()
    if index is not None and text.strip():
        shares = index.shares(text, exclude=exclude)
        left_out = {u.lower() for u in exclude}
        solved = sum(1 for r in index.records if r.scope == "in" and r.url.lower() not in left_out)
        order = sorted(shares, key=lambda cat: (-shares[cat], cat))
        by_category = {
            cat: [_similar_item(shares[cat], order.index(cat) + 1, len(shares), vote, solved, len(index.examples))]
            for cat, vote in votes(shares).items()
        }
        neighbours = tuple(index.nearest(text, k=NEIGHBOURS, exclude=exclude))
    scorer = Scorer(
        kb.causes, text, kb.anchors, remedies=remedy_tables(kb.causes, kb.remedies), by_category=by_category
    )
    return scorer, neighbours


def analyse(
    kb: KnowledgeBase,
    session: Session,
    scorer: Scorer | None = None,
    *,
    index: Index | None = None,
    exclude: Sequence[str] = (),
    neighbours: tuple[Neighbour, ...] | None = None,
) -> Analysis:
    """Estimate, diagnose and plan: the whole pipeline after the readers.

    The estimator's derived facts join the session's facts before causes are
    scored, and remedies are ranked by what they save on this run. Similar
    solved reports (``index``, default the bundled corpus; ``exclude`` URLs
    never vote) add their evidence. Pass a ``scorer`` (with its
    ``neighbours``) built by :func:`scorer_for` to reuse its text matches (the
    interview does, between answers).
    """
    if scorer is None:
        scorer, neighbours = scorer_for(kb, session.text, index, exclude)
    session = replace(session, facts=derive(session.facts).with_coarse(kb.facts))
    try:
        est: Estimate | None = estimate(session.facts)
        missing = None
    except NOT_ESTIMABLE as exc:
        est, missing = None, str(exc).strip("'\"")
    need = None
    if est is not None and est.capacity_bytes:
        need = max(0, est.device_total.expected - est.capacity_bytes) or None
    outcomes: dict[str, Outcome] = {}
    weight = DOUBTED_WEIGHT if doubt(session.facts, est) is not None else 1.0
    diagnosis = diagnose(
        kb, session, scorer, saving_of=saver(session.facts, est, outcomes), need=need, derived_weight=weight
    )
    memory = quantify(diagnosis, est, missing, library=kb.remedies.values(), outcomes=outcomes)
    return Analysis(with_memory_questions(diagnosis, memory, kb), memory, neighbours or ())


def with_memory_questions(diagnosis: Diagnosis, memory: Memory, kb: KnowledgeBase) -> Diagnosis:
    """The diagnosis with a question for each assumed setting that moves the estimate by more than 10 %,
    ranked with the cause questions by gain times ease; the interview is not done while one is open."""
    extra = memory_questions(memory, kb.facts, diagnosis.session.facts)
    if not extra:
        return diagnosis
    return replace(diagnosis, questions=tuple(merge_questions(diagnosis.questions, extra)[:5]), done=False)


def merge_questions(questions: Sequence[Question], extra: Sequence[Question]) -> list[Question]:
    """Cause questions and memory questions in one ranking (gain times ease, as the planner ranks);
    a fact asked for both keeps the cause question's answers and the larger gain."""
    best: dict[str, Question] = {q.fact: q for q in questions}
    for q in extra:
        have = best.get(q.fact)
        best[q.fact] = q if have is None else replace(have, gain=max(have.gain, q.gain))
    return sorted(best.values(), key=lambda q: (-round(q.gain * q.ease, 3), -q.ease, q.fact))


def estimate_inputs(inputs: Inputs) -> Estimate:
    """The memory estimate of the run the inputs describe; raises one of :data:`EstimateError`."""
    return estimate(FactSet().with_facts(inputs.facts), inputs.architecture)


def alternatives_of(inputs: Inputs, est: Estimate) -> list[Alternative]:
    """The estimate under the other value of each assumed setting that moves it by more than 10 %."""
    return alternatives(FactSet().with_facts(inputs.facts), est, inputs.architecture)


def run_of(inputs: Inputs) -> Run:
    """The run the inputs describe, every default stated; raises one of :data:`EstimateError`."""
    return run_from_facts(FactSet().with_facts(inputs.facts), inputs.architecture)


def fit_inputs(inputs: Inputs, variable: str, *, headroom: float, upper: int | None) -> FitResult:
    """The largest ``variable`` that fits; raises one of :data:`EstimateError`."""
    return fit(FactSet().with_facts(inputs.facts), variable, headroom=headroom, arch=inputs.architecture, upper=upper)


def what_if(facts: FactSet, remedies: Sequence[Remedy], before: Estimate | None = None) -> Saving:
    """The run after applying every remedy in ``remedies`` together (later ones win on a shared fact).

    Raises one of :data:`EstimateError` when the run cannot be sized with those changes.
    """
    changes: dict[str, object] = {}
    for remedy in remedies:
        changes.update(remedy.changes)
    return saving_detail(facts, changes, before=before)


__all__ = [
    "Analysis",
    "EstimateError",
    "Inputs",
    "alternatives_of",
    "analyse",
    "case_name",
    "estimate_inputs",
    "fit_inputs",
    "read",
    "read_capture",
    "run_of",
    "solved_reports_index",
    "what_if",
    "worked_examples",
]
