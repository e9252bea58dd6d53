"""Regex anchors skip compiling patterns that cannot match, without ever changing a match."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.authoring.kbtest import iter_cases
from triage.kb.anchors import anchors
from triage.kb.loader import load_knowledge

KB, _ = load_knowledge()


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"gradient[_ ]checkpointing\s*[:=]\s*(false|0|no)", ("checkpointing",)),
        (r"reserved (by PyTorch )?but unallocated", ("but unallocated",)),
        (r"abc|de", ("abc", "de")),
        (r"第\s*0\s*步", ("第",)),
        (r"x?y", None),
        (r"a(?!bc)", None),
        (r"(", None),
    ],
)
def test_anchors(pattern, expected):
    assert anchors(pattern) == expected


def _agrees(pattern: str, text: str) -> bool:
    need = anchors(pattern)
    matched = re.search(pattern, text, re.IGNORECASE | re.MULTILINE) is not None
    return not matched or need is None or any(w in text.lower() for w in need)


def test_no_shipped_pattern_is_skipped_on_any_case_text():
    texts = [case.symptom for _, case in iter_cases(KB) if case.symptom]
    assert texts
    for pattern in KB.anchors:
        for text in texts:
            assert _agrees(pattern, text), (pattern, text)


@settings(max_examples=300)
@given(st.data())
def test_every_string_a_pattern_matches_contains_an_anchor(data):
    pattern = data.draw(st.sampled_from(sorted(p for p, a in KB.anchors.items() if a is not None)))
    try:
        strategy = st.from_regex(re.compile(pattern, re.IGNORECASE))
    except Exception:  # hypothesis cannot generate from a few constructs (lookbehind ...)
        return
    text = data.draw(strategy)
    assert _agrees(pattern, text), (pattern, text)
