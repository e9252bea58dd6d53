"""Text signals: word boundaries hold next to Chinese characters, which reports write without spaces."""

from __future__ import annotations

import pytest

from triage.engine.signals import match_all, unspaced
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


@pytest.mark.parametrize(
    ("cause", "label", "text"),
    [
        ("zero3-states-exceed-gpus", "ZeRO-3 还是爆显存 / 开 offload 就能跑", "全参 qwen 14b，zero3 还是 OOM"),
        ("micro-batch-too-large", "调小 batch 就能跑", "batch 调小就能跑，但是太慢了"),
    ],
)
def test_chinese_written_with_spaces_around_english_words_is_read_like_without(kb, cause, label, text) -> None:
    labels = {m.signal.label for m in match_all(kb.causes[cause].signals, text, kb.anchors)}
    assert label in labels
    assert label in {m.signal.label for m in match_all(kb.causes[cause].signals, unspaced(text), kb.anchors)}


def test_unspaced_only_joins_chinese_to_latin_and_leaves_english_alone() -> None:
    assert unspaced("保存 checkpoint 的时候 OOM 了") == "保存checkpoint的时候OOM了"
    assert unspaced("OOM when loading the 7B model on 2 GPUs") == "OOM when loading the 7B model on 2 GPUs"
    assert unspaced("显存 24 G\n第 2 步") == "显存24 G\n第2步"


@pytest.mark.parametrize(
    ("text", "said"),
    [("显存也一直在涨", "显存也一直在涨"), ("训练到一半显存也一直在涨，很奇怪", "显存也一直在涨")],
)
def test_a_chinese_keyword_is_read_through_particles_between_its_words(text: str, said: str) -> None:
    signal = Signal(type="keyword", lang="zh", patterns=["显存一直涨"], weight=1.0, label="显存一直涨")
    found = match_all([signal], text)
    assert [m.excerpt for m in found] == [said]  # the user's own words, particles and all


@pytest.mark.parametrize("text", ["显存没有一直涨", "显存一直很稳定"])
def test_particles_never_hide_a_negation_or_other_words(text: str) -> None:
    signal = Signal(type="keyword", lang="zh", patterns=["显存一直涨"], weight=1.0, label="显存一直涨")
    assert match_all([signal], text) == []


def test_a_character_that_lowers_to_two_does_not_shift_the_excerpt() -> None:
    signal = Signal(type="keyword", lang="zh", patterns=["显存一直涨"], weight=1.0, label="显存一直涨")
    assert [m.excerpt for m in match_all([signal], "İİ 显存也一直在涨")] == ["显存也一直在涨"]


@pytest.mark.parametrize(
    "warning",
    [
        # transformers 4.53-4.57
        "`sdpa` attention does not support `output_attentions=True` or `head_mask`. Please set your attention",
        # transformers 5.x (integrations/sdpa_attention.py and flash_attention.py) no longer names head_mask
        "`sdpa` attention does not support `output_attentions=True`. Please set your attention to `eager` if you want",
        "Flash Attention does not support `output_attentions=True`. Please set your attention to `eager` if you want",
    ],
)
def test_a_warning_that_stays_on_sdpa_counts_against_the_eager_fallback(kb, warning) -> None:
    found = match_all(kb.causes["output-attentions-forces-eager"].signals, warning)
    assert [m.signal.weight for m in found if m.signal.weight < 0], f"no evidence against the fallback in {warning!r}"


def test_the_fallback_warning_of_4_48_is_not_read_as_no_fallback(kb) -> None:
    warning = (
        "`torch.nn.functional.scaled_dot_product_attention` does not support `output_attentions=True`. "
        "Falling back to eager attention."
    )
    found = match_all(kb.causes["output-attentions-forces-eager"].signals, warning)
    assert not [m for m in found if m.signal.weight < 0]
