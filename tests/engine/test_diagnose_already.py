"""A remedy is never proposed to a run that already has it (review M5: ZeRO-3 suggested to a ZeRO-3 run)."""

from __future__ import annotations

from triage import api


def test_a_remedy_the_run_already_has_is_not_applicable(kb):
    said = "8x A100 80GB, DeepSpeed ZeRO-3, full fine-tune of Llama-2-70B with gradient checkpointing on, OOM"
    analysis = api.analyse(kb, api.build_session(kb, symptoms=[said]))
    zero3 = next((r for r in analysis.diagnosis.remedies if r.remedy.id == "deepspeed-zero3"), None)
    if zero3 is not None:
        assert zero3.applicable is False
        assert any("already has" in b for b in zero3.blockers)
    plan = analysis.memory.plan
    assert plan is None or all(step.remedy_id != "deepspeed-zero3" for step in plan.steps)
    gc = [r for r in analysis.diagnosis.remedies if r.remedy.id == "enable-gradient-checkpointing"]
    assert all(r.applicable is False for r in gc)
