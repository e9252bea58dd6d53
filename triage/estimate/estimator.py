"""The training-memory estimator: allocated bytes, component by component, phase by phase.

:func:`estimate_run` only composes the components; each is sized by its own module under
:mod:`triage.estimate.components`, whose docstring gives the formula and its source
(shared/reference/memory-formulas.md; the activation terms follow Korthikanti et al. 2022,
arXiv 2205.05198, adapted to Llama-class decoders tensor by tensor, and are checked against the
fake-tensor measurements in shared/reference/exact-measurement.md: transformers 5, peft 0.21,
torch 2.13).

Phases of one training step (the peak is the largest; :mod:`.components.phases`):

* ``backward`` at its *start*: weights, optimizer state, every saved activation and the loss
  block (fp32 logits, log-softmax and their gradients). LoRA/QLoRA runs peak here.
* ``backward`` at its *end*: weights, optimizer state and all gradients (full fine-tuning).
* ``optimizer``: weights, state, gradients and the step's temporaries (foreach AdamW makes a
  full-size copy).
* ``evaluation`` and ``generation`` when the run is in (or includes) them.

The CUDA context, cuBLAS workspaces, NCCL buffers and allocator fragmentation are *not* in
the components: they form the separate :class:`Band` ``device_total`` (low/expected/high,
:mod:`.components.overhead`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from triage.estimate.architecture import Architecture
from triage.estimate.components.activations import activations, layer_saving, recompute
from triage.estimate.components.attention import attention_mask, attention_scores, causal_mask_buffer
from triage.estimate.components.context import context
from triage.estimate.components.distributed import comm_buffers
from triage.estimate.components.generation import eval_forward, eval_logits, generation_prefill, kv_cache
from triage.estimate.components.logits import logits_loss
from triage.estimate.components.optimizer_memory import master_weights, optimizer_state, optimizer_temps
from triage.estimate.components.overhead import device_band
from triage.estimate.components.phases import evaluation_phase, generation_phase, peak_phase, training_phases
from triage.estimate.components.tensors import large_tensors
from triage.estimate.components.trainable import (
    gradients,
    lora_adapters,
    modules_to_save,
    tied_embedding_grads,
    unknown_targets,
)
from triage.estimate.components.weights import autocast_copies, live_weights, weights
from triage.estimate.records import Band, BandItem, Component, Estimate, GiB, MiB, Phase
from triage.estimate.run import BYTES, Run, run_from_facts

if TYPE_CHECKING:
    from triage.facts import FactSet


def _notes(run: Run) -> list[tuple[str, str]]:
    """What the estimate ignores or cannot honour, in English and Chinese."""
    notes = []
    unknown = unknown_targets(run)
    if run.lora and unknown:
        names = ", ".join(sorted(unknown))
        notes.append(
            (
                f"lora_target_modules {names} are not modules of {run.arch.name}; ignored",
                f"lora_target_modules 中的 {names} 不是 {run.arch.name} 的模块；已忽略",
            )
        )
    if run.optimizer_in_backward and run.grad_accum > 1:
        notes.append(
            (
                "optimizer-in-backward cannot be combined with gradient accumulation",
                "optimizer-in-backward 不能和梯度累积一起用",
            )
        )
    return notes


def estimate_run(run: Run) -> Estimate:
    """Size every component of ``run`` and find the peak."""
    sizes: dict[str, Component] = {}

    def add(*components: Component | None) -> None:
        sizes.update((c.name, c) for c in components if c is not None)

    loaded = weights(run)
    ctx = context(run)
    add(loaded, lora_adapters(ctx), modules_to_save(run), gradients(ctx))
    add(optimizer_state(ctx), master_weights(ctx), optimizer_temps(ctx))
    add(live_weights(run, ctx.shards, loaded))  # keeps its place: the weights one GPU holds
    saving = layer_saving(run)
    add(activations(run, saving), attention_scores(run, saving), logits_loss(run))
    add(attention_mask(run), causal_mask_buffer(run), autocast_copies(run), comm_buffers(ctx))
    add(recompute(run, saving), tied_embedding_grads(ctx))
    phases = training_phases(ctx, sizes)
    if run.phase == "evaluation":
        add(eval_logits(run), eval_forward(run))
        phases.append(evaluation_phase(sizes))
    if run.phase == "generation":
        add(kv_cache(run), generation_prefill(run))
        phases.append(generation_phase(sizes))
    peak = peak_phase(run, phases)
    band = device_band(run, peak.total, sizes["weights"].bytes)
    notes = _notes(run)
    return Estimate(
        run=run,
        sizes=sizes,
        phases=tuple(phases),
        peak=peak,
        device_total=band,
        capacity_bytes=run.capacity_bytes,
        fits=None if run.capacity_bytes is None else band.expected <= run.capacity_bytes,
        tensors=large_tensors(ctx, sizes),
        notes=tuple(en for en, _ in notes),
        notes_zh=tuple(zh for _, zh in notes),
    )


def estimate(facts: FactSet | Mapping[str, Any], arch: Architecture | None = None) -> Estimate:
    """Estimate the run the facts describe (``arch`` overrides the model, e.g. from a config.json)."""
    return estimate_run(run_from_facts(facts, arch))


__all__ = [
    "BYTES",
    "Band",
    "BandItem",
    "Component",
    "Estimate",
    "GiB",
    "MiB",
    "Phase",
    "estimate",
    "estimate_run",
]
