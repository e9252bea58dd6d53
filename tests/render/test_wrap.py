"""Wrapping for terminals: 80 columns, with Chinese counted as two columns per character."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from triage.render.wrap import width, wrap


def test_cjk_counts_double():
    assert width("显存") == 4 and width("ab") == 2


def test_wraps_chinese_by_display_width():
    text = "训练到一半显存一直涨，" * 12
    lines = wrap(text, 40, "  ")
    assert len(lines) > 1
    assert all(width(line) <= 40 for line in lines)
    assert "".join(line.strip() for line in lines) == text.strip()


def test_keeps_english_words_whole():
    lines = wrap("gradient checkpointing keeps only each layer input", 20)
    assert lines == ["gradient", "checkpointing keeps", "only each layer", "input"]


@given(st.text(alphabet=st.sampled_from("ab 显存xyz\u3000-_/"), max_size=300), st.integers(10, 100))
def test_never_exceeds_width_and_keeps_every_character(text, columns):
    lines = wrap(text, columns, "  ", "    ")
    assert all(width(line) <= columns for line in lines)
    assert "".join(text.split()) == "".join("".join(lines).split())
