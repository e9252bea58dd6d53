"""Clauses: whether a setting the reader found is denied, or only asked about or suggested."""

from __future__ import annotations

import pytest

from triage.ingest.clauses import hypothetical, negated


def at(line: str, term: str) -> tuple[int, int]:
    start = line.index(term)
    return start, start + len(term)


@pytest.mark.parametrize(
    ("line", "term", "denied"),
    [
        ("not using deepspeed zero3", "deepspeed", True),
        ("没用QLoRA", "QLoRA", True),
        ("no OOM before, but now with zero3", "zero3", False),  # the denial is in another clause
        ("I use gradient checkpointing", "gradient", False),
    ],
)
def test_a_denial_counts_only_in_the_same_clause(line: str, term: str, denied: bool) -> None:
    assert negated(line, line.index(term)) is denied


@pytest.mark.parametrize(
    ("line", "term", "asked"),
    [
        ("Can I enable gradient checkpointing?", "gradient checkpointing", True),
        ("可以开启gradient_checkpointing吗", "gradient_checkpointing", True),
        ("it suggests me to use --gradient_checkpointing to resolve it", "gradient_checkpointing", True),
        ("Why does batch_size=8 OOM?", "batch_size", False),  # a question that states the run's setting
        ("how can I save memory when using bs=8?", "bs", False),
    ],
)
def test_a_setting_asked_about_or_suggested_is_not_the_runs(line: str, term: str, asked: bool) -> None:
    assert hypothetical(line, *at(line, term)) is asked
