"""Choose what to ask next: the unknown fact with the highest expected information gain.

For each askable unknown fact and each answer it could take, the likelihood of
that answer under each cause is read off the cause's own evidence: an answer
that adds ``w`` log-odds to a cause is ``e^w`` times likelier under it. The
gain is the entropy of the current cause distribution minus the expected
entropy after the answer. Ties go to the question that is easier to answer.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier

from triage.engine.conditions import leaves, specifier
from triage.engine.scoring import Scored, Scorer, evidence_of
from triage.facts import Fact, FactSet, Source, Value
from triage.kb.models import FactSpec, FactType, Leaf

#: Stop asking when the top cause is at least this probable ...
CONFIDENT = 0.8
#: ... or when no question is expected to gain this many bits.
MIN_GAIN = 0.02


@dataclass(frozen=True)
class Question:
    """A question worth asking, with how much it is expected to tell."""

    fact: str
    gain: float
    """Expected information gain over the cause distribution, in bits."""
    ease: float
    values: tuple[Value, ...]
    """The answers considered (quick replies in the interview)."""


def entropy(dist: Mapping[str, float]) -> float:
    """Shannon entropy in bits."""
    return -sum(p * math.log2(p) for p in dist.values() if p > 0)


def _numeric_candidates(points: list[float]) -> list[float]:
    pts = sorted(set(points))
    if not pts:
        return []
    out = [pts[0] - max(1.0, abs(pts[0]) * 0.5)]
    out += [(a + b) / 2 for a, b in itertools.pairwise(pts)]
    out += pts
    out.append(pts[-1] + max(1.0, abs(pts[-1]) * 0.5))
    return sorted(set(out))


def candidate_values(spec: FactSpec, tests: list[Leaf]) -> list[Value]:
    """The answers worth distinguishing for ``spec``, derived from the tests that use it."""
    if spec.type is FactType.bool:
        return [True, False]
    if spec.type is FactType.enum:
        return list(spec.values or [])
    if spec.type in (FactType.int, FactType.float, FactType.bytes):
        points: list[float] = []
        for t in tests:
            values = t.value if isinstance(t.value, list) else [t.value]
            points += [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        nums = _numeric_candidates(points)
        if spec.type is FactType.float:
            return list(nums)
        return [round(n) for n in nums if n >= 0]
    if spec.type is FactType.version:
        versions: set[str] = set()
        for t in tests:
            try:
                versions.update(s.version.rstrip(".*") for s in specifier(str(t.value)))
            except InvalidSpecifier:
                continue
        return sorted(versions | {"0.1"})
    return []


class QuestionPlanner:
    """Ranks unknown facts by expected information gain over the current ranking."""

    def __init__(self, scorer: Scorer, specs: Mapping[str, FactSpec]) -> None:
        self.scorer = scorer
        self.specs = specs
        self.tests: dict[str, list[Leaf]] = {}
        self.users: dict[str, list[str]] = {}
        for cid, cause in scorer.causes.items():
            for ev in evidence_of(cause):
                for leaf in leaves(ev.test):
                    self.tests.setdefault(leaf.fact, []).append(leaf)
                    if cid not in self.users.setdefault(leaf.fact, []):
                        self.users[leaf.fact].append(cid)

    def gain(
        self, name: str, facts: FactSet, scored: Mapping[str, Scored], dist: Mapping[str, float]
    ) -> Question | None:
        """The expected gain of asking about ``name``, or None when it cannot help."""
        spec = self.specs.get(name)
        if spec is None or not spec.askable:
            return None
        values = candidate_values(spec, self.tests.get(name, []))
        if len(values) < 2:
            return None
        causes = [cid for cid in self.users.get(name, []) if cid in dist]
        # likelihood[cid][i]: relative likelihood of answer i under cause cid
        likelihood: dict[str, list[float]] = {}
        for cid in causes:
            base = scored[cid].score
            raw = []
            for value in values:
                hypo = facts.with_facts([Fact(name, value, Source("answer"))])
                s = self.scorer.score_one(scored[cid].cause, hypo)
                raw.append(0.0 if s.excluded else math.exp(max(-30.0, min(30.0, s.score - base))))
            total = sum(raw)
            likelihood[cid] = [r / total for r in raw] if total > 0 else [1 / len(values)] * len(values)
        uniform = 1 / len(values)
        expected = 0.0
        for i in range(len(values)):
            joint = {cid: p * (likelihood[cid][i] if cid in likelihood else uniform) for cid, p in dist.items()}
            p_answer = sum(joint.values())
            if p_answer <= 0:
                continue
            expected += p_answer * entropy({cid: j / p_answer for cid, j in joint.items()})
        gain = entropy(dist) - expected
        if gain <= 1e-9:
            return None
        return Question(name, gain, spec.ease, tuple(values))

    def rank(self, facts: FactSet, scored: list[Scored], dist: Mapping[str, float], limit: int = 5) -> list[Question]:
        """The best questions first: expected gain times ease (the chance a user can answer at all).

        A question most users cannot answer gains nothing in expectation, however much its answer
        would tell; ties (to 0.001 bits) go to the easier one.
        """
        by_id = {s.cause.id: s for s in scored}
        names = sorted({n for s in scored if not s.excluded for n in s.unknown})
        found = [q for n in names if (q := self.gain(n, facts, by_id, dist)) is not None]
        found.sort(key=lambda q: (-round(q.gain * q.ease, 3), -q.ease, q.fact))
        return found[:limit]


def pending_veto(top: Scored | None, questions: Sequence[Question]) -> Question | None:
    """A question about a necessary condition (a ``veto``) of the top cause that is still unknown.

    A cause is not confidently the answer while something that would rule it out is unasked.
    """
    if top is None:
        return None
    vetoes = {leaf.fact for ev in evidence_of(top.cause) if ev.veto for leaf in leaves(ev.test)}
    return next((q for q in questions if q.fact in vetoes), None)


def should_stop(dist: Mapping[str, float], questions: Sequence[Question], top: Scored | None = None) -> bool:
    """Whether the interview has nothing left worth asking.

    It stops when no question would gain enough, or when the top cause is
    confident and none of its necessary conditions is still unknown.
    """
    if not questions or questions[0].gain < MIN_GAIN:
        return True
    confident = bool(dist) and max(dist.values()) >= CONFIDENT
    return confident and pending_veto(top, questions) is None
