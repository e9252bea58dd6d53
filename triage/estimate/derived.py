"""Derived facts from the estimate (Source kind "derived"): what the diagnosis reasons with.

* ``weights_exceed_gpu``: the weights alone are larger than the GPU's capacity (the share one GPU holds,
  under ZeRO-3, FSDP or a device map);
* ``whole_weights_exceed_gpu``: all the model's weights are larger than one GPU's capacity, whatever the
  run shards (what a process that loads the whole model, such as a prediction script, puts on its GPU);
* ``weights_gpu_share``: the weights over the GPU's capacity (0.95: the weights fit, leaving 5 % for
  everything else);
* ``state_gpu_share``: the weights, gradients and optimizer states alone, spread evenly over every GPU of the
  run (as ZeRO-3 would spread them), over a GPU's capacity: from 1.0 no sharding stage makes the run fit, only a
  smaller state (LoRA, an 8-bit or paged optimizer), offloading or more GPUs;
* ``does_not_fit_at_batch_1``: even per-device batch 1 (accumulation keeping the effective
  batch) exceeds the GPU;
* ``largest_component``: the biggest component at the peak;
* ``estimated_peak_bytes``: the estimated allocated peak (``max_memory_allocated``);
* ``observed_bytes_per_param`` (:func:`seen_per_param`, no estimate needed): the memory the user saw in use
  over the model's parameters, about 2 for 16-bit weights and 4 for float32.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from triage.estimate.architecture import Architecture, ArchitectureError
from triage.estimate.changes import ChangeError, apply_changes
from triage.estimate.components.distributed import sharding
from triage.estimate.components.weights import weights
from triage.estimate.estimator import Estimate, GiB, estimate
from triage.estimate.optimizers import OptimizerError
from triage.estimate.run import ModelUnknown, RunError, fact_values

if TYPE_CHECKING:
    from triage.facts import Fact, FactSet

#: Estimator errors that mean "not enough is known", never a crash.
NOT_ESTIMABLE = (ModelUnknown, RunError, ArchitectureError, OptimizerError, ChangeError)


def derived_facts(
    facts: FactSet | Mapping[str, Any], arch: Architecture | None = None, est: Estimate | None = None
) -> list[Fact]:
    """Facts the estimate implies; empty when the model is unknown (nothing to size yet)."""
    from triage.facts import Fact, Source

    values = fact_values(facts)
    try:
        est = est or estimate(values, arch)
    except ModelUnknown:
        return []

    def fact(name: str, value: bool | int | float | str, excerpt: str) -> Fact:
        return Fact(name, value, Source("derived", excerpt=excerpt))

    out = [
        fact(
            "estimated_peak_bytes",
            est.peak_bytes,
            f"estimated allocated peak {est.peak_bytes / GiB:.2f} GiB ({est.peak.detail})",
        ),
        fact(
            "largest_component",
            est.largest_component,
            f"largest component at the peak: {est.largest_component} "
            f"{est.components.get(est.largest_component, 0) / GiB:.2f} GiB",
        ),
    ]
    cap = est.capacity_bytes
    if cap is not None:
        w = est.sizes["weights"].bytes
        out.append(fact("weights_exceed_gpu", w > cap, f"weights {w / GiB:.2f} GiB vs GPU {cap / GiB:.2f} GiB"))
        whole = weights(est.run).bytes
        out.append(
            fact(
                "whole_weights_exceed_gpu",
                whole > cap,
                f"all the weights {whole / GiB:.2f} GiB vs one GPU {cap / GiB:.2f} GiB",
            )
        )
        out.append(
            fact(
                "weights_gpu_share",
                round(w / cap, 2),
                f"weights {w / GiB:.2f} GiB ({_stored_as(est)}) are {w / cap:.0%} of the GPU's usable "
                f"{cap / GiB:.2f} GiB",
            )
        )
        state = _spread_state(values, arch, est)
        if state is not None:
            need, gpus, mixed = state
            spread = f"spread over {gpus} GPUs as ZeRO-3 would, " if gpus > 1 else ""
            how = " (in mixed precision: fp32 weights and optimizer states)" if mixed else ""
            out.append(
                fact(
                    "state_gpu_share",
                    round(need / cap, 2),
                    f"weights, gradients and optimizer states{how} {spread}{need / GiB:.2f} GiB a GPU, "
                    f"{need / cap:.0%} of its usable {cap / GiB:.2f} GiB",
                )
            )
        one = (
            est
            if est.run.batch == 1
            else estimate(apply_changes(values, {"batch_size": 1, "grad_accum": "scaled"}), arch)
        )
        out.append(
            fact(
                "does_not_fit_at_batch_1",
                one.device_total.expected > cap,
                f"at batch 1: expected {one.device_total.expected / GiB:.2f} GiB on the device vs {cap / GiB:.2f} GiB",
            )
        )
    return out


#: The components of the model state: what the run keeps whatever its batch and sequence length.
_STATE = ("weights", "lora_adapters", "modules_to_save", "gradients", "optimizer_state", "master_weights")


def _spread_state(values: Mapping[str, Any], arch: Architecture | None, est: Estimate) -> tuple[int, int, bool] | None:
    """The model state one GPU holds when spread as thinly as the run's GPUs allow (ZeRO-3 over all of them),
    over how many GPUs, and whether it was sized in mixed precision for want of a dtype; None when the spread
    run cannot be estimated.

    A full fine-tune whose weights' dtype is not stated is sized in mixed precision (fp32 weights or master
    copy and AdamW states, 16 bytes per parameter: ZeRO, arXiv 1910.02054), how Trainer, DeepSpeed and
    LLaMA-Factory train by default; the estimator's own assumption of 16-bit weights would also make the
    states 16-bit, half of that.
    """
    shards = sharding(est.run)
    changes: dict[str, Any] = {}
    if shards.gpus > 1 and shards.params < shards.gpus:
        changes.update(distributed="deepspeed", zero_stage=3)
    if est.run.method == "full" and any(a.fact == "torch_dtype" for a in est.run.assumptions):
        changes.update(torch_dtype="fp32", mixed_precision="bf16")
    spread = est
    if changes:
        try:
            spread = estimate(apply_changes(values, changes), arch)
        except NOT_ESTIMABLE:
            return None
    return sum(spread.sizes[n].bytes for n in _STATE if n in spread.sizes), shards.gpus, "torch_dtype" in changes


def _stored_as(est: Estimate) -> str:
    """How the estimate stores the weights: "bf16", "4bit"."""
    return est.run.weight_dtype if est.run.quantization == "none" else est.run.quantization


def seen_per_param(facts: FactSet | Mapping[str, Any]) -> list[Fact]:
    """Memory seen in use per parameter, from the user's own figures; empty when either is missing.

    A model of 1B parameters or more only: below that the CUDA context (~0.5 GiB) dominates the figure.
    """
    from triage.facts import Fact, Source

    values = fact_values(facts)
    used, params = values.get("used_memory_bytes"), values.get("model_params_b")
    if not isinstance(used, int) or not isinstance(params, int | float) or params < 1:
        return []
    ratio = used / (params * 1e9)
    excerpt = f"{used / GiB:.1f} GiB seen in use for {params:g}B parameters: {ratio:.1f} bytes per parameter"
    return [Fact("observed_bytes_per_param", round(ratio, 2), Source("derived", excerpt=excerpt))]
