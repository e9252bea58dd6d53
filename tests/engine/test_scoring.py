"""Log-odds scoring: prior + conditions + text signals, comparable and explainable."""

from __future__ import annotations

import math

import pytest

from triage.engine.scoring import Item, Scorer, logit, probabilities
from triage.facts import Fact, FactSet, Source
from triage.kb.models import Cause

SRC = Source("cli")


def cause(**over) -> Cause:
    data = {
        "kind": "cause",
        "id": "c",
        "category": "batch_size",
        "title": {"en": "T", "zh": "标题"},
        "summary": {"en": "S", "zh": "摘要"},
        "explanation": {k: {"en": k, "zh": k} for k in ("what", "why", "confirm")},
        "prior": 0.1,
        "when": [
            {"test": {"fact": "batch_size", "op": "gt", "value": 1}, "if_true": 2.0, "if_false": -1.5},
            {"test": {"fact": "phase", "op": "in", "value": ["forward", "backward"]}, "if_true": 0.5, "veto": True},
        ],
        "signals": [{"type": "regex", "patterns": [r"batch[_ ]size\s*=?\s*\d+"], "weight": 1.2, "label": "batch size"}],
        "affects": [],
    }
    data.update(over)
    return Cause.model_validate(data)


def facts(**values):
    return FactSet().with_facts(Fact(k, v, SRC) for k, v in values.items())


def test_score_is_sum_of_evidence():
    c = cause()
    s = Scorer({"c": c}, "per_device batch_size=8").score_one(c, facts(batch_size=8, phase="backward"))
    assert s.score == pytest.approx(logit(0.1) + 2.0 + 0.5 + 1.2)
    assert s.score == pytest.approx(sum(i.weight for i in s.items))
    assert [i.kind for i in s.items] == ["prior", "fact", "fact", "signal"]
    assert s.fired and not s.excluded


def test_unknown_adds_nothing_and_is_reported():
    c = cause()
    s = Scorer({"c": c}, "").score_one(c, facts())
    assert s.score == pytest.approx(logit(0.1))
    assert s.unknown == {"batch_size", "phase"}
    assert not s.fired


def test_similar_reports_reorder_but_never_make_a_cause_likely_on_their_own():
    c = cause()
    words = "solved public reports worded like yours ended with this kind of cause 80% of the time"
    vote = {"batch_size": [Item("similar", words, 2.5, "true")]}
    own = Scorer({"c": c}, "").score_one(c, facts(batch_size=8))  # logit(0.1) + 2.0 = -0.20: not likely
    [voted] = Scorer({"c": c}, "", by_category=vote).score(facts(batch_size=8))
    assert voted.score == pytest.approx(own.score + 2.5)  # the vote ranks the cause higher
    assert voted.score > 0 and not voted.fired  # but this run's evidence alone is below even odds
    [backed] = Scorer({"c": c}, "batch_size=8", by_category=vote).score(facts(batch_size=8))
    assert backed.fired  # the run's own words lift it: likely, with or without the vote


def test_evidence_about_a_category_goes_once_to_its_best_cause_that_is_not_ruled_out():
    strong = cause(id="strong", prior=0.3)
    weak = cause(id="weak", prior=0.05, when=[{"test": {"fact": "batch_size", "op": "gt", "value": 1}, "if_true": 2.0}])
    other = cause(id="other", category="seq_len", prior=0.2)
    words = "solved public reports worded like yours ended with this kind of cause 60% of the time"
    scorer = Scorer(
        {c.id: c for c in (strong, weak, other)}, "", by_category={"batch_size": [Item("similar", words, 1.2, "true")]}
    )
    by_id = {s.cause.id: s for s in scorer.score(facts(batch_size=8))}
    assert by_id["strong"].score == pytest.approx(logit(0.3) + 2.0 + 1.2)  # the category's best cause carries it
    assert by_id["weak"].score == pytest.approx(logit(0.05) + 2.0)  # its sibling does not count it again
    assert by_id["other"].score == pytest.approx(logit(0.2) + 2.0)
    # the best cause ruled out (loading vetoes it): the next one in the category carries it
    ruled_out = {s.cause.id: s for s in scorer.score(facts(batch_size=8, phase="loading"))}
    assert ruled_out["strong"].excluded and not any(i.kind == "similar" for i in ruled_out["strong"].items)
    assert ruled_out["weak"].score == pytest.approx(logit(0.05) + 2.0 + 1.2)


def test_false_condition_counts_against():
    c = cause()
    s = Scorer({"c": c}, "").score_one(c, facts(batch_size=1, phase="forward"))
    assert s.score == pytest.approx(logit(0.1) - 1.5 + 0.5)


def test_veto_excludes():
    c = cause()
    s = Scorer({"c": c}, "batch_size=8").score_one(c, facts(batch_size=8, phase="generation"))
    assert s.excluded and not s.fired
    assert any(i.veto for i in s.items)


def test_version_range_matches_and_vetoes():
    c = cause(
        when=[],
        affects=[{"package": "transformers", "specifier": ">=4.38.0,<4.39.0", "fixed_in": "4.39.0", "weight": 3.0}],
    )
    scorer = Scorer({"c": c}, "")
    inside = scorer.score_one(c, facts(transformers_version="4.38.2"))
    outside = scorer.score_one(c, facts(transformers_version="4.31.0"))
    unknown = scorer.score_one(c, facts())
    assert inside.score == pytest.approx(logit(0.1) + 3.0)
    assert outside.excluded
    assert unknown.unknown == {"transformers_version"}


def test_probabilities_are_a_softmax_of_live_scores():
    a, b, v = cause(id="a"), cause(id="b", prior=0.3), cause(id="v")
    scorer = Scorer({"a": a, "b": b, "v": v}, "")
    scored = scorer.score(facts(phase="backward"))
    scored = [s for s in scored]
    excluded = scorer.score_one(v, facts(phase="generation"))
    dist = probabilities([*[s for s in scored if s.cause.id != "v"], excluded])
    assert set(dist) == {"a", "b"}
    assert sum(dist.values()) == pytest.approx(1.0)
    odds = math.exp(logit(0.3) - logit(0.1))
    assert dist["b"] / dist["a"] == pytest.approx(odds)


def test_a_signal_that_restates_a_known_fact_is_not_counted_twice():
    c = cause(
        when=[{"test": {"fact": "batch_size", "op": "gt", "value": 1}, "if_true": 2.0}],
        signals=[{"type": "regex", "patterns": [r"batch[_ ]size\s*=?\s*\d+"], "weight": 1.2, "restates": "batch_size"}],
    )
    scorer = Scorer({"c": c}, "batch_size=8")
    from_text_only = scorer.score_one(c, facts())
    both = scorer.score_one(c, facts(batch_size=8))
    assert from_text_only.score == pytest.approx(logit(0.1) + 1.2)
    assert both.score == pytest.approx(logit(0.1) + 2.0)
    assert [i.kind for i in both.items] == ["prior", "fact"]


def test_a_negative_label_has_its_own_words_when_false():
    # "−1.2 not: the model is not quantized" said twice no; label_false says what holds
    unquantized = {"test": {"fact": "quantization", "op": "eq", "value": "none"}, "if_true": 0.5, "if_false": -1.2}
    unquantized["label"] = {"en": "the model is not quantized", "zh": "模型没有量化"}
    unquantized["label_false"] = {"en": "the model is quantized", "zh": "模型已量化"}
    negative = cause(when=[unquantized])
    (item,) = [i for i in Scorer({"c": negative}, "").score(facts(quantization="4bit"))[0].items if i.kind == "fact"]
    assert (item.state, item.label, item.text("zh")) == ("false", "the model is quantized", "模型已量化")
    (item,) = [i for i in Scorer({"c": negative}, "").score(facts(quantization="none"))[0].items if i.kind == "fact"]
    assert (item.state, item.label) == ("true", "the model is not quantized")


def test_evidence_that_is_false_is_worded_as_what_holds():
    # "−1.5 batch_size > 1" read as if the batch were above 1; the item says what the facts show instead
    labelled = cause(
        when=[
            {
                "test": {"fact": "attn_implementation", "op": "eq", "value": "eager"},
                "if_true": 2.0,
                "if_false": -3.0,
                "label": {"en": "attention implementation is eager", "zh": "注意力实现是 eager"},
            },
            {"test": {"fact": "batch_size", "op": "gt", "value": 1}, "if_true": 2.0, "if_false": -1.5},
        ]
    )
    items = Scorer({"c": labelled}, "").score(facts(attn_implementation="sdpa", batch_size=1))[0].items
    false = [i for i in items if i.state == "false"]
    assert [i.label for i in false] == ["not: attention implementation is eager", "batch_size ≤ 1"]
    assert false[0].text("zh") == "并非：注意力实现是 eager"
    true = Scorer({"c": labelled}, "").score(facts(attn_implementation="eager", batch_size=4))[0].items
    assert [i.label for i in true if i.state == "true" and i.kind == "fact"] == [
        "attention implementation is eager",
        "batch_size > 1",
    ]
