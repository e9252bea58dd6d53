"""Similar solved reports vote as a share of the most similar ones, and never for themselves."""

from __future__ import annotations

import pytest

from triage.corpus import Label, Record
from triage.similar import CATEGORY_WEIGHT, CAUSE_WEIGHT, Index, Neighbour, votes


def _record(url: str, report: str, category: str, cause_id: str | None = None, scope: str = "in") -> Record:
    return Record(url, "o/r", "en", "t", report, Label(category, cause_id), scope=scope)


CATEGORY_OF = {
    "eval-batch-too-large": "eval_on_gpu",
    "eval-logits-accumulated": "eval_on_gpu",
    "max-length-too-long": "seq_len",
}


def test_votes_are_shares_of_the_voters_similarity() -> None:
    voters = [
        Neighbour(_record("u1", "x", "eval_on_gpu", "eval-logits-accumulated"), 0.3),
        Neighbour(_record("u2", "x", "eval_on_gpu", None), 0.1),
        Neighbour(_record("u3", "x", "seq_len", "max-length-too-long"), 0.2),
    ]
    got = votes(voters, CATEGORY_OF)
    # eval_on_gpu holds 0.4 of 0.6 of the similarity; one of its voters named the very cause (0.3 of 0.6)
    assert got["eval-logits-accumulated"] == pytest.approx(CATEGORY_WEIGHT * 4 / 6 + CAUSE_WEIGHT * 3 / 6, abs=1e-3)
    assert got["eval-batch-too-large"] == pytest.approx(CATEGORY_WEIGHT * 4 / 6, abs=1e-3)
    assert got["max-length-too-long"] == pytest.approx((CATEGORY_WEIGHT + CAUSE_WEIGHT) * 2 / 6, abs=1e-3)


def test_out_of_scope_neighbours_and_empty_lists_do_not_vote() -> None:
    assert votes([], CATEGORY_OF) == {}
    served = [Neighbour(_record("u9", "x", "other", None, scope="out"), 0.5)]
    assert votes(served, CATEGORY_OF) == {}


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
