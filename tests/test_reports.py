"""Replay realistic user reports and check the true cause ranks in the top 3.

Each file in ``tests/fixtures/reports/`` is one report of the kind people post in
GitHub issues or forums (English or Chinese, often with a pasted traceback or
config), written independently of the knowledge base's signals:

    lang: en | zh
    cause: <cause id>          # the true cause; null while the KB has no cause for it
    category: <category>       # required when cause is null: a cause of this category must rank top 3
    myths: [<myth id>, ...]    # myths the report repeats (default: none may be flagged)
    xfail: <reason>            # a known KB gap (strict: the test fails once the gap is fixed)
    report: |
      ...

The report goes through exactly the path ``triage --symptom "..."`` takes
(:func:`triage.api.build_session` then :func:`triage.api.analyse`: the estimator's
derived facts, similar solved reports and the remedy savings included).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from triage.api import Diagnosis, analyse, build_session
from triage.kb.loader import KnowledgeBase, load_knowledge
from triage.kb.models import Category

REPORTS = Path(__file__).parent / "fixtures" / "reports"
TOP_K = 3
KEYS = {"lang", "cause", "category", "myths", "xfail", "report", "note"}


def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    assert isinstance(data, dict), f"{path.name}: not a mapping"
    unknown = set(data) - KEYS
    assert not unknown, f"{path.name}: unknown keys {sorted(unknown)}"
    return data


def _params(*, ranking: bool) -> list[Any]:
    """One param per report; ``xfail`` (a ranking gap) marks only the ranking test."""
    params = []
    for path in sorted(REPORTS.glob("*.yaml")):
        data = _load(path)
        gap = ranking and data.get("xfail")
        marks = [pytest.mark.xfail(reason=str(data["xfail"]), strict=True)] if gap else []
        params.append(pytest.param(path.stem, data, id=path.stem, marks=marks))
    return params


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    knowledge, _problems = load_knowledge()
    return knowledge


def _run(kb: KnowledgeBase, data: dict[str, Any]) -> Diagnosis:
    session = build_session(kb, symptoms=[data["report"]], lang=data["lang"])
    return analyse(kb, session).diagnosis


def _ranking(diagnosis: Diagnosis) -> str:
    live = [rc for rc in diagnosis.causes if not rc.scored.excluded]
    return ", ".join(f"{rc.id} ({rc.probability:.2f})" for rc in live[:6])


def test_there_are_enough_reports_across_languages() -> None:
    reports = [_load(p) for p in REPORTS.glob("*.yaml")]
    assert len(reports) >= 30
    assert sum(r["lang"] == "zh" for r in reports) >= 10
    assert sum(r["lang"] == "en" for r in reports) >= 10


def test_reports_cover_many_categories(kb: KnowledgeBase) -> None:
    categories: set[str] = set()
    for path in REPORTS.glob("*.yaml"):
        data = _load(path)
        if data.get("cause") in kb.causes:
            categories.add(kb.causes[data["cause"]].category.value)
        elif data.get("category"):
            categories.add(str(data["category"]))
    assert len(categories) >= 18, sorted(categories)


@pytest.mark.parametrize(("name", "data"), _params(ranking=True))
def test_true_cause_in_top_3(kb: KnowledgeBase, name: str, data: dict[str, Any]) -> None:
    assert data["lang"] in {"en", "zh"}
    diagnosis = _run(kb, data)
    live = [rc for rc in diagnosis.causes if not rc.scored.excluded]
    top = live[:TOP_K]
    cause = data.get("cause")
    if cause:
        assert cause in kb.causes, f"{name}: cause {cause!r} is not in the knowledge base"
        assert cause in [rc.id for rc in top], f"{name}: {cause} not in top {TOP_K}; ranking: {_ranking(diagnosis)}"
    else:
        category = data.get("category")
        assert category in {c.value for c in Category}, f"{name}: give a cause id or a valid category"
        got = [rc.scored.cause.category.value for rc in top]
        assert category in got, f"{name}: no {category} cause in top {TOP_K}; ranking: {_ranking(diagnosis)}"


@pytest.mark.parametrize(("name", "data"), _params(ranking=False))
def test_only_the_repeated_myths_are_flagged(kb: KnowledgeBase, name: str, data: dict[str, Any]) -> None:
    expected = set(data.get("myths") or [])
    assert expected <= set(kb.myths), f"{name}: unknown myth ids {sorted(expected - set(kb.myths))}"
    flagged = {fm.myth.id for fm in _run(kb, data).myths}
    assert flagged == expected, f"{name}: flagged {sorted(flagged)}, expected {sorted(expected)}"
