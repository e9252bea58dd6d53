"""A :class:`Session` of facts and text in, a :class:`Diagnosis` out.

This is the one API both faces (CLI and TUI) use. It ranks every cause,
collects the remedies of the likely ones (deduplicated, ordered by the
probability of the causes they treat), flags community myths the user's text
repeats, and proposes the next questions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from triage.engine.calibration import calibrated
from triage.engine.conditions import evaluate, version_in
from triage.engine.questions import Question, QuestionPlanner, should_stop
from triage.engine.scoring import (
    Scored,
    Scorer,
    probabilities,
    remedy_tables,
    version_fact,
)
from triage.engine.signals import Match, match_all
from triage.facts import FactSet
from triage.kb.loader import KnowledgeBase
from triage.kb.models import RELATIVE_CHANGES, Myth, Remedy

#: Remedies are drawn from causes at least this probable (and always from the top one).
REMEDY_FLOOR = 0.05
#: Each later remedy in a cause's list counts this much less than the one before.
REMEDY_DECAY = 0.8
#: A myth is shown when its matched signals add up to at least this.
MYTH_THRESHOLD = 1.0


@dataclass(frozen=True)
class Session:
    """What the user has told us: typed facts and the free text they wrote or pasted."""

    facts: FactSet = field(default_factory=FactSet)
    text: str = ""
    lang: str = "en"
    conflicts: tuple[str, ...] = ()
    """Where two inputs disagreed, and which one was believed."""
    unknown_keys: tuple[str, ...] = ()
    """Config keys the readers did not understand ("args.json: foo")."""
    notes: tuple[str, ...] = ()
    """What the readers want the user to know about how they read the inputs."""
    read_as: tuple[tuple[str, str], ...] = ()
    """(path, kind) of every input file."""


@dataclass(frozen=True)
class RankedCause:
    """A cause in the ranking."""

    scored: Scored
    probability: float
    """What the user is shown: calibrated on real reports (:mod:`triage.engine.calibration`), in the engine's order."""

    @property
    def id(self) -> str:
        return self.scored.cause.id


@dataclass(frozen=True)
class RankedRemedy:
    """A remedy of the likely causes, with why it is suggested and whether it applies."""

    remedy: Remedy
    weight: float
    """Sum over the causes it treats of probability x position decay."""
    for_causes: tuple[str, ...]
    applicable: bool | None
    """False when a prerequisite is known to fail; None when some are unknown."""
    blockers: tuple[str, ...]
    """Why it may not apply: unmet prerequisites or version requirements."""
    saving_bytes: int | None = None
    """What it saves on this run per the estimator (None when not estimated)."""
    value: float = 0.0
    """The ranking key: weight, scaled by the memory it buys and its cost."""


@dataclass(frozen=True)
class FlaggedMyth:
    """A community myth the user's text repeats."""

    myth: Myth
    matches: tuple[Match, ...]


@dataclass(frozen=True)
class Diagnosis:
    """Everything the engine concluded for a session."""

    session: Session
    causes: tuple[RankedCause, ...]
    """Best first; causes ruled out come last with probability 0."""
    remedies: tuple[RankedRemedy, ...]
    myths: tuple[FlaggedMyth, ...]
    questions: tuple[Question, ...]
    done: bool
    """True when no question is worth asking any more."""


def remedy_status(remedy: Remedy, facts: FactSet) -> tuple[bool | None, tuple[str, ...]]:
    """Whether ``remedy`` applies to the run (False: a requirement or prerequisite fails, or the run
    already has every change it makes; None: something is unknown) and why not."""
    blockers: list[str] = []
    state: bool | None = True
    for req in remedy.requires:
        have = facts.value(version_fact(req.package))
        if have is None:
            state = None if state is not False else False
            continue
        if not version_in(str(have), req.specifier):
            state = False
            blockers.append(f"needs {req.package}{req.specifier} (you have {have})")
    for pre in remedy.prerequisites:
        truth = evaluate(pre.test, facts)
        if truth is False:
            state = False
            blockers.append(pre.label.en if pre.label else "a prerequisite does not hold")
        elif truth is None and state is True:
            state = None
    already = _already_has(remedy, facts)
    if already:
        state = False
        blockers.append(f"your run already has {already}")
    return state, tuple(blockers)


def _already_has(remedy: Remedy, facts: FactSet) -> str | None:
    """``"zero_stage=3"`` when every change the remedy makes is already the run's setting (nothing to gain)."""
    if not remedy.changes:
        return None
    said = []
    for name, value in remedy.changes.items():
        have = facts.value(name)
        if have is None or (isinstance(value, str) and value in RELATIVE_CHANGES.get(name, frozenset())):
            return None
        if str(have).lower() != str(value).lower():
            return None
        said.append(f"{name}={have}")
    return ", ".join(said)


#: Cost levels as a penalty on a remedy's value.
_COST = {"none": 0.0, "low": 0.05, "medium": 0.12, "high": 0.25}
#: A saving of this many bytes counts as fully worthwhile when the deficit is unknown.
_ENOUGH = 4 * 1024**3

SavingOf = Callable[[Remedy], "int | None"]


def _value(remedy: Remedy, weight: float, saving: int | None, need: int | None) -> float:
    """Weight from the causes, scaled by how much of the needed memory the remedy buys, minus its cost."""
    penalty = 1.0 - _COST[remedy.cost.speed] - 1.5 * _COST[remedy.cost.quality]
    if saving is None:
        return weight * 0.6 * penalty
    share = min(1.0, max(0, saving) / max(need or _ENOUGH, 1))
    return weight * (0.15 + 0.85 * share) * penalty


def _rank_remedies(
    kb: KnowledgeBase,
    causes: list[RankedCause],
    facts: FactSet,
    saving_of: SavingOf | None = None,
    need: int | None = None,
) -> list[RankedRemedy]:
    weights: dict[str, float] = {}
    owners: dict[str, list[str]] = {}
    for i, rc in enumerate(causes):
        if rc.scored.excluded or (i > 0 and rc.probability < REMEDY_FLOOR):
            continue
        for pos, rid in enumerate(rc.scored.cause.remedies):
            if rid not in kb.remedies:
                continue
            weights[rid] = weights.get(rid, 0.0) + rc.probability * REMEDY_DECAY**pos
            owners.setdefault(rid, []).append(rc.id)
    ranked = []
    for rid, weight in weights.items():
        remedy = kb.remedies[rid]
        state, blockers = remedy_status(remedy, facts)
        saving = saving_of(remedy) if saving_of is not None else None
        value = _value(remedy, weight, saving, need)
        ranked.append(RankedRemedy(remedy, weight, tuple(owners[rid]), state, blockers, saving, value))

    # not-applicable remedies sink below every applicable or possibly applicable one, except those that only
    # an upgrade stands between: they rank by their value, discounted for the upgrade they need
    def key(r: RankedRemedy) -> tuple[bool, float, str]:
        upgradable = r.applicable is False and _only_versions_block(r.remedy, facts)
        return (
            r.applicable is False and not upgradable,
            -r.value * (UPGRADE_DISCOUNT if upgradable else 1.0),
            r.remedy.id,
        )

    ranked.sort(key=key)
    return ranked


#: An upgrade is a remedy's cost too: a remedy that needs one ranks at this share of its value.
UPGRADE_DISCOUNT = 0.6


def _only_versions_block(remedy: Remedy, facts: FactSet) -> bool:
    """True when a library version is all that keeps ``remedy`` from applying (an upgrade unlocks it)."""
    if _already_has(remedy, facts) or not remedy.requires:
        return False
    if any(evaluate(pre.test, facts) is False for pre in remedy.prerequisites):
        return False
    return any(
        (have := facts.value(version_fact(req.package))) is not None and not version_in(str(have), req.specifier)
        for req in remedy.requires
    )


def _flag_myths(kb: KnowledgeBase, text: str) -> list[FlaggedMyth]:
    flagged = []
    for myth in kb.myths.values():
        matches = match_all(myth.signals, text, kb.anchors)
        if sum(m.signal.weight for m in matches) >= MYTH_THRESHOLD:
            flagged.append(FlaggedMyth(myth, tuple(matches)))
    flagged.sort(key=lambda f: (-sum(m.signal.weight for m in f.matches), f.myth.id))
    return flagged


def diagnose(
    kb: KnowledgeBase,
    session: Session,
    scorer: Scorer | None = None,
    *,
    saving_of: SavingOf | None = None,
    need: int | None = None,
    derived_weight: float = 1.0,
) -> Diagnosis:
    """Rank causes, remedies, myths and questions for ``session``.

    Pass a ``scorer`` built for the same text to reuse its text matches (the
    interview does, as it re-diagnoses after every answer). ``saving_of`` gives
    a remedy's saving in bytes on this run and ``need`` the bytes the run is
    over its GPU; with them remedies rank by the memory they buy. ``derived_weight`` scales the
    evidence that rests only on the estimator's derived facts (1: full weight).
    """
    scorer = scorer or Scorer(
        kb.causes,
        session.text,
        kb.anchors,
        remedies=remedy_tables(kb.causes, kb.remedies),
    )
    scored = scorer.score(session.facts, derived_weight)
    dist = probabilities(scored)
    shown = calibrated(dist)
    causes = [RankedCause(s, shown.get(s.cause.id, 0.0)) for s in scored]
    questions = QuestionPlanner(scorer, kb.facts).rank(session.facts, scored, dist)
    return Diagnosis(
        session=session,
        causes=tuple(causes),
        remedies=tuple(_rank_remedies(kb, causes, session.facts, saving_of, need)),
        myths=tuple(_flag_myths(kb, session.text)),
        questions=tuple(questions),
        done=should_stop(dist, questions, next((s for s in scored if not s.excluded), None)),
    )
