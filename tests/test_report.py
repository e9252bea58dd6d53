"""The markdown report: facts with sources, the ranking with evidence, the plan, no secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from triage.api import Inputs as Taken
from triage.api import read as read_inputs
from triage.interview import Interview
from triage.kb.loader import KnowledgeBase, load_checked
from triage.render.report import render_report

FIXTURE_KB = Path(__file__).parent / "fixtures" / "tui" / "knowledge"
HF = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"


@pytest.fixture(autouse=True)
def no_similar_reports(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests use small knowledge bases of their own: no corpus votes (or shows) in them."""
    monkeypatch.setenv("TRIAGE_CORPUS", str(tmp_path_factory.mktemp("empty-corpus")))


@pytest.fixture(scope="module")
def fkb() -> KnowledgeBase:
    return load_checked(FIXTURE_KB)


def interview(fkb: KnowledgeBase) -> Interview:
    iv = Interview(fkb, start=read_inputs(fkb, symptoms=["LLaMA-7B LoRA on a 3090, CUDA out of memory at step 0"]))
    iv.tell(f"export HF_TOKEN={HF}\npython train.py --max_length 2048")
    for _ in range(6):
        question = iv.question
        if question is None:
            break
        if question.fact == "gradient_checkpointing":
            iv.tell("no")
        else:
            iv.dont_know()
    assert iv.facts.value("gradient_checkpointing") is False
    return iv


def test_report_has_ranking_evidence_plan_facts_and_transcript(fkb):
    iv = interview(fkb)
    report = render_report(fkb, iv.diagnosis, memory=iv.memory, transcript=iv.transcript(), pasted=iv.pasted())
    top = iv.diagnosis.causes[0]
    assert top.id == "gradient-checkpointing-off"
    assert "**Most likely:** Gradient checkpointing is off" in report
    assert "| 1 | Gradient checkpointing is off | `no_grad_ckpt` |" in report
    # evidence lines quote the phrase that matched, and name the facts with their source
    assert "fails at the first step — “step 0”" in report
    assert "gradient_checkpointing = false — `gradient_checkpointing` (answer)" in report
    assert "### What to change" in report and "**Enable gradient checkpointing**" in report
    assert "gradient_checkpointing=True" in report  # the steps
    assert "| `gradient_checkpointing` | False | answer | no |" in report
    assert "### Questions and answers" in report
    assert "- Is gradient checkpointing enabled? → no" in report


def test_secrets_in_pasted_text_are_redacted(fkb):
    iv = interview(fkb)
    report = render_report(fkb, iv.diagnosis, transcript=iv.transcript(), pasted=iv.pasted())
    assert HF not in report
    assert "HF_TOKEN=[REDACTED:hf-token]" in report
    assert report.rstrip().endswith("_secrets were redacted._")


def gib(n: int) -> str:
    return f"{n / 1024**3:.1f} GiB"


def test_report_has_the_memory_breakdown_savings_and_plan(fkb):
    iv = Interview(fkb, start=read_inputs(fkb, symptoms=[f"HF_TOKEN={HF} LLaMA-7B LoRA on a 3090, OOM at step 0"]))
    assert iv.question is not None and iv.question.fact == "gradient_checkpointing"
    iv.answer(False)
    memory = iv.memory
    est, plan = memory.estimate, memory.plan
    assert est is not None and plan is not None and plan.steps
    report = render_report(fkb, iv.diagnosis, memory=memory, pasted=iv.pasted())
    assert plan.fits
    # each remedy with what it saves on this run (the diagnosis' numbers, as the CLI shows them)
    saved = next(rr.saving_bytes for rr in iv.diagnosis.remedies if rr.remedy.id == "enable-gradient-checkpointing")
    assert saved is not None and saved > 0
    assert f"**Enable gradient checkpointing** — saves {gib(saved)}" in report
    # the breakdown: every component at the peak, the overheads, the band and the verdict against the GPU
    assert "### Memory" in report
    for name, size in est.components.items():
        assert f"| {name} (at the peak) | {size / 1024**3:.2f} |" in report
    assert f"| **device total** | **{est.device_total.expected / 1024**3:.2f}** " in report
    assert f"**does not fit**: {gib(est.device_total.expected)} / GPU {gib(est.capacity_bytes)}" in report
    assert "- `torch_dtype = bf16`: not given" in report  # the estimator's assumptions
    # the plan: the cheapest remedies that fit, with the total after them
    assert "### Plan" in report and "Cheapest set of remedies that fits:" in report
    assert "1. **Enable gradient checkpointing** (`enable-gradient-checkpointing`)" in report
    assert f"→ {gib(plan.after.device_total.expected)} after (fits" in report
    assert HF not in report  # still redacted
    # without an estimate: no plan, and the memory section says what is missing
    bare = Interview(fkb, start=Taken(text="CUDA out of memory"))
    text = render_report(fkb, bare.diagnosis, memory=bare.memory)
    assert "No memory estimate: the model is unknown" in text
    assert "### Plan" not in text


def test_report_in_chinese_with_memory_and_savings(fkb):
    iv = interview(fkb)
    iv.set_lang("zh")
    report = render_report(
        fkb,
        iv.diagnosis,
        memory=iv.memory,
        transcript=iv.transcript(),
        whatif=["with enable-gradient-checkpointing: 18.9 GiB"],
    )
    assert "## triage 诊断报告" in report
    assert "未开启梯度检查点" in report
    assert "### 显存" in report and "放不下" in report
    # at max_length 2048 checkpointing alone is not enough: the plan adds a lever that costs no quality
    # (the fused loss, from the whole knowledge base, not only the diagnosed causes) and fits
    plan = iv.memory.plan
    assert plan is not None and plan.fits
    assert [s.remedy_id for s in plan.steps] == ["enable-gradient-checkpointing", "use-fused-cross-entropy"]
    assert "### 修改计划" in report and "代价最小且放得下的修改组合" in report
    assert "**开启梯度检查点** — 节省 " in report
    # each remedy says the setting it moves, the estimate after and the verdict, in Chinese
    gc = iv.memory.outcomes["enable-gradient-checkpointing"]
    verdict = {"fits": "放得下", "borderline": "只有按估算的下限才放得下", "does_not_fit": "仍然放不下"}[gc.verdict]
    assert f"gradient_checkpointing 关 → 开: {gib(gc.after_bytes)}, {verdict}" in report
    assert "fused_loss 关 → 开" in report
    assert "- 是否开启了梯度检查点（gradient checkpointing）？ → 否" in report
    assert "会话中试用的修改" in report and "with enable-gradient-checkpointing: 18.9 GiB" in report
    # text signals have English-only labels: in Chinese the matched words are shown instead
    assert "文本提到“step 0”" in report
    assert "fails at the first step" not in report


def test_undecided_session_says_so(fkb):
    iv = Interview(fkb)
    report = render_report(fkb, iv.diagnosis)
    assert "Not established yet: what the run itself shows makes no cause more likely than not." in report
    assert "none (only the text was used)" in report


def test_pasted_text_with_backticks_keeps_its_fence(fkb):
    iv = Interview(fkb)
    iv.tell("```\ntorch.cuda.OutOfMemoryError\n```")
    report = render_report(fkb, iv.diagnosis, pasted=iv.pasted())
    assert "````\n```\ntorch.cuda.OutOfMemoryError\n```\n````" in report
