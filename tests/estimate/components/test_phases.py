from triage.estimate import estimate

from .conftest import BASE


def phases(**facts):
    return estimate(dict(BASE, **facts))


def test_lora_peaks_at_the_start_of_backward_and_a_full_finetune_after_it():
    assert phases().peak.detail.startswith("start of backward")
    assert phases(finetune_method="full", max_length=512).peak.detail.startswith("end of backward")
    assert phases(finetune_method="full", max_length=512, optimizer="adamw_torch").peak_phase == "optimizer"


def test_checkpointing_adds_the_moment_one_layer_is_recomputed():
    details = [p.detail for p in phases(gradient_checkpointing=True).phases]
    assert any(d.startswith("inside backward") for d in details)
    assert not any(d.startswith("inside backward") for d in (p.detail for p in phases().phases))


def test_a_step_fused_into_backward_has_no_optimizer_phase():
    assert "optimizer" not in {p.name for p in phases(optimizer_in_backward=True).phases}


def test_evaluation_and_generation_runs_peak_in_their_own_phase():
    assert phases(phase="evaluation").peak_phase == "evaluation"
    assert phases(phase="generation").peak_phase == "generation"


def test_paged_optimizer_state_is_never_live_in_a_phase():
    e = phases(optimizer="paged_adamw_32bit")
    assert all(p.components["optimizer_state"] == 0 for p in e.phases)
