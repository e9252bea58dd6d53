"""The markdown report: facts with sources, the ranking with evidence, the plan, no secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from triage.interview import Interview, Taken
from triage.kb.loader import KnowledgeBase, load_checked
from triage.report import render_report

FIXTURE_KB = Path(__file__).parent / "fixtures" / "tui" / "knowledge"
HF = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"


@pytest.fixture(scope="module")
def fkb() -> KnowledgeBase:
    return load_checked(FIXTURE_KB)


def interview(fkb: KnowledgeBase) -> Interview:
    iv = Interview(fkb, start=Taken(text="LLaMA-7B LoRA, CUDA out of memory at step 0"))
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
    report = render_report(fkb, iv.diagnosis, transcript=iv.transcript(), pasted=iv.pasted())
    top = iv.diagnosis.causes[0]
    assert top.id == "gradient-checkpointing-off"
    assert "**Most likely:** Gradient checkpointing is off" in report
    assert "| 1 | Gradient checkpointing is off | `no_grad_ckpt` |" in report
    # evidence lines quote the phrase that matched, and name the facts with their source
    assert "fails at the first step — “step 0”" in report
    assert "gradient_checkpointing = false — `gradient_checkpointing` (answer)" in report
    assert "### Plan" in report and "**Enable gradient checkpointing**" in report
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


def test_report_in_chinese_with_memory_and_savings(fkb):
    iv = interview(fkb)
    iv.set_lang("zh")
    report = render_report(
        fkb,
        iv.diagnosis,
        transcript=iv.transcript(),
        memory=["估算峰值 30.1 GiB / 24 GiB：放不下"],
        savings={"enable-gradient-checkpointing": "saves 11.0 GiB"},
    )
    assert "## triage 诊断报告" in report
    assert "未开启梯度检查点" in report
    assert "### 显存" in report and "放不下" in report
    assert "**开启梯度检查点** — saves 11.0 GiB" in report
    assert "- 是否开启了梯度检查点（gradient checkpointing）？ → 否" in report


def test_undecided_session_says_so(fkb):
    iv = Interview(fkb)
    report = render_report(fkb, iv.diagnosis)
    assert "No cause is more likely than not yet." in report
    assert "none (only the text was used)" in report


def test_pasted_text_with_backticks_keeps_its_fence(fkb):
    iv = Interview(fkb)
    iv.tell("```\ntorch.cuda.OutOfMemoryError\n```")
    report = render_report(fkb, iv.diagnosis, pasted=iv.pasted())
    assert "````\n```\ntorch.cuda.OutOfMemoryError\n```\n````" in report
