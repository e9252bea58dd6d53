"""Similar solved reports: the nearest are shown, a word model over all of them adds evidence, never for itself."""

from __future__ import annotations

import itertools
import math

import pytest

from triage.corpus import Label, Record
from triage.similar import CATEGORY_WEIGHT, SHARE_FLOOR, Index, shown_share, votes


def _record(url: str, report: str, category: str, cause_id: str | None = None, scope: str = "in") -> Record:
    return Record(url, "o/r", "en", "t", report, Label(category, cause_id), scope=scope)


def test_a_category_gains_by_the_log_of_its_share_and_shares_at_the_floor_add_nothing() -> None:
    got = votes({"eval_on_gpu": 0.6, "seq_len": 0.3, "fragmentation": 0.02, "batch_size": 0.005})
    # each vote is the log of how often such a share came true, over the floor
    assert got == {
        cat: pytest.approx(CATEGORY_WEIGHT * math.log(shown_share(share) / SHARE_FLOOR), abs=1e-3)
        for cat, share in (("eval_on_gpu", 0.6), ("seq_len", 0.3), ("fragmentation", 0.02))
    }
    # a share the model is too sure of votes less than its own log would: 0.98 came true 85 % of the time
    assert votes({"seq_len": 0.98})["seq_len"] < CATEGORY_WEIGHT * math.log(0.98 / SHARE_FLOOR) - 0.1
    assert votes({}) == {}


_SOLVED = [
    _record("https://e/1", "evaluation loop out of memory eval_accumulation_steps predictions", "eval_on_gpu"),
    _record("https://e/2", "max_length 4096 sequence too long cutoff_len truncation", "seq_len"),
    _record("https://e/3", "evaluation predictions logits accumulate eval_accumulation_steps", "eval_on_gpu"),
    _record("https://e/4", "cutoff_len 8192 long sequence max_length", "seq_len"),
    _record("https://e/5", "训练 显存 不足 cutoff_len 太长 序列", "seq_len"),
    _record("https://e/6", "vllm serving out of memory", "other", scope="out"),
]


def test_the_word_model_shares_categories_by_the_words_of_solved_reports() -> None:
    index = Index(_SOLVED)
    shares = index.shares("OOM in my evaluation loop, eval_accumulation_steps did not help")
    assert shares.keys() == {"eval_on_gpu", "seq_len"}  # out-of-scope reports are not in the model
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares["eval_on_gpu"] > 0.9
    assert max(index.shares("显存不足，序列太长").items(), key=lambda kv: kv[1])[0] == "seq_len"
    assert index.shares("") == {} and index.shares("the and with") == {}  # no words, no evidence


def test_a_report_left_out_of_the_model_does_not_judge_itself() -> None:
    own = _record("https://e/f", "gradient_accumulation wandb_project bf16", "seq_len")
    index = Index(
        [
            _record("https://e/a", "gradient_accumulation cutoff_len truncation packing", "seq_len"),
            _record("https://e/b", "cutoff_len packing max_length", "seq_len"),
            _record("https://e/d", "gradient_accumulation evaluation predictions", "eval_on_gpu"),
            _record("https://e/e", "gradient_accumulation eval_accumulation_steps", "eval_on_gpu"),
            own,
        ]
    )
    assert index.shares(own.report)["seq_len"] > 0.8  # its own words, which only it uses, decide
    # left out, those words are unknown to the model (as a new report's are) and the rest decides
    assert index.shares(own.report, exclude=["HTTPS://E/F"])["eval_on_gpu"] > 0.8


def test_a_report_never_votes_for_itself_when_excluded() -> None:
    records = [
        _record("https://e/1", "evaluation loop out of memory eval_accumulation_steps predictions", "eval_on_gpu"),
        _record("https://e/2", "max_length 4096 sequence too long cutoff_len", "seq_len"),
        _record("https://e/3", "evaluation predictions logits accumulate eval_accumulation_steps", "eval_on_gpu"),
    ]
    index = Index(records)
    text = records[0].report
    assert index.nearest(text, k=3)[0].record.url == "https://e/1"
    near = index.nearest(text, k=3, exclude=["HTTPS://E/1"])
    assert "https://e/1" not in [nb.record.url for nb in near]
    assert near[0].record.url == "https://e/3"


def test_worked_examples_teach_the_word_model_but_are_never_shown_as_reports() -> None:
    from triage.similar import Example

    records = _SOLVED[:4]
    plain = Index(records)
    taught = Index(records, [Example("multi_model", "a reference model and the policy model both on the GPU for DPO")])
    text = "DPO training with a reference model runs out of memory"
    assert "multi_model" not in plain.shares(text)  # no report of the category: the model cannot name it
    assert max(taught.shares(text).items(), key=lambda kv: kv[1])[0] == "multi_model"
    assert all(nb.record.url.startswith("https://e/") for nb in taught.nearest(text, k=10))
    assert len(taught.vectors) == len(records)  # the examples are not records: never neighbours, never counted


def test_every_case_that_must_bring_its_cause_out_is_a_worked_example_of_its_category(kb) -> None:
    from triage.pipeline import worked_examples

    examples = worked_examples(kb)
    wanted = [
        (kb.causes[cause].category.value, case.symptom)
        for cause, cases in kb.cases.items()
        for case in cases.cases
        if case.expect in ("fire", "rank") and case.symptom
    ]
    assert sorted((e.category, e.text) for e in examples) == sorted(wanted)  # silent and todo cases teach nothing
    assert len(examples) > 200


def test_the_evidence_line_says_what_the_word_model_learned_from(kb) -> None:
    from triage import api

    session = api.build_session(kb, symptoms=["OOM in my evaluation loop, eval_accumulation_steps did not help"])
    index = api.solved_reports_index(kb, _SOLVED)
    diagnosis = api.analyse(kb, session, index=index).diagnosis
    lines = [ev.label for rc in diagnosis.causes for ev in rc.scored.items if ev.kind == "similar"]
    want = (
        f"a word model over 5 solved public reports, how they were resolved, and {len(index.examples)} worked examples"
    )
    assert lines and all(want in x for x in lines)


def test_the_evidence_line_says_where_a_small_share_stands_among_the_kinds(kb) -> None:
    from triage import api

    session = api.build_session(kb, symptoms=["OOM in my evaluation loop, eval_accumulation_steps did not help"])
    index = api.solved_reports_index(kb, _SOLVED)
    shares = index.shares(session.text)
    order = sorted(shares, key=lambda c: -shares[c])
    diagnosis = api.analyse(kb, session, index=index).diagnosis
    lines = {
        rc.scored.cause.category.value: ev.label
        for rc in diagnosis.causes
        for ev in rc.scored.items
        if ev.kind == "similar"
    }
    kinds = len(shares)
    assert f"more often than any other of {kinds} kinds" in lines[order[0]]
    second = next(c for c in order[1:] if c in lines)
    place = {2: "2nd", 3: "3rd"}.get(order.index(second) + 1, f"{order.index(second) + 1}th")
    assert f"the {place} most often of {kinds} kinds" in lines[second]


def test_how_a_thread_was_resolved_teaches_the_word_model_but_never_judges_its_own_report() -> None:
    def solved(url: str, report: str, category: str, resolution: str) -> Record:
        return Record(url, "o/r", "en", "t", report, Label(category, None, resolution))

    records = [
        solved("https://e/1", "training crashed with OOM", "no_grad_ckpt", "enable gradient_checkpointing"),
        solved("https://e/2", "cutoff_len 8192 sequence", "seq_len", "lower cutoff_len"),
        solved("https://e/3", "cutoff_len 4096 long samples", "seq_len", "truncate the samples"),
        solved("https://e/4", "eval loop predictions", "eval_on_gpu", "set eval_accumulation_steps"),
    ]
    index = Index(records)
    text = "OOM, is gradient_checkpointing needed?"
    # only the first thread's resolution says gradient_checkpointing: the model learned it from there
    assert max(index.shares(text).items(), key=lambda kv: kv[1])[0] == "no_grad_ckpt"
    # left out, the thread takes its resolution with it: the word is unknown and says nothing
    assert index.shares(text, exclude=["https://e/1"]) == {}
    assert len(index.vectors) == len(records)  # resolutions are never neighbours


def test_a_worked_example_left_out_by_name_does_not_judge_its_own_words() -> None:
    from triage.similar import Example

    records = _SOLVED[:4]
    text = "the DPO reference model doubles what sits on the GPU"
    index = Index(records, [Example("multi_model", text, "case:dpo-reference-model-copy/x")])
    assert max(index.shares(text).items(), key=lambda kv: kv[1])[0] == "multi_model"
    assert "multi_model" not in index.shares(text, exclude=["case:dpo-reference-model-copy/x"])


def test_words_that_only_say_a_change_worked_do_not_vote(kb) -> None:
    """In "把 batch size 从 8 改成 2 就好了" the change is the evidence (batch size), not the words for "it
    worked", which the version examples alone had taught the model (it put 95 % on version bugs)."""
    from triage import api
    from triage.corpus import load_corpus

    index = api.solved_reports_index(kb, [r for r in load_corpus() if r.scope == "in"])
    assert index.shares("就好了，解决了") == {}
    session = api.build_session(kb, symptoms=["把batch size从8改成2就好了"], lang="zh")
    top = next(rc for rc in api.analyse(kb, session, index=index).diagnosis.causes if not rc.scored.excluded)
    assert top.scored.cause.category.value == "batch_size"


def test_the_shown_share_rises_with_the_share_and_never_claims_certainty() -> None:
    from triage.similar import SHOWN_SHARE, shown_share

    assert all(a[0] < b[0] and a[1] <= b[1] for a, b in itertools.pairwise(SHOWN_SHARE))
    figures = [shown_share(s / 100) for s in range(101)]
    assert figures == sorted(figures)
    assert shown_share(1.0) < 0.9  # a share of 1.0 came true about 85 % of the time: never "100 % of the time"


def test_the_evidence_line_shows_how_often_such_a_share_came_true(kb) -> None:
    from triage import api
    from triage.similar import shown_share

    session = api.build_session(kb, symptoms=["OOM in my evaluation loop, eval_accumulation_steps did not help"])
    index = api.solved_reports_index(kb, _SOLVED)
    shares = index.shares(session.text)
    top = max(shares, key=lambda c: shares[c])
    diagnosis = api.analyse(kb, session, index=index).diagnosis
    line = next(
        ev.label
        for rc in diagnosis.causes
        for ev in rc.scored.items
        if ev.kind == "similar" and rc.scored.cause.category.value == top
    )
    assert f"ended with this kind of cause {shown_share(shares[top]):.0%} of the time" in line


def test_the_shown_share_is_as_often_right_as_it_says_on_development(kb) -> None:
    """SHOWN_SHARE is fitted on the development split (bench/bench_share_calibration.py); a word model that has
    changed since needs the table fitted again."""
    from triage import api
    from triage.authoring.accuracy import share_gap, share_reliability
    from triage.corpus import load_corpus
    from triage.similar import shown_share

    dev = [r for r in load_corpus() if r.split == "dev" and r.scope == "in"]
    gap = share_gap(share_reliability(api.solved_reports_index(kb, dev), dev), shown_share)
    assert gap < 0.03, f"run `python bench/bench_share_calibration.py` and update SHOWN_SHARE (gap {gap:.3f})"
