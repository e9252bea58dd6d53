"""Plans and remedies as a user sees them: each remedy with the setting it moves, the estimate after and
the verdict, in every format; plans that try what costs no quality first and never repeat what the run has."""

from __future__ import annotations

import re

import pytest

from triage import api
from triage.render.contract import to_dict
from triage.render.markdown import render_markdown
from triage.render.output import validated
from triage.render.text import render_text

GiB = 1024**3

#: The classic case: LLaMA-7B LoRA on a 3090, transformers 4.31 (no SDPA), eager attention,
#: max_length 2048, no checkpointing, micro-batch 4.
CLASSIC = [
    "model_name=llama-7b",
    "finetune_method=lora",
    "gpu_name=3090",
    "transformers_version=4.31.0",
    "attn_implementation=eager",
    "max_length=2048",
    "gradient_checkpointing=false",
    "batch_size=4",
]


@pytest.fixture(autouse=True)
def no_similar_reports(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRIAGE_CORPUS", str(tmp_path_factory.mktemp("empty-corpus")))


@pytest.fixture(scope="module")
def kb():
    return api.knowledge()


def diagnose(kb, facts, symptom="CUDA out of memory. Tried to allocate 1.00 GiB", lang="en"):
    inputs = api.read(kb, symptoms=[symptom], facts=api.parse_facts(kb, facts))
    analysis = api.analyse(kb, inputs.session(lang))
    data = validated(to_dict(kb, analysis.diagnosis, memory=analysis.memory, top=8))
    return analysis, data


def test_classic_case_plans_smaller_batch_and_checkpointing_before_a_shorter_sequence(kb):
    analysis, data = diagnose(kb, CLASSIC)
    plan = analysis.memory.plan
    assert plan is not None and plan.fits
    ids = [s.remedy_id for s in plan.steps]
    assert ids == ["reduce-batch-size-with-accumulation", "enable-gradient-checkpointing"]
    text = render_text(data)
    after = f"{plan.after.device_total.expected / GiB:.1f} GiB (fits)"
    flat = " ".join(text.split())
    assert (
        "cheapest plan that fits: batch_size 4 → 1, grad_accum 1 → 4 (reduce-batch-size-with-accumulation) + "
        f"gradient_checkpointing off → on (enable-gradient-checkpointing) ⇒ {after}" in flat
    )


def test_each_remedy_says_its_target_the_estimate_after_and_the_verdict(kb):
    analysis, data = diagnose(kb, CLASSIC)
    shorter = next(r for r in data["remedies"] if r["id"] == "reduce-max-length")
    outcome = shorter["outcome"]
    assert outcome["changes"] == [{"fact": "max_length", "before": 2048, "after": 1024}]
    assert outcome["verdict_after"] == "does_not_fit"
    size = analysis.memory.outcomes["reduce-max-length"].after_bytes / GiB
    assert outcome["label"] == f"max_length 2048 → 1024: {size:.1f} GiB, still does not fit"
    flat_text = " ".join(render_text(data).split())
    assert f"→ max_length 2048 → 1024: {size:.1f} GiB, still does not fit" in flat_text
    assert f"→ max_length 2048 → 1024: {size:.1f} GiB, still does not fit" in render_markdown(data)
    checkpointing = next(r for r in data["remedies"] if r["id"] == "enable-gradient-checkpointing")
    assert checkpointing["outcome"]["label"].startswith("gradient_checkpointing off → on: ")


def test_the_outcome_reads_in_chinese(kb):
    _, data = diagnose(kb, CLASSIC, lang="zh")
    shorter = next(r for r in data["remedies"] if r["id"] == "reduce-max-length")
    assert re.fullmatch(r"max_length 2048 → 1024: \d+\.\d GiB, 仍然放不下", shorter["outcome"]["label"])
    text = render_text(data)
    assert "batch_size 4 → 1, grad_accum 1 → 4" in " ".join(text.split())
    assert "gradient_checkpointing 关 → 开" in " ".join(text.split())


def test_a_zero3_full_fine_tune_gets_checkpointing_and_never_zero3_again(kb):
    facts = [
        "model_name=llama-2-70b",
        "finetune_method=full",
        "gpu_name=a100-80gb",
        "distributed=deepspeed",
        "zero_stage=3",
        "gpu_count=8",
        "gradient_checkpointing=false",
        "batch_size=2",
        "max_length=4096",
        "torch_dtype=bf16",
    ]
    analysis, data = diagnose(kb, facts, symptom="CUDA out of memory in training with DeepSpeed ZeRO-3")
    plan = analysis.memory.plan
    assert plan is not None
    ids = [s.remedy_id for s in plan.steps]
    assert "enable-gradient-checkpointing" in ids
    assert "deepspeed-zero3" not in ids and "fsdp-full-shard" not in ids
    zero3 = [r for r in data["remedies"] if r["id"] == "deepspeed-zero3"]
    for r in zero3:  # listed at most as not applicable, without a pointless "after"
        assert r["applicable"] is False and "outcome" not in r
    # the quality-free lever comes first, and a shorter sequence is not needed
    assert ids[0] == "enable-gradient-checkpointing" and "reduce-max-length" not in ids


def test_dynamic_padding_is_not_sized_without_the_lengths(kb):
    analysis, data = diagnose(kb, CLASSIC, symptom="tokenizer(padding='max_length') CUDA out of memory")
    outcome = analysis.memory.outcomes.get("dynamic-padding")
    assert outcome is not None and outcome.saving_bytes is None and outcome.unsized == "length_distribution"
    (shown,) = [r for r in data["remedies"] if r["id"] == "dynamic-padding"]
    assert shown["saving_gib"] is None and shown["outcome"]["saving_unsized"] == "length_distribution"
    assert shown["outcome"]["label"].startswith("padding max_length → longest: cannot be sized without the lengths")
    text = " ".join(render_text(data).split())
    line = text[text.index("dynamic padding") - 80 :][:400]
    assert "~0" not in line and "padding max_length → longest: cannot be sized without the lengths" in text
    # a remedy the estimator does not model states no saving at all (not "saves ~0")
    (grouping,) = [r for r in data["remedies"] if r["id"] == "group-by-length"]
    assert grouping["saving_gib"] is None and "outcome" not in grouping


def test_dynamic_padding_saves_when_batches_were_padded_to_max_length(kb):
    facts = [*CLASSIC, "padding=max_length", "max_sample_tokens=700"]
    analysis, _ = diagnose(kb, facts, symptom="tokenizer(padding='max_length') CUDA out of memory")
    outcome = analysis.memory.outcomes["dynamic-padding"]
    assert outcome.saving_bytes is not None and outcome.saving_bytes > 10 * GiB
    first = outcome.targets[0]
    assert (first.fact, first.before, first.after) == ("padding", "max_length", "longest")
