"""Everything the estimator, the planner and quantify say reads in Chinese with ``--lang zh``.

Each run goes through what the CLI runs (``api.read`` -> ``api.analyse`` -> the contract -> text,
markdown and JSON; ``triage estimate``'s own text and JSON), and every text the estimate produced
(assumptions, formulas, overheads, the peak's moment, notes, alternatives, the doubt, the plan, each
remedy's outcome, blockers and unlocking upgrade, the fingerprint) is searched for English prose: four
or more English words in a row, outside identifiers, code and URLs. The same texts in English must be
English, so a test that cannot see English would fail too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from triage import api
from triage.estimate import estimate
from triage.estimate.alternatives import alternatives
from triage.render.contract import to_dict
from triage.render.estimate import estimate_json, render_estimate
from triage.render.markdown import render_markdown
from triage.render.output import validated
from triage.render.text import render_text

#: Runs that reach every kind of estimator text: the classic eager-attention case on transformers 4.31
#: (assumptions, upgrades that unlock SDPA/FA2), QLoRA with an old bitsandbytes, a ZeRO-3 70B full
#: fine-tune on 8 GPUs, FSDP LoRA with accumulation, an evaluation OOM with accumulated logits,
#: generation, a borderline run, a run that trained 500 steps yet cannot fit (the doubt), an
#: OOM message's requested size (the fingerprint), an unknown model with a parameter count, a GPU
#: count left unknown, and paged/8-bit optimizers, modules_to_save, device_map splits.
RUNS: dict[str, list[str]] = {
    "classic": [
        "model_name=llama-7b",
        "gpu_name=3090",
        "transformers_version=4.31.0",
        "max_length=2048",
        "batch_size=4",
        "oom_requested_bytes=1073741824",
    ],
    "qlora-old-bnb": [
        "model_name=llama-2-13b",
        "gpu_name=T4",
        "quantization=4bit",
        "bitsandbytes_version=0.41.1",
        "max_length=1024",
        "optimizer=paged_adamw_8bit",
        "modules_to_save=lm_head",
    ],
    "zero3-70b": [
        "model_name=llama-2-70b",
        "gpu_name=A100-80GB",
        "finetune_method=full",
        "distributed=deepspeed",
        "zero_stage=3",
        "gpu_count=8",
        "mixed_precision=bf16",
        "max_length=4096",
        "batch_size=1",
    ],
    "fsdp-unknown-count": [
        "model_name=mistral-7b",
        "gpu_name=A10G",
        "distributed=fsdp",
        "grad_accum=4",
        "offload=true",
        "lora_target_modules=q_proj,v_proj,nonexistent_proj",
    ],
    "evaluation": [
        "model_name=llama-2-7b",
        "gpu_name=4090",
        "phase=evaluation",
        "compute_metrics=true",
        "eval_batch_size=16",
        "max_length=1024",
    ],
    "generation": ["model_name=qwen2-7b", "gpu_name=3090", "phase=generation", "num_beams=4", "max_new_tokens=512"],
    "borderline": [
        "model_name=llama-2-7b",
        "gpu_name=3090",
        "gradient_checkpointing=true",
        "max_length=2048",
        "batch_size=8",
        "attn_implementation=sdpa",
    ],
    "trained-then-oom": [
        "model_name=llama-2-13b",
        "gpu_name=3090",
        "finetune_method=full",
        "oom_step=500",
        "max_length=2048",
    ],
    "model-by-size": ["model_name=my-own-model", "model_params_b=3", "gpu_name=V100-16GB", "torch_dtype=fp32"],
    "ddp-fp16": [
        "model_name=llama-2-7b",
        "gpu_name=A100-40GB",
        "distributed=ddp",
        "gpu_count=4",
        "mixed_precision=fp16",
    ],
    "model-parallel": ["model_name=llama-2-13b", "gpu_name=3090", "distributed=model_parallel", "gpu_count=2"],
    "no-model": ["gpu_name=3090", "max_length=2048"],
    "unknown-optimizer": ["model_name=llama-2-7b", "gpu_name=3090", "optimizer=adamw_super"],
    # the other branches of the formulas: old peft, FSDP offload, litgpt, 8-bit, a fused loss, freeze,
    # factored and low-rank optimizers, the optimizer step in backward, padded batches, expandable segments
    "peft-old-fsdp-offload": [
        "model_name=llama-2-7b",
        "gpu_name=3090",
        "peft_version=0.10.0",
        "distributed=fsdp",
        "offload=true",
        "gpu_count=2",
    ],
    "llama-factory": ["model_name=llama-2-7b", "gpu_name=A100-40GB", "framework=llama_factory", "max_length=512"],
    "8bit-fused": ["model_name=llama-2-13b", "gpu_name=3090", "quantization=8bit", "fused_loss=true"],
    "freeze-adafactor": [
        "model_name=llama-2-7b",
        "gpu_name=A100-80GB",
        "finetune_method=freeze",
        "optimizer=adafactor",
    ],
    "galore-in-backward": [
        "model_name=llama-2-7b",
        "gpu_name=A100-80GB",
        "finetune_method=full",
        "optimizer=galore_adamw",
        "optimizer_in_backward=true",
        "grad_accum=2",
    ],
    "padded-expandable": [
        "model_name=llama-2-7b",
        "gpu_name=4090",
        "padding=longest",
        "expandable_segments=true",
        "other_process_bytes=2GiB",
    ],
    "zero2-full-deepspeed": [
        "model_name=llama-2-7b",
        "gpu_name=A100-80GB",
        "finetune_method=full",
        "distributed=deepspeed",
        "gpu_count=4",
        "mixed_precision=bf16",
    ],
}

#: What may stand in Chinese text in English: URLs, `code`, identifiers with _ . / = digits or capitals
#: inside (q_proj, adamw_hf, LoraConfig, TrainingArguments, fp32), the "x" of a product, and names.
_URL = re.compile(r"https?://\S+")
_CODE = re.compile(r"`[^`]*`")
_WORD = re.compile(r"^[a-z][a-z'’-]*$", re.IGNORECASE)


def english_prose(text: str) -> list[str]:
    """Runs of four or more plain English words (letters only, not identifiers) in ``text``."""
    text = _CODE.sub(" ", _URL.sub(" ", text))
    found: list[str] = []
    run: list[str] = []
    for token in re.split(r"[\s,;:()（）：；，、。]+", text):
        bare = token.strip(".!?\"'“”[]{}<>")
        if bare and bare != "x" and _WORD.match(bare) and not re.search(r"[A-Z].*[A-Z]|[a-z][A-Z]", bare):
            run.append(bare)
            continue
        if len(run) >= 4:
            found.append(" ".join(run))
        run = []
    if len(run) >= 4:
        found.append(" ".join(run))
    return found


def test_the_detector_sees_english_prose_and_spares_identifiers() -> None:
    assert english_prose("假设 finetune_method = lora: not given; most fine-tuning on one GPU is LoRA")
    assert english_prose("峰值出现在 start of backward: saved activations and the loss")
    assert not english_prose("32 层 x r=8 x q_proj,v_proj 的 sum(d_in+d_out) = 4,194,304 个参数 x 4 B")
    assert not english_prose("peft LoraConfig 默认 r=8；HF TrainingArguments 的默认值 https://github.com/a/b/c/d")


@pytest.fixture(autouse=True)
def no_similar_reports(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRIAGE_CORPUS", str(tmp_path_factory.mktemp("empty-corpus")))


@pytest.fixture(scope="module")
def kb() -> Any:
    return api.knowledge()


def _analyse(kb: Any, facts: list[str], lang: str) -> tuple[Any, dict[str, Any]]:
    inputs = api.read(kb, symptoms=["CUDA out of memory"], facts=api.parse_facts(kb, facts))
    analysis = api.analyse(kb, inputs.session(lang))
    return analysis, validated(to_dict(kb, analysis.diagnosis, memory=analysis.memory, top=8))


def _estimate_texts(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, text) for every text of the contract that the estimator, planner or quantify produced."""
    mem = data["memory"]
    if not mem.get("estimated"):
        yield "memory.missing", mem["missing"]
        return
    yield "memory.peak_detail", mem["peak_detail"]
    for name, formula in mem["formulas"].items():
        yield f"memory.formulas.{name}", formula
    for item in mem["overheads"]:
        yield f"memory.overheads.{item['name']}", item["why"]
    for a in mem["assumptions"]:
        yield f"memory.assumptions.{a['fact']}", a["reason"]
    for note in mem["notes"]:
        yield "memory.notes", note
    for alt in mem["alternatives"]:
        yield f"memory.alternatives.{alt['fact']}", alt["label"]
    if mem.get("doubt"):
        yield "memory.doubt", mem["doubt"]["label"]
    if mem.get("fingerprint") and mem["fingerprint"].get("best"):
        yield "memory.fingerprint", mem["fingerprint"]["best"]["description"]
    for step in (mem.get("plan") or {}).get("steps", []):
        if step.get("label"):
            yield f"memory.plan.{step['id']}", step["label"]
    for r in data["remedies"]:
        for blocker in r["blockers"]:
            yield f"remedies.{r['id']}.blockers", blocker
        if r.get("unlock_label"):
            yield f"remedies.{r['id']}.unlock_label", r["unlock_label"]
        if r.get("outcome"):
            yield f"remedies.{r['id']}.outcome", r["outcome"]["label"]


def _memory_section(text: str, head: str, next_heads: tuple[str, ...]) -> str:
    start = text.index(head)
    ends = [text.index(h, start + len(head)) for h in next_heads if h in text[start + len(head) :]]
    return text[start : min(ends) if ends else len(text)]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_estimator_text_reads_in_chinese(kb: Any, name: str) -> None:
    _, zh = _analyse(kb, RUNS[name], "zh")
    texts = list(_estimate_texts(zh))
    assert texts, "the run produced no estimator text to check"
    assert (name in UNSIZED) == (not zh["memory"]["estimated"])
    english = {where: english_prose(text) for where, text in texts if english_prose(text)}
    assert not english, english
    # the faces: the memory section of the text and markdown, and the remedies' lines
    text = render_text(zh)
    memory = _memory_section(text, "显存估算", ("建议的修改", "可以进一步缩小范围的问题", "使用的事实"))
    assert not english_prose(memory), english_prose(memory)
    markdown = render_markdown(zh)
    md_memory = _memory_section(markdown, "### 显存估算", ("### 建议的修改", "### 可以进一步", "### 使用的事实"))
    assert not english_prose(md_memory), english_prose(md_memory)


@pytest.mark.parametrize("name", ["classic", "qlora-old-bnb", "zero3-70b", "evaluation"])
def test_the_same_texts_in_english_are_english(kb: Any, name: str) -> None:
    """The check above sees English: the same runs in English have prose in the same places."""
    _, en = _analyse(kb, RUNS[name], "en")
    assert any(english_prose(text) for _, text in _estimate_texts(en))


#: Runs the estimator cannot size (the contract says why, in the output's language).
UNSIZED = ("no-model", "unknown-optimizer")


@pytest.mark.parametrize("name", sorted(n for n in RUNS if n not in UNSIZED))
def test_triage_estimate_text_and_json_read_in_chinese(kb: Any, name: str) -> None:
    facts = {f.name: f.value for f in api.parse_facts(kb, RUNS[name])}
    est = estimate(facts)
    others = list(alternatives(facts, est))
    text = render_estimate(est, None, "zh", others)
    assert not english_prose(text), english_prose(text)
    data = estimate_json(est, None, others, "zh")
    strings = [
        data["peak_detail"],
        *data["formulas"].values(),
        *(i["why"] for i in data["overheads"]),
        *(a["reason"] for a in data["assumptions"]),
        *data["notes"],
        *(a["label"] for a in data["alternatives"]),
    ]
    english = [s for s in strings if english_prose(s)]
    assert not english, english
    # machine values stay the same in both languages
    en = estimate_json(est, None, others, "en")
    assert {k: en[k] for k in ("peak_phase", "components", "verdict")} == {
        k: data[k] for k in ("peak_phase", "components", "verdict")
    }
    assert [a["fact"] for a in en["assumptions"]] == [a["fact"] for a in data["assumptions"]]
    json.dumps(data, ensure_ascii=False)


def test_every_component_overhead_and_assumption_has_a_chinese_twin(kb: Any) -> None:
    """Not only what the runs above show: every sized component, every moment and every overhead of them."""
    runs = {name: {f.name: f.value for f in api.parse_facts(kb, facts)} for name, facts in RUNS.items()}
    # litgpt's own model code (the published-peaks bench sizes it; no user fact names it)
    runs["litgpt-fsdp"] = {"model_name": "llama-2-7b", "framework": "litgpt", "distributed": "fsdp", "gpu_count": 2}
    for name, values in runs.items():
        if name in UNSIZED:
            continue
        est = estimate(values)
        for comp in est.sizes.values():
            assert comp.formula_zh and comp.formula_zh != comp.formula, (name, comp.name)
        for phase in est.phases:
            assert phase.detail_zh, (name, phase.detail)
        for item in est.device_total.items:
            assert item.why_zh, (name, item.name)
        for a in est.assumptions:
            assert a.reason_zh and a.reason_zh != a.reason, (name, a.fact)
        assert len(est.notes_zh) == len(est.notes), name


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "--model", "LLaMA-7B", "--gpu", "3090", "--max-length", "2048"],
        ["estimate", "--model", "LLaMA-7B", "--gpu", "3090", "--max-length", "2048", "--format", "json"],
        ["fit", "--model", "LLaMA-7B", "--gpu", "3090", "--solve", "max_length"],
        ["fit", "--model", "LLaMA-7B", "--gpu", "3090", "--solve", "max_length", "--format", "json"],
        ["diagnose", "--symptom", "LLaMA-7B on a 3090, max_length 2048, CUDA out of memory", "--format", "json"],
    ],
)
def test_the_commands_say_it_in_chinese(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    from triage.cli import main

    main([*argv, "--lang", "zh"])
    out = capsys.readouterr().out
    if "--format" in argv:
        data = json.loads(out)
        memory = data.get("memory", data)
        said = [a["reason"] for a in memory["assumptions"]]
        said += [memory.get("peak_detail", ""), *memory.get("formulas", {}).values()]
        said += [i["why"] for i in memory.get("overheads", [])]
        assert said and not [s for s in said if english_prose(s)]
    else:
        assert not english_prose(out), english_prose(out)
