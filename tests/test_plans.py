"""Plans and remedies as a user sees them: each remedy with the setting it moves, the estimate after and
the verdict, in every format; plans that try what costs no quality first and never repeat what the run has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from triage import api
from triage.render.contract import to_dict
from triage.render.markdown import render_markdown
from triage.render.output import validated
from triage.render.text import render_text

GiB = 1024**3
FIXTURES = Path(__file__).parent / "fixtures"

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
    assert ids == ["enable-gradient-checkpointing", "reduce-batch-size-with-accumulation"]
    text = render_text(data)
    after = f"{plan.after.device_total.expected / GiB:.1f} GiB (fits)"
    flat = " ".join(text.split())
    assert (
        "cheapest plan that fits: gradient_checkpointing off → on (enable-gradient-checkpointing) + "
        f"batch_size 4 → 1, grad_accum 1 → 4 (reduce-batch-size-with-accumulation) ⇒ {after}" in flat
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
    # a shorter sequence is not needed
    assert "reduce-max-length" not in ids


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


# ---------------------------------------------------------------- assumptions that move the estimate


def test_an_unknown_method_is_shown_with_both_figures_and_asked(kb):
    facts = ["model_name=llama-2-7b", "gpu_name=3090", "max_length=1024", "batch_size=2"]
    _analysis, data = diagnose(kb, facts)
    alts = {a["fact"]: a for a in data["memory"]["alternatives"]}
    full = alts["finetune_method"]
    assert full["assumed"] == "lora" and full["value"] == "full" and full["change"] > 0.4
    expected = data["memory"]["device_total_gib"]["expected"]
    label = (
        f"finetune_method lora (assumed): {expected:.1f} GiB; full: {full['device_total_expected_gib']:.1f} GiB, "
        "does not fit — say which with --fact finetune_method=..."
    )
    assert full["label"] == label
    assert f"! {label}" in " ".join(render_text(data).split())
    assert label in render_markdown(data)
    assert "finetune_method" in [q["fact"] for q in data["questions"]]
    # once the method is said, the alternative and the question are gone
    _, said = diagnose(kb, [*facts, "finetune_method=lora"])
    assert "finetune_method" not in {a["fact"] for a in said["memory"]["alternatives"]}
    assert "finetune_method" not in [q["fact"] for q in said["questions"]]


def test_a_lora_adapter_file_settles_the_method(kb):
    inputs = api.read(
        kb,
        configs=[str(FIXTURES / "ingest" / "config" / "adapter_config.json")],
        facts=api.parse_facts(kb, ["gpu_name=3090", "max_length=1024", "batch_size=2"]),
    )
    est = api.estimate_inputs(inputs)
    assert "finetune_method" not in {a.fact for a in api.alternatives_of(inputs, est)}


def test_a_4bit_run_shows_what_prepare_model_for_kbit_training_changes(kb):
    facts = ["model_name=llama-2-7b", "gpu_name=3090", "quantization=4bit", "max_length=1024", "batch_size=2"]
    _, data = diagnose(kb, facts)
    alts = {a["fact"]: a for a in data["memory"]["alternatives"]}
    assert alts["prepare_kbit_training"]["assumed"] is True and alts["prepare_kbit_training"]["value"] is False
    assert "prepare_kbit_training on (assumed)" in alts["prepare_kbit_training"]["label"]


def test_the_interview_asks_the_setting_that_moves_the_estimate(kb):
    inputs = api.read(
        kb,
        symptoms=["CUDA out of memory training llama-2-7b on a 3090"],
        facts=api.parse_facts(kb, ["max_length=1024", "batch_size=2"]),
    )
    iv = api.start_interview(kb, inputs)
    assert "finetune_method" in [q.fact for q in iv.questions]
    while iv.question is not None and iv.question.fact != "finetune_method":
        iv.dont_know()
    assert iv.question is not None and iv.question.fact == "finetune_method"
    iv.answer("full")
    assert iv.memory.estimate is not None and iv.memory.estimate.run.method == "full"
    assert "finetune_method" not in {a.fact for a in iv.memory.alternatives}


def test_triage_estimate_shows_both_figures(kb):
    inputs = api.read(kb, facts=api.parse_facts(kb, ["model_name=llama-2-7b", "gpu_name=3090", "max_length=1024"]))
    est = api.estimate_inputs(inputs)
    from triage.render.estimate import estimate_json, render_estimate

    others = api.alternatives_of(inputs, est)
    data = estimate_json(est, inputs, others, "zh")
    full = next(a for a in data["alternatives"] if a["fact"] == "finetune_method")
    assert full["label"].startswith("finetune_method 假设为 lora：")
    text = " ".join(render_estimate(est, inputs, "en", others).split())
    assert "The estimate depends on settings it had to assume:" in text
    assert "finetune_method lora (assumed):" in text


# ---------------------------------------------------------------- the estimate against what the user saw


def _weight(analysis, cause_id, fact):
    cause = next(rc for rc in analysis.diagnosis.causes if rc.id == cause_id)
    return next(i.weight for i in cause.scored.items if fact in i.facts)


def test_a_run_that_trained_yet_cannot_fit_is_flagged_and_the_estimate_counts_less(kb):
    facts = ["model_name=llama-2-70b", "gpu_name=3090", "finetune_method=lora", "max_length=1024", "batch_size=1"]
    first, plain = diagnose(kb, [*facts, "torch_dtype=bf16"], symptom="CUDA out of memory")
    later, trained = diagnose(kb, [*facts, "torch_dtype=bf16", "oom_step=350"], symptom="CUDA out of memory")
    assert "doubt" not in plain["memory"]
    doubt = trained["memory"]["doubt"]
    assert doubt["trained_steps"] == 350 and doubt["low_gib"] > doubt["capacity_gib"]
    assert doubt["label"].startswith("You say the run trained 350 steps before it ran out of memory")
    assert "a longer batch" in doubt["label"] and "evaluation" in doubt["label"] and "checkpoint save" in doubt["label"]
    text = " ".join(render_text(trained).split())
    assert "! You say the run trained 350 steps" in text
    assert "> You say the run trained 350 steps" in render_markdown(trained)
    # the estimate's own evidence (weights alone exceed the GPU) counts half
    before = _weight(first, "weights-exceed-gpu", "weights_exceed_gpu")
    after = _weight(later, "weights-exceed-gpu", "weights_exceed_gpu")
    assert before > 0 and after == pytest.approx(before / 2)
    _, zh = diagnose(kb, [*facts, "torch_dtype=bf16", "oom_step=350"], symptom="CUDA out of memory", lang="zh")
    assert zh["memory"]["doubt"]["label"].startswith("你说训练在爆显存之前已经跑了 350 步")


def test_no_doubt_when_it_failed_at_once(kb):
    facts = ["model_name=llama-2-70b", "gpu_name=3090", "finetune_method=lora", "oom_step=0", "torch_dtype=bf16"]
    _, data = diagnose(kb, facts)
    assert "doubt" not in data["memory"]


def test_an_oom_in_evaluation_is_estimated_as_evaluation(kb):
    facts = [
        "model_name=llama-2-7b",
        "gpu_name=3090",
        "finetune_method=lora",
        "max_length=1024",
        "batch_size=1",
        "gradient_checkpointing=true",
        "torch_dtype=bf16",
        "eval_batch_size=8",
        "compute_metrics=true",
    ]
    analysis, data = diagnose(kb, facts, symptom="CUDA out of memory as soon as evaluation starts")
    assert data["facts"]["phase"]["value"] == "evaluation"
    est = analysis.memory.estimate
    assert est is not None and est.peak_phase == "evaluation"
    assert est.components["eval_logits"] > est.components["weights"]  # the accumulated logits, not training
    plan = analysis.memory.plan
    assert plan is not None and plan.fits
    assert {s.remedy_id for s in plan.steps} & {"preprocess-logits-for-metrics", "eval-accumulation-steps"}
    # with eval_accumulation_steps the logits leave the GPU every N steps
    _, moved = diagnose(kb, [*facts, "eval_accumulation_steps=1"], symptom="CUDA out of memory in evaluation")
    assert moved["memory"]["device_total_gib"]["expected"] < data["memory"]["device_total_gib"]["expected"] / 4


# ---------------------------------------------------------------- the user's files, read to the end


def _run_of(kb, *files, facts=()):
    paths = [str(FIXTURES / "ingest" / "config" / f) for f in files]
    inputs = api.read(kb, configs=paths, facts=api.parse_facts(kb, ["gpu_name=3090", *facts]))
    return api.run_of(inputs)


def test_a_saved_4bit_model_config_sizes_a_qlora_run(kb):
    run = _run_of(kb, "qlora_saved_model_config.json")
    assert run.quantization == "4bit" and run.double_quant is True and run.weight_dtype == "bf16"
    assert run.method in ("qlora", "lora")


def test_trl_model_init_kwargs_size_eager_attention(kb):
    run = _run_of(kb, "sft_config_model_init_kwargs.json", facts=["model_name=llama-2-7b"])
    assert run.attn == "eager" and run.weight_dtype == "bf16" and run.seq == 2048 and run.batch == 4
    assert "attn_implementation" not in {a.fact for a in run.assumptions}


def test_an_adapter_files_dropout_is_sized(kb):
    run = _run_of(kb, "adapter_config.json", facts=["max_length=512", "batch_size=1"])
    assert run.lora_dropout == 0.05 and run.lora_r == 64
    assert "lora_dropout" not in {a.fact for a in run.assumptions}


def test_a_remedy_that_needs_a_newer_library_says_the_upgrade_that_unlocks_it(kb):
    _, data = diagnose(kb, CLASSIC)
    sdpa = next(r for r in data["remedies"] if r["id"] == "use-sdpa-or-flash-attention")
    assert sdpa["applicable"] is False  # transformers 4.31 has no SDPA path
    assert sdpa["outcome"]["changes"][:2] == [
        {"fact": "transformers_version", "before": "4.31.0", "after": "4.36.0"},
        {"fact": "attn_implementation", "before": "eager", "after": "sdpa"},
    ]
    assert sdpa["outcome"]["label"].startswith(
        "transformers_version 4.31.0 → 4.36.0, attn_implementation eager → sdpa:"
    )


def test_a_plan_that_does_not_fit_is_called_the_closest(kb):
    facts = ["model_name=llama-3.1-405b", "gpu_name=t4", "finetune_method=full"]
    analysis, data = diagnose(kb, facts)
    assert analysis.memory.plan is not None and not analysis.memory.plan.fits
    text = " ".join(render_text(data).split())
    assert "no combination fits; the closest:" in text and "cheapest plan that fits" not in text


def test_sharding_a_one_gpu_run_says_it_needs_more_gpus(kb):
    facts = ["model_name=llama-2-7b", "gpu_name=3090", "max_length=1024", "batch_size=2", "finetune_method=full"]
    _, data = diagnose(kb, facts, symptom="CUDA out of memory, full fine-tune, zero stage too low")
    zero3 = next(r for r in data["remedies"] if r["id"] == "deepspeed-zero3")
    assert {"fact": "gpu_count", "before": 1, "after": 2, "assumed": True} in zero3["outcome"]["changes"]
    # the GPU count is the estimator's assumption, and the label says so (never silently 2 GPUs)
    assert "gpu_count 1 → 2 (assumed: say --fact gpu_count=N)" in zero3["outcome"]["label"]
    _, zh = diagnose(kb, facts, symptom="CUDA out of memory, full fine-tune, zero stage too low", lang="zh")
    zero3_zh = next(r for r in zh["remedies"] if r["id"] == "deepspeed-zero3")
    assert "gpu_count 1 → 2（假设值：请用 --fact gpu_count=N 说明）" in zero3_zh["outcome"]["label"]
    # ZeRO-Offload alone runs on the one GPU the run has: no GPU is added, assumed or not
    offload = next(r for r in data["remedies"] if r["id"] == "zero-offload")
    assert offload["outcome"]["changes"] and all(c["fact"] != "gpu_count" for c in offload["outcome"]["changes"])


def test_the_tui_what_if_does_not_size_dynamic_padding_without_lengths(kb):
    from triage.tui.whatif import memory_view
    from triage.tui.widgets.memory import render_bar

    inputs = api.read(
        kb, symptoms=["tokenizer(padding='max_length') CUDA out of memory"], facts=api.parse_facts(kb, CLASSIC)
    )
    analysis = api.analyse(kb, inputs.session())
    before = analysis.memory.estimate
    view = memory_view(analysis.memory, analysis.diagnosis.session.facts, [kb.remedies["dynamic-padding"]])
    assert (
        before is not None and view.unsized == "length_distribution" and view.expected == before.device_total.expected
    )
    drawn = " ".join(render_bar(view, 80, "en").plain.split())
    assert "with 1 change: cannot be sized without the lengths of your samples" in drawn and "~0" not in drawn


#: Checkpointing on, micro-batch 1, 8192 tokens, eager attention on transformers 4.31: only SDPA (or a
#: shorter sequence) is left, and SDPA needs transformers 4.36.0 (the knowledge base's wheel-verified bound).
UPGRADE_CASE = [
    "model_name=llama-2-7b",
    "finetune_method=lora",
    "gpu_name=3090",
    "transformers_version=4.31.0",
    "attn_implementation=eager",
    "max_length=8192",
    "gradient_checkpointing=true",
    "batch_size=1",
    "torch_dtype=bf16",
]


def test_an_upgrade_that_unlocks_a_remedy_is_itself_the_plan(kb):
    analysis, data = diagnose(kb, UPGRADE_CASE)
    plan = analysis.memory.plan
    assert plan is not None and plan.fits
    # the quality-free way, with the upgrade it needs, before halving max_length (which costs quality)
    assert [s.remedy_id for s in plan.steps] == ["use-sdpa-or-flash-attention"]
    step = data["memory"]["plan"]["steps"][0]
    assert step["upgrades"] == {"transformers": "4.36.0"}
    assert {"fact": "transformers_version", "before": "4.31.0", "after": "4.36.0"} in step["targets"]
    sdpa = next(r for r in data["remedies"] if r["id"] == "use-sdpa-or-flash-attention")
    assert sdpa["applicable"] is False and sdpa["saving_gib"] > 15
    assert sdpa["unlocked_by"] == [{"package": "transformers", "have": "4.31.0", "version": "4.36.0"}]
    flat = " ".join(render_text(data).split())
    assert "cheapest plan that fits: transformers_version 4.31.0 → 4.36.0, attn_implementation eager → sdpa" in flat
    assert "upgrading is the way to it: transformers 4.31.0 → 4.36.0" in flat
    md = render_markdown(data)
    assert "upgrading is the way to it: transformers 4.31.0 → 4.36.0" in md
    assert "`use-sdpa-or-flash-attention` (transformers_version 4.31.0 → 4.36.0" in md
    _, zh = diagnose(kb, UPGRADE_CASE, lang="zh")
    zh_text = " ".join(render_text(zh).split())
    assert "代价最小的可行方案: transformers_version 4.31.0 → 4.36.0" in zh_text
    assert "需要 transformers>=4.36.0（你的是 4.31.0）; 升级就能用上它：transformers 4.31.0 → 4.36.0" in zh_text


def test_an_upgrade_costs_more_than_a_flag_and_less_than_any_quality(kb):
    from triage.estimate import remedy_cost
    from triage.quantify import unlocked

    sdpa = kb.remedies["use-sdpa-or-flash-attention"]
    upgraded = unlocked(sdpa, {"transformers_version": "4.36.0"})
    # more than flipping a flag (the same remedy on a new enough transformers), less than a shorter sequence
    assert remedy_cost(sdpa) < remedy_cost(upgraded) < remedy_cost(kb.remedies["reduce-max-length"])


def test_an_upgrade_does_not_unlock_what_the_gpu_cannot_run(kb):
    from triage.quantify import unlock

    facts = api.parse_facts(
        kb, ["gpu_name=V100", "compute_capability=7.0", "transformers_version=4.31.0", "attn_implementation=eager"]
    )
    session = api.read(kb, symptoms=["CUDA out of memory"], facts=facts).session()
    fa2, sdpa = kb.remedies["use-flash-attention-2"], kb.remedies["use-sdpa-or-flash-attention"]
    assert unlock(session.facts, fa2) == {}  # compute capability 7.0: upgrading transformers does not help
    assert unlock(session.facts, sdpa) == {"transformers_version": "4.36.0"}


def test_blockers_in_english_are_the_engines_own(kb):
    """The contract says why a remedy does not apply in the output's language; in English it says exactly
    what the engine says, so the two never drift apart."""
    for facts in (CLASSIC, UPGRADE_CASE, ["gpu_name=V100", "transformers_version=4.31.0", "zero_stage=3"]):
        analysis, data = diagnose(kb, facts)
        engine = {rr.remedy.id: list(rr.blockers) for rr in analysis.diagnosis.remedies}
        for r in data["remedies"]:
            assert r["blockers"] == engine[r["id"]], r["id"]


def test_an_unknown_gpu_count_of_a_sharded_run_shows_both_figures_and_is_not_asked(kb):
    facts = [
        "model_name=llama-2-70b",
        "gpu_name=A100-80GB",
        "finetune_method=full",
        "zero_stage=3",
        "mixed_precision=bf16",
        "max_length=2048",
        "batch_size=1",
        "gradient_checkpointing=true",
    ]
    analysis, data = diagnose(kb, facts)
    assumed = {a["fact"]: a for a in data["memory"]["assumptions"]}
    assert assumed["gpu_count"]["value"] == 2 and "sized on 2 GPUs" in assumed["gpu_count"]["reason"]
    alt = next(a for a in data["memory"]["alternatives"] if a["fact"] == "gpu_count")
    assert alt["assumed"] == 2 and alt["value"] == 8 and alt["change"] < -0.5
    assert alt["label"].startswith("gpu_count 2 (assumed): ") and "8: " in alt["label"]
    assert "gpu_count 2 (assumed)" in " ".join(render_text(data).split())
    # shown, not asked by the estimator (the causes may still ask it: that is their evidence)
    from triage.quantify import memory_questions

    assert "gpu_count" not in [
        q.fact for q in memory_questions(analysis.memory, kb.facts, analysis.diagnosis.session.facts)
    ]
    _, zh = diagnose(kb, facts, lang="zh")
    alt_zh = next(a for a in zh["memory"]["alternatives"] if a["fact"] == "gpu_count")
    assert alt_zh["label"].startswith("gpu_count 假设为 2：")


def test_a_remedy_only_an_upgrade_blocks_ranks_by_what_it_saves_and_a_failed_prerequisite_still_sinks(kb):
    """The classic case on 4.31: SDPA (saves ~98 GiB, needs transformers 4.36) is listed above shortening the
    sequence (saves less and costs quality), not after every applicable remedy; a remedy the run already has
    (no upgrade helps) stays below every applicable one."""
    analysis, data = diagnose(kb, CLASSIC)
    ids = [r["id"] for r in data["remedies"]]
    assert ids.index("use-sdpa-or-flash-attention") < ids.index("reduce-max-length")
    sdpa = next(r for r in data["remedies"] if r["id"] == "use-sdpa-or-flash-attention")
    assert sdpa["applicable"] is False and sdpa["unlocked_by"]
    has_it = [f if not f.startswith("gradient_checkpointing=") else "gradient_checkpointing=true" for f in CLASSIC]
    analysis, _ = diagnose(kb, has_it)
    ranked = analysis.diagnosis.remedies
    gc = [i for i, r in enumerate(ranked) if r.remedy.id == "enable-gradient-checkpointing"]
    assert gc and ranked[gc[0]].applicable is False
    live = [i for i, r in enumerate(ranked) if r.applicable is not False]
    assert live and gc[0] > max(live)
