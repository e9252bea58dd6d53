"""Quantify: a training-memory estimator, each remedy's saving on the user's run, and a plan that fits.

Public API (all pure Python, offline, no torch)::

    estimate(facts, arch=None) -> Estimate
        facts: a FactSet, or a mapping fact name -> value (the knowledge/facts vocabulary).
        Estimate.peak_bytes (allocated peak), .peak_phase ("backward" | "optimizer" |
        "evaluation" | "generation"), .peak.detail, .components {name: bytes at the peak},
        .sizes {name: Component(bytes, formula)}, .device_total Band(low, expected, high, items),
        .capacity_bytes, .fits, .assumptions [Assumption(fact, value, reason)], .to_json().
    saving(facts, changes, arch=None) -> int
        bytes a remedy's ``changes`` (fact -> value) save: expected device total before - after.
        saving_detail(...) -> Saving(bytes, before, after, unmodeled) for the whole story.
    derived_facts(facts, arch=None) -> list[Fact]
        weights_exceed_gpu, does_not_fit_at_batch_1, largest_component, estimated_peak_bytes
        (Source kind "derived"); empty when the model is unknown.
    seen_per_param(facts) -> list[Fact]
        observed_bytes_per_param: the memory the user saw in use over the parameters (no estimate needed).
    plan(facts, remedies, headroom=0.05, arch=None) -> Plan
        cheapest conflict-free combination of the (already applicable) Remedy models that brings
        the expected device total under capacity x (1 - headroom).
    fit(facts, variable, headroom=0.05) -> FitResult
        largest max_length / batch_size / lora_r that fits.
    fingerprint(facts, estimate=None) -> Fingerprint | None
        which predicted tensor an OOM's ``oom_requested_bytes`` most likely was.

Components (names in ``Estimate.components``): weights, lora_adapters, modules_to_save,
gradients, optimizer_state, optimizer_state_paged (outside PyTorch's counters, not in the
peak), master_weights, optimizer_temps, activations, attention_scores, recompute, logits_loss,
attention_mask, autocast_copies, causal_mask_buffer, comm_buffers, tied_embedding_grads, eval_forward, eval_logits,
kv_cache, generation_prefill. The CUDA context, cuBLAS workspace, allocator fragmentation,
NCCL and other processes are the separate ``device_total`` band.
"""

from __future__ import annotations

from triage.estimate.architecture import Architecture, ArchitectureError, find_architecture, load_hf_config, presets
from triage.estimate.changes import ChangeError, Saving, Target, apply_changes, saving, saving_detail
from triage.estimate.derived import NOT_ESTIMABLE, derived_facts, seen_per_param
from triage.estimate.estimator import Band, BandItem, Component, Estimate, Phase, estimate, estimate_run
from triage.estimate.fingerprint import Candidate, Fingerprint, fingerprint
from triage.estimate.fit import FitResult, fit
from triage.estimate.optimizers import OptimizerError, optimizer_spec
from triage.estimate.planner import DEFAULT_HEADROOM, Plan, PlanStep, plan, remedy_cost
from triage.estimate.run import Assumption, ModelUnknown, Run, RunError, run_from_facts
from triage.hardware.gpus import Gpu, find_gpu, gpu_presets

__all__ = [
    "DEFAULT_HEADROOM",
    "NOT_ESTIMABLE",
    "Architecture",
    "ArchitectureError",
    "Assumption",
    "Band",
    "BandItem",
    "Candidate",
    "ChangeError",
    "Component",
    "Estimate",
    "Fingerprint",
    "FitResult",
    "Gpu",
    "ModelUnknown",
    "OptimizerError",
    "Phase",
    "Plan",
    "PlanStep",
    "Run",
    "RunError",
    "Saving",
    "Target",
    "apply_changes",
    "derived_facts",
    "estimate",
    "estimate_run",
    "find_architecture",
    "find_gpu",
    "fingerprint",
    "fit",
    "gpu_presets",
    "load_hf_config",
    "optimizer_spec",
    "plan",
    "presets",
    "remedy_cost",
    "run_from_facts",
    "saving",
    "saving_detail",
    "seen_per_param",
]
