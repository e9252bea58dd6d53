"""Text signals: word boundaries hold next to Chinese characters, which reports write without spaces."""

from __future__ import annotations

import pytest

from triage.engine.signals import match_all
from triage.kb.models import Signal


def regex(*patterns: str) -> Signal:
    return Signal(type="regex", patterns=list(patterns), weight=1.0, label="x")


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\bvllm\b.{0,60}\brollout", "用colocate模式，vllm在rollout阶段还没推理完"),
        (r"\b(dpo|kto)\b", "在做PT和SFT时单卡能跑，而在做DPO时显存oom"),
        (r"\bwake[ _-]?up\b", "导致再次wake up weight就会oom"),
        (r"\b(128256|151936)\b", "词表151936，logits 很大"),
    ],
)
def test_word_boundary_next_to_chinese(pattern: str, text: str) -> None:
    assert match_all([regex(pattern)], text), f"{pattern!r} should match {text!r}"


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\bsft\b", "run_sft.sh works"),  # an underscore is still a word character
        (r"\bgc\b", "the gcc toolchain"),
        (r"\bdpo\b", "dpo_trainer"),
    ],
)
def test_word_boundary_still_separates_latin_words(pattern: str, text: str) -> None:
    assert not match_all([regex(pattern)], text)


def test_the_sdpa_regression_signal_needs_a_memory_comparison(kb) -> None:
    # "sdpa ... oom" matched any SDPA run that ran out of memory and ranked the 4.38/4.39 regression first
    signals = kb.causes["transformers-438-sdpa-mask-disables-flash"].signals
    said = {m.signal.label for m in match_all(signals, 'attn_implementation="sdpa" in backward, CUDA out of memory')}
    assert "the text points at SDPA memory in 4.38/4.39" not in said
    compared = match_all(signals, "Llama with the SDPA attention on 4.37.2 uses less memory than 4.38.2")
    assert "the text points at SDPA memory in 4.38/4.39" in {m.signal.label for m in compared}
