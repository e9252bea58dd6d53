"""Run the behaviour cases of the knowledge base through the same path as ``triage diagnose``.

Used by pytest (tests/test_knowledge_cases.py) and ``triage kb test [ID]``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from triage.api import analyse, build_session, case_name, facts_from_mapping
from triage.engine.diagnose import Diagnosis, RankedCause
from triage.facts import Source
from triage.kb.loader import KnowledgeBase
from triage.kb.models import Case
from triage.similar import Index


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case."""

    cause_id: str
    case: Case
    passed: bool
    rank: int | None
    """1-based rank of the cause among causes not ruled out (None when ruled out)."""
    target: RankedCause
    diagnosis: Diagnosis
    reason: str

    @property
    def todo(self) -> bool:
        return self.case.expect.startswith("todo-")

    def ranking(self, n: int = 5) -> list[str]:
        """The top ``n`` of the ranking, one line each, for failure reports."""
        lines = []
        live = [rc for rc in self.diagnosis.causes if not rc.scored.excluded]
        for i, rc in enumerate(live[:n], 1):
            mark = "→" if rc.id == self.cause_id else " "
            lines.append(f"{mark}{i:>2}. {rc.id:<44} score {rc.scored.score:+6.2f}  p {rc.probability:5.1%}")
        if self.rank is None or self.rank > n:
            where = "ruled out" if self.rank is None else f"rank {self.rank}"
            lines.append(f"→  . {self.cause_id:<44} score {self.target.scored.score:+6.2f}  ({where})")
        return lines

    def evidence(self) -> list[str]:
        """The evidence behind the target cause."""
        return [
            f"{i.weight:+5.2f} [{i.state}] {i.label}" + (" (veto)" if i.veto else "") for i in self.target.scored.items
        ]


def run_case(kb: KnowledgeBase, cause_id: str, case: Case, similar: bool = False) -> CaseResult:
    """Diagnose the case's symptom and facts and judge the cause's place in the ranking.

    A case is a claim about the knowledge base, so by default the votes of the bundled corpus'
    similar solved reports are left out: records joining the corpus never change a case's outcome.
    ``similar=True`` runs the user's whole path, those votes included (``triage kb test --with-corpus``),
    except that no worked case with the case's own words teaches the word model: a case never votes for itself.
    """
    facts = facts_from_mapping(kb, case.facts, Source("case", excerpt=case.name))
    session = build_session(kb, symptoms=[case.symptom or ""], facts=facts)
    if similar:
        own = [case_name(cid, c.name) for cid, c in iter_cases(kb) if case.symptom and c.symptom == case.symptom]
        diagnosis = analyse(kb, session, exclude=own).diagnosis
    else:
        diagnosis = analyse(kb, session, index=_no_corpus()).diagnosis
    live = [rc for rc in diagnosis.causes if not rc.scored.excluded]
    target = next(rc for rc in diagnosis.causes if rc.id == cause_id)
    rank = next((i for i, rc in enumerate(live, 1) if rc.id == cause_id), None)
    want_fire = case.expect.endswith("fire")
    fired = target.scored.fired
    if case.expect.endswith("rank"):
        top_k = case.top_k or 1
        passed = rank is not None and rank <= top_k
        reason = f"ranked {rank}" if rank is not None else "ruled out"
        reason += f", {'within' if passed else 'not within'} the top {top_k}"
    elif want_fire:
        passed, reason = fired, "fired" if fired else f"did not fire (score {target.scored.score:+.2f} < 0)"
        if passed and case.top_k is not None and (rank is None or rank > case.top_k):
            passed, reason = False, f"fired but ranked {rank}, not within the top {case.top_k}"
    else:
        passed = not fired
        reason = "stayed silent" if passed else f"fired (score {target.scored.score:+.2f}) but must stay silent"
    return CaseResult(cause_id, case, passed, rank, target, diagnosis, reason)


@cache
def _no_corpus() -> Index:
    """An index without records: no similar report votes."""
    return Index(())


def iter_cases(kb: KnowledgeBase, only: str | None = None) -> Iterator[tuple[str, Case]]:
    """Every (cause id, case) pair, optionally for one cause."""
    for cause_id in sorted(kb.cases):
        if only is not None and cause_id != only:
            continue
        for case in kb.cases[cause_id].cases:
            yield cause_id, case
