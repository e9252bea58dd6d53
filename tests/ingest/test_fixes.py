"""What made the run work: a setting named in such a clause is the fix, not the failing run's setting."""

from __future__ import annotations

import pytest

from triage.ingest.fixes import describes_a_fix, tells_a_fix


def end_of(line: str, term: str) -> int:
    return line.index(term) + len(term)


@pytest.mark.parametrize(
    ("line", "term", "fix"),
    [
        ("bs 2 it runs", "bs 2", True),
        ("it works once I pass torch_dtype=torch.float16", "torch.float16", True),
        ("if I use an A100, it works fine", "A100", True),
        ("batch size 改成1就可以了", "改成1", True),
        ("with batch size 1 it trains fine", "batch size 1", True),
        ("改成 zero3，还是 OOM", "zero3", False),  # the change did not help
        ("I train with batch size 8 and get OOM", "batch size 8", False),
    ],
)
def test_a_clause_that_says_the_run_worked_marks_its_setting_as_the_fix(line: str, term: str, fix: bool) -> None:
    assert describes_a_fix(line, end_of(line, term), line.index(term)) is fix


@pytest.mark.parametrize(
    ("line", "term", "fix"),
    [
        ("Enable gradient checkpointing to prevent OOM on long sequences", "gradient checkpointing", True),
        ("fix: disable use_cache to avoid running out of memory", "use_cache", True),
        ("I enabled gradient checkpointing to save memory", "gradient checkpointing", False),  # the run's own
    ],
)
def test_a_line_that_opens_with_the_change_for_memory_tells_the_fix(line: str, term: str, fix: bool) -> None:
    start = line.index(term)
    assert tells_a_fix(line, start, start + len(term)) is fix
