"""The regex checker rejects the shapes that backtrack exponentially and accepts every knowledge regex."""

from __future__ import annotations

import re
import time

import pytest

from triage.kb.loader import load_knowledge
from triage.kb.models import AllOf, AnyOf, Leaf, NotOf
from triage.kb.regex_safety import unsafe_regex_reason

BAD = [
    r"(a+)+",
    r"(a*)*",
    r"(\w+\s?)+",
    r"^(\w+\s?)*$",  # the review's 31-character, 55-second pattern
    r"(a|a)+",
    r"(a|ab)*",
    r"(a|aa)*b",
    r"(.*?,)+x",
    r"(\d+\s?)+$",
    r"(a+|b+)+",
    r"(?:\s+|,)+x",
    r"((?:a+){2})+",
    r"(a?)+",
    r"(a|)+",
    r"x(?=(a+)+)",
    r"(x+x+)+y",
    r"(\w|\d)+",
    r"([a-z]+\.?)+@",
    r"(.+)*",
    r"(?P<word>a|ab){2,}",
    r"(?:(a|ab)c)*",
    r"(?:[a-z0-9]+[._-]?)+@example\.com",
]

GOOD = [
    r"(\d+-)+",
    r"(\w+\s)+",
    r"(\w+\s+)+",
    r"a+b+",
    r"(ab|c)+",
    r"(?:gpus|cards)+",
    r"(a++)+",
    r"(?>a+)+",
    r"(?>(a|ab))+",
    r"(a|b)*+",
    r"x{0,60}y",
    r".{0,60}(oom|fits)",
    r"(?:a|b){1,3}",
    r"\b(?:foo|bar)\b",
    r"[(|]+",
    r"\(a|b\)+",
    r"(batch[ _-]?size|bs)\s*(=|of|to)?\s*[12]\b.{0,40}(works|fits|runs|is fine|no oom|ok)",
    r"显存.{0,10}(不够|爆)",
]


@pytest.mark.parametrize("pattern", BAD)
def test_catastrophic_shapes_are_rejected(pattern):
    reason = unsafe_regex_reason(pattern)
    assert reason is not None
    assert "nested quantifier" in reason or "ambiguous alternation" in reason


@pytest.mark.parametrize("pattern", GOOD)
def test_linear_shapes_are_accepted(pattern):
    assert unsafe_regex_reason(pattern) is None


def test_an_invalid_pattern_is_reported_not_raised():
    assert unsafe_regex_reason("(unclosed").startswith("not a valid regular expression")


def test_case_insensitive_overlap_counts():
    assert unsafe_regex_reason(r"(?:kx|Ky)+") is None
    assert unsafe_regex_reason(r"(?:kx|Ky)+", flags=re.IGNORECASE) is not None


def test_the_rejected_review_pattern_really_is_slow_and_an_accepted_one_is_not():
    """The checker's verdicts match what the engine does (kept tiny: 22 characters, not 31)."""
    text = "a" * 22 + "!"
    start = time.perf_counter()
    re.search(r"^(\w+\s?)*$", text)
    slow = time.perf_counter() - start
    start = time.perf_counter()
    re.search(r"^(\w+\s)*\w*$", text * 1000)
    fast = time.perf_counter() - start
    assert unsafe_regex_reason(r"^(\w+\s)*\w*$") is None
    assert fast < slow


def _condition_regexes(cond) -> list[str]:
    if isinstance(cond, Leaf):
        return [str(cond.value)] if cond.op == "regex" else []
    if isinstance(cond, AllOf):
        return [p for c in cond.all for p in _condition_regexes(c)]
    if isinstance(cond, AnyOf):
        return [p for c in cond.any for p in _condition_regexes(c)]
    if isinstance(cond, NotOf):
        return _condition_regexes(cond.not_)
    return []


def test_every_knowledge_regex_is_accepted():
    kb, _ = load_knowledge()
    found: list[tuple[str, str, int]] = []
    for entity_id, entity in [*kb.causes.items(), *kb.myths.items()]:
        for signal in entity.signals:
            if signal.type == "regex":
                found += [(entity_id, p, re.IGNORECASE | re.MULTILINE) for p in signal.patterns]
    for entity_id, cause in kb.causes.items():
        for evidence in cause.when:
            found += [(entity_id, p, re.IGNORECASE) for p in _condition_regexes(evidence.test)]
    assert len(found) > 100
    rejected = [(i, p, unsafe_regex_reason(p, flags=f)) for i, p, f in found if unsafe_regex_reason(p, flags=f)]
    assert rejected == []
