"""Knowledge cases judge the knowledge base alone; `triage kb test --with-corpus` adds the corpus' votes."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from triage.authoring.kbtest import iter_cases, run_case
from triage.cli import main
from triage.kb.loader import load_knowledge
from triage.kb.models import Case

_KB, _ = load_knowledge()
_VOTE_LINE = "reports worded like yours ended with this kind of cause"


def _votes(result) -> float:
    return sum(i.weight for i in result.target.scored.items if i.kind == "similar")


def _voted_case():
    """The first case the bundled corpus' similar reports vote on (found, not named: the corpus grows)."""
    return next((cid, case) for cid, case in iter_cases(_KB) if _votes(run_case(_KB, cid, case, similar=True)) > 0)


def test_a_case_leaves_out_the_votes_of_similar_reports_unless_asked_and_nothing_else():
    cause_id, case = _voted_case()
    alone = run_case(_KB, cause_id, case)
    full = run_case(_KB, cause_id, case, similar=True)
    assert not any(i.kind == "similar" for rc in alone.diagnosis.causes for i in rc.scored.items)
    assert math.isclose(alone.target.scored.score, full.target.scored.score - _votes(full), abs_tol=1e-9)


def test_the_flag_on_the_command_line(capsys):
    cause_id, _ = _voted_case()
    assert main(["kb", "test", cause_id, "-v"]) in (0, 1)
    out = capsys.readouterr().out
    assert f"{cause_id}::" in out
    assert _VOTE_LINE not in out
    assert main(["kb", "test", cause_id, "-v", "--with-corpus"]) in (0, 1)
    assert _VOTE_LINE in capsys.readouterr().out


def test_a_rank_case_passes_within_its_top_k_whether_or_not_the_cause_is_likely():
    symptom = "SFT works fine on one 3090, but DPO with the same model and data runs out of memory at the first step"
    result = run_case(_KB, "dpo-reference-model-copy", Case(name="x", expect="rank", top_k=3, symptom=symptom))
    assert result.rank is not None and result.rank <= 3
    assert result.passed, result.reason
    assert "within the top 3" in result.reason
    elsewhere = run_case(_KB, "host-ram-oom", Case(name="x", expect="rank", top_k=1, symptom=symptom))
    assert not elsewhere.passed
    assert "not within the top 1" in elsewhere.reason or "ruled out" in elsewhere.reason


def test_a_rank_case_needs_top_k():
    with pytest.raises(ValidationError, match="top_k"):
        Case(name="x", expect="rank", symptom="OOM")


def test_with_the_corpus_a_case_never_votes_for_itself_through_the_worked_examples():
    from triage.api import analyse, build_session, facts_from_mapping
    from triage.corpus import load_corpus
    from triage.facts import Source
    from triage.pipeline import worked_examples
    from triage.similar import Index

    cause_id, case = _voted_case()
    full = run_case(_KB, cause_id, case, similar=True)
    every = worked_examples(_KB)
    others = [e for e in every if e.text != case.symptom]
    assert len(others) < len(every)  # the case is itself a worked example
    index = Index([r for r in load_corpus() if r.scope == "in"], others)
    facts = facts_from_mapping(_KB, case.facts, Source("case", excerpt=case.name))
    without = analyse(_KB, build_session(_KB, symptoms=[case.symptom or ""], facts=facts), index=index).diagnosis
    want = {rc.id: _votes_of(rc) for rc in without.causes}
    assert {rc.id: _votes_of(rc) for rc in full.diagnosis.causes} == pytest.approx(want)


def _votes_of(rc) -> float:
    return sum(i.weight for i in rc.scored.items if i.kind == "similar")
