"""bench/bench_baselines.py: the learned baselines learn from the other records only, and learn what they see."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from triage.corpus import Label, Record

_PATH = Path(__file__).resolve().parent.parent / "bench" / "bench_baselines.py"
_SPEC = importlib.util.spec_from_file_location("bench_baselines", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
baselines = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_baselines"] = baselines
_SPEC.loader.exec_module(baselines)


def _record(n: int, category: str, report: str, **facts) -> Record:
    return Record(f"https://example.org/{category}/{n}", "x", "en", "", report, Label(category), facts=facts)


def _corpus() -> list[Record]:
    saving = [
        _record(i, "checkpoint_save_load", "killed while saving the checkpoint", phase="saving") for i in range(6)
    ]
    generating = [
        _record(i, "generation_kv", "oom in generate with long prompts", phase="generation") for i in range(6)
    ]
    return saving + generating


def test_naive_bayes_ranks_the_category_whose_words_and_facts_a_report_shares_first():
    train = _corpus()
    new = _record(99, "checkpoint_save_load", "the process was killed while saving", phase="saving")
    for features, multinomial in ((baselines.text_features, True), (baselines.fact_features, False)):
        assert baselines.naive_bayes(train, features, 0.3, multinomial)(new)[0] == "checkpoint_save_load"


def test_a_record_is_never_ranked_by_a_model_that_saw_it():
    records = _corpus()
    seen: list[set[str]] = []

    def fit(train):
        urls = {r.url for r in train}
        seen.append(urls)
        return lambda record: ["generation_kv"] if record.url in urls else ["checkpoint_save_load"]

    ranked = baselines.cross_validated(records, fit)
    assert len(seen) == baselines.FOLDS
    assert all(cats == ["checkpoint_save_load"] for cats in ranked)  # no record was in its own training folds


def test_the_score_counts_the_primary_label_in_the_top_one_and_three():
    records = _corpus()[:2]
    top1, top3 = baselines.score(records, [["checkpoint_save_load"], ["a", "b", "checkpoint_save_load"]])
    assert (top1, top3) == (0.5, 1.0)
