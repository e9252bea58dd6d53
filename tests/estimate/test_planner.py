import pytest

from triage.estimate import fit, plan
from triage.estimate.estimator import GiB
from triage.kb.models import Remedy


def remedy(rid, changes, speed="none", quality="none", conflicts=()):
    return Remedy.model_validate(
        {
            "kind": "remedy",
            "id": rid,
            "title": {"en": rid, "zh": rid},
            "summary": {"en": rid, "zh": rid},
            "steps": {"hf_trainer": "..."},
            "changes": changes,
            "cost": {"speed": speed, "quality": quality},
            "conflicts": list(conflicts),
        }
    )


REMEDIES = [
    remedy("enable-gradient-checkpointing", {"gradient_checkpointing": True}, speed="medium"),
    remedy("use-sdpa", {"attn_implementation": "sdpa"}, speed="none"),
    remedy("batch-1-accumulate", {"batch_size": 1, "grad_accum": "scaled"}, speed="low"),
    remedy("load-in-4bit", {"quantization": "4bit"}, speed="medium", quality="low", conflicts=["load-in-8bit"]),
    remedy("load-in-8bit", {"quantization": "8bit"}, speed="high", quality="low", conflicts=["load-in-4bit"]),
    remedy("adamw-8bit", {"optimizer": "adamw_bnb_8bit"}, speed="none"),
    remedy("use-fused-cross-entropy", {"fused_loss": True}),
    remedy("halve-max-length", {"max_length": "half"}, quality="medium"),
]


def test_the_scenario_gets_a_plan_that_fits(scenario):
    p = plan(scenario, REMEDIES, headroom=0.05)
    assert p.fits and p.steps
    assert p.after.device_total.expected <= 0.95 * p.before.capacity_bytes
    assert p.before.fits is False
    assert all(p.savings[s.remedy_id] > 0 for s in p.steps)
    # the cheapest fix: sdpa is free, then batch 1 or checkpointing
    assert "use-sdpa" in [s.remedy_id for s in p.steps]
    assert "halve-max-length" not in [s.remedy_id for s in p.steps]


def test_conflicting_remedies_are_never_combined(scenario):
    only_quant = [r for r in REMEDIES if r.id.startswith("load-in")]
    big = dict(
        scenario,
        model_name="llama-2-70b",
        gpu_name="a100-80gb",
        batch_size=1,
        max_length=256,
        gradient_checkpointing=True,
        attn_implementation="sdpa",
    )
    p = plan(big, only_quant)
    ids = [s.remedy_id for s in p.steps]
    assert not {"load-in-4bit", "load-in-8bit"} <= set(ids)
    assert p.fits and ids == ["load-in-4bit"]


def test_same_fact_different_values_conflict(scenario):
    a = remedy("opt-a", {"optimizer": "adafactor"})
    b = remedy("opt-b", {"optimizer": "adamw_bnb_8bit"})
    p = plan(scenario, [a, b, *REMEDIES[:3]])
    ids = [s.remedy_id for s in p.steps]
    assert not {"opt-a", "opt-b"} <= set(ids)


def test_plan_that_cannot_fit_says_so():
    huge = {"model_name": "llama-3.1-405b", "gpu_name": "t4", "torch_dtype": "bf16", "batch_size": 1, "max_length": 128}
    p = plan(huge, REMEDIES)
    assert not p.fits and p.after.device_total.expected > p.target_bytes


def test_nothing_needed_when_it_fits(scenario):
    small = dict(scenario, model_name="qwen2.5-0.5b", batch_size=1, max_length=256)
    p = plan(small, REMEDIES)
    assert p.fits and p.steps == ()


def test_headroom_is_validated(scenario):
    with pytest.raises(ValueError):
        plan(scenario, REMEDIES, headroom=1.5)


@pytest.mark.parametrize("variable", ["max_length", "batch_size", "lora_r"])
def test_fit_finds_the_largest_value(scenario, variable):
    facts = dict(scenario, gradient_checkpointing=True, attn_implementation="sdpa", batch_size=1)
    result = fit(facts, variable, headroom=0.05)
    assert result.value is not None and result.value >= 1
    assert result.estimate.device_total.expected <= result.target_bytes
    if result.value < result.upper:
        from triage.estimate import estimate

        over = estimate(dict(facts, **{variable: result.value + 1}))
        assert over.device_total.expected > result.target_bytes


def test_fit_reports_when_nothing_fits(scenario):
    result = fit(dict(scenario, model_name="llama-2-70b"), "batch_size")
    assert result.value is None and result.estimate.device_total.expected > 23 * GiB
