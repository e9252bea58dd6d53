"""The community thread's coverage map (knowledge/coverage/) and its check in ``triage kb stats``.

The map ties every item of the thread's coverage checklist (causes C1-C19, remedies M1-M32 in
shared/reference/seed-claims.md) to the entities that cover it, and every fact-checked claim to
its verdict and, for FALSE/PARTLY claims, to the myth that corrects it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from triage.api import build_session, facts_from_mapping, run
from triage.authoring.stats import compute, coverage_shortfalls
from triage.cli import main
from triage.engine.conditions import leaves
from triage.engine.scoring import REMEDY_FACTS, evidence_of, version_fact
from triage.facts import Source
from triage.kb.loader import KnowledgeBase, load_checked
from triage.kb.models import Category

ROOT = Path(__file__).resolve().parents[1]
COVERAGE = ROOT / "knowledge" / "coverage" / "community-thread-zh.yaml"
SEED_CLAIMS = ROOT.parent / "shared" / "reference" / "seed-claims.md"
_ROW = re.compile(r"^\| ([A-Z]{1,2}\d+) \| .*? \| .*? \| \*\*(TRUE|FALSE|PARTLY|UNVERIFIABLE)\*\* \|")
_CHECKLIST_ROW = re.compile(r"^\| ([CM]\d+) \| ")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_checked()


@pytest.fixture(scope="module")
def coverage() -> dict[str, Any]:
    with COVERAGE.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    assert isinstance(data, dict)
    return data


def _reference() -> tuple[set[str], dict[str, str]]:
    """Checklist item ids and claim verdicts as written in seed-claims.md."""
    if not SEED_CLAIMS.is_file():
        pytest.skip(f"reference {SEED_CLAIMS} is not in this checkout")
    items: set[str] = set()
    claims: dict[str, str] = {}
    in_checklist = False
    for line in SEED_CLAIMS.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_checklist = line.startswith("## Coverage checklist")
        if in_checklist and (m := _CHECKLIST_ROW.match(line)):
            items.add(m.group(1))
        elif not in_checklist and (m := _ROW.match(line)):
            claims[m.group(1)] = m.group(2).lower()
    return items, claims


def test_every_checklist_item_and_claim_of_the_reference_is_in_the_map(coverage: dict[str, Any]) -> None:
    items, claims = _reference()
    assert {f"C{i}" for i in range(1, 20)} | {f"M{i}" for i in range(1, 33)} <= items
    mapped = {item["id"] for item in coverage["items"]}
    assert mapped == items, f"missing {sorted(items - mapped)}, unknown {sorted(mapped - items)}"
    verdicts = {c["id"]: c["verdict"] for c in coverage["claims"]}
    assert len(claims) == 75
    assert verdicts == claims


def test_every_item_maps_to_entities_that_exist(kb: KnowledgeBase, coverage: dict[str, Any]) -> None:
    tables: dict[str, Mapping[str, Any]] = {"causes": kb.causes, "remedies": kb.remedies, "myths": kb.myths}
    for item in coverage["items"]:
        named = [(k, i) for k in tables for i in item.get(k, [])]
        assert named, f"{item['id']} maps to nothing"
        for kind, entity_id in named:
            assert entity_id in tables[kind], f"{item['id']}: no {kind[:-1]} {entity_id!r}"


def test_every_real_item_has_a_cause_or_remedy_and_every_wrong_one_a_myth(coverage: dict[str, Any]) -> None:
    for item in coverage["items"]:
        own = item.get("causes") if item["id"].startswith("C") else item.get("remedies")
        if item["thread"] == "true":
            assert own, f"{item['id']} ({item['gist']}) is real but has no entity of its own"
        else:
            assert item.get("myths"), f"{item['id']} ({item['gist']}) is {item['thread']} but has no myth"


def test_the_thread_wrong_examples_point_at_their_myths(coverage: dict[str, Any]) -> None:
    by_id = {item["id"]: item for item in coverage["items"]}
    assert "bf16-bad-on-3090" in by_id["C10"]["myths"]
    assert "padding-side-left-saves-memory" in by_id["M25"]["myths"]
    assert "use-cache-false-saves-memory" in by_id["M11"]["myths"]


def test_every_false_or_partly_claim_maps_to_a_myth_that_lists_it(kb: KnowledgeBase, coverage: dict[str, Any]) -> None:
    wrong = [c for c in coverage["claims"] if c["verdict"] in ("false", "partly")]
    assert len(wrong) >= 49
    for claim in wrong:
        assert claim.get("myths"), f"claim {claim['id']} ({claim['verdict']}) has no myth"
        for myth_id in claim["myths"]:
            assert myth_id in kb.myths, f"claim {claim['id']}: no myth {myth_id!r}"
            assert claim["id"] in kb.myths[myth_id].seed_claims, f"myth {myth_id} does not list {claim['id']}"


def test_kb_stats_reports_no_shortfall_on_the_shipped_kb(
    kb: KnowledgeBase, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stats = compute(kb)
    assert stats.coverage == []
    assert stats.coverage_items == 51
    assert stats.coverage_claims == 75
    assert stats.shortfalls == []
    monkeypatch.chdir(ROOT)  # the checkout's knowledge base
    assert main(["kb", "stats"]) == 0
    out = capsys.readouterr().out
    assert "51 checklist items, 75 claims, 0 gaps" in out
    assert "every bar is met" in out


def _write(folder: Path, data: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "thread.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


def test_stats_reports_unmapped_items_dangling_ids_and_claims_without_myths(kb: KnowledgeBase, tmp_path: Path) -> None:
    some_myth = next(iter(sorted(kb.myths)))
    _write(
        tmp_path,
        {
            "kind": "coverage",
            "source": "a thread",
            "checked_in": "a check",
            "items": [
                {"id": "C1", "gist": "real cause", "thread": "true", "verdict": "v", "causes": ["no-such-cause"]},
                {"id": "C3", "gist": "nothing", "thread": "true", "verdict": "v"},
                {
                    "id": "M1",
                    "gist": "wrong remedy",
                    "thread": "false",
                    "verdict": "v",
                    "remedies": ["reduce-max-length"],
                },
            ],
            "claims": [
                {"id": "Z1", "verdict": "false", "gist": "no myth"},
                {"id": "Z2", "verdict": "partly", "gist": "wrong myth", "myths": [some_myth]},
            ],
        },
    )
    gaps, n_items, n_claims = coverage_shortfalls(kb, tmp_path)
    text = "\n".join(gaps)
    assert (n_items, n_claims) == (3, 2)
    assert "C1 names unknown cause 'no-such-cause'" in text
    assert "C3 (nothing) maps to no entity" in text
    assert "checklist item C2 is missing" in text
    assert "M1 (wrong remedy) is false in the thread but no myth corrects it" in text
    assert "claim Z1 (false) has no myth" in text
    assert f"myth {some_myth} does not list claim Z2 in seed_claims" in text
    assert f"myth {some_myth} lists seed claim" in text


def test_stats_reports_a_broken_coverage_file_in_one_line(kb: KnowledgeBase, tmp_path: Path) -> None:
    _write(tmp_path, {"kind": "coverage", "items": [{"id": "X9"}]})
    gaps, _, _ = coverage_shortfalls(kb, tmp_path)
    assert len(gaps) == 1
    assert gaps[0].startswith("coverage thread.yaml: unreadable:")


# --------------------------------------------------------------------------- invariants of the version bugs and signals


def test_restating_signals_restate_a_fact_their_cause_tests(kb: KnowledgeBase) -> None:
    """A signal that stands in for a fact is dropped once the fact is known, so the cause must test that fact."""
    restating = 0
    for cause in kb.causes.values():
        tested = {leaf.fact for ev in evidence_of(cause) for leaf in leaves(ev.test)}
        if cause.remedies:
            tested |= REMEDY_FACTS  # weighed against the cause's remedies by the engine itself
        for signal in cause.signals:
            if signal.restates is not None:
                restating += 1
                assert signal.restates in tested, f"{cause.id}: signal {signal.label!r} restates an untested fact"
    assert restating >= 60


def _in_range(specifier: str) -> str:
    spec = SpecifierSet(specifier)
    for major, minor, patch in itertools.product(range(6), range(60), range(10)):
        version = f"{major}.{minor}.{patch}"
        if Version(version) in spec:
            return version
    raise AssertionError(f"no version satisfies {specifier}")


@pytest.mark.parametrize("generic", ["", "CUDA out of memory after upgrading, the same script worked before"])
def test_a_matching_version_alone_never_makes_a_version_bug_fire(kb: KnowledgeBase, generic: str) -> None:
    bugs = [c for c in kb.causes.values() if c.category is Category.version_bug and c.affects]
    assert len(bugs) >= 15
    for cause in bugs:
        facts = {version_fact(a.package): _in_range(a.specifier) for a in cause.affects}
        session = build_session(kb, symptoms=[generic], facts=facts_from_mapping(kb, facts, Source("case")))
        target = next(rc for rc in run(kb, session).causes if rc.id == cause.id)
        assert not target.scored.fired, f"{cause.id} fires on {facts} alone (score {target.scored.score:+.2f})"
