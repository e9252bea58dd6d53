"""Remedies as changes to the run, and the memory each change saves on the user's run.

A remedy's ``changes`` (``triage.kb.models.Remedy.changes``) is a mapping fact -> new value.
Its saving is ``estimate(before) - estimate(after)`` where *after* applies the changes to the
facts. Savings are measured on the expected device total (allocated peak plus the overhead
band), so a change to fragmentation (``expandable_segments``) shows too. A negative saving
means the change costs memory.

Supported changes (fact: values) - anything else is reported in ``Saving.unmodeled``:

* ``gradient_checkpointing``: true/false
* ``attn_implementation``: eager, sdpa, flash_attention_2, xformers
* ``batch_size``: N or ``"half"``; ``grad_accum``: N, or ``"scaled"`` to keep the effective
  batch (batch_size x grad_accum) of the run before the change
* ``max_length``: N or ``"half"``; ``max_sample_tokens``: N; ``truncation``: true; ``packing``:
  true/false; ``padding``: max_length, longest, none
* ``quantization``: none, 8bit, 4bit (4bit turns LoRA/full into QLoRA); ``double_quant``;
  ``prepare_kbit_training``: true/false; ``finetune_method``: full, lora, qlora, freeze
* ``optimizer``: any HF ``optim`` name (adamw_torch, adamw_torch_fused, adamw_bnb_8bit,
  paged_adamw_8bit, paged_adamw_32bit, adafactor, sgd, lion_8bit, ...);
  ``optimizer_in_backward``: true
* ``torch_dtype``: fp32, fp16, bf16; ``mixed_precision``: no, fp16, bf16
* ``lora_r``: N or ``"half"``; ``lora_target_modules``: names or all-linear; ``lora_dropout``;
  ``modules_to_save``: names or ``none``
* ``fused_loss``: true (chunked / fused cross-entropy: Liger, Cut Cross-Entropy, torchtune)
* ``eval_accumulation_steps``: N; ``eval_batch_size``: N; ``preprocess_logits``: true;
  ``compute_metrics``: false; ``max_new_tokens``: N; ``num_beams``: N
* ``distributed``: none, ddp, deepspeed, fsdp, model_parallel; ``zero_stage``: 0-3 (implies
  DeepSpeed on a single-process run); ``offload``: true (implies ZeRO-Offload, stage 2, when
  nothing is distributed); ``gpu_count``: N
* ``expandable_segments``: true (fragmentation band)
* ``use_cache``: false (saves nothing in training: the cache aliases tensors autograd keeps)
* ``gpu_name`` / ``gpu_memory_bytes``: a bigger GPU (changes capacity, not the estimate)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from triage.estimate.architecture import Architecture
from triage.estimate.defaults import DEFAULTS, given_or_default
from triage.estimate.estimator import Estimate, estimate
from triage.estimate.run import as_int, fact_values

if TYPE_CHECKING:
    from triage.facts import FactSet

#: Facts a change may set that the estimator models.
MODELED = frozenset(
    {
        "gradient_checkpointing",
        "gc_active",
        "attn_implementation",
        "batch_size",
        "grad_accum",
        "max_length",
        "max_sample_tokens",
        "truncation",
        "packing",
        "padding",
        "quantization",
        "double_quant",
        "prepare_kbit_training",
        "finetune_method",
        "optimizer",
        "optimizer_in_backward",
        "torch_dtype",
        "mixed_precision",
        "lora_r",
        "lora_target_modules",
        "lora_dropout",
        "modules_to_save",
        "fused_loss",
        "eval_accumulation_steps",
        "eval_batch_size",
        "preprocess_logits",
        "compute_metrics",
        "max_new_tokens",
        "num_beams",
        "eval_samples",
        "distributed",
        "zero_stage",
        "offload",
        "gpu_count",
        "expandable_segments",
        "use_cache",
        "gpu_name",
        "gpu_memory_bytes",
        "other_process_bytes",
        "model_name",
        "model_params_b",
        "trainable_params_b",
        "phase",
        "transformers_version",
        "hidden_size",
        "num_layers",
        "num_attention_heads",
        "num_kv_heads",
        "intermediate_size",
        "vocab_size",
    }
)


class ChangeError(ValueError):
    """A change value the estimator cannot apply (e.g. batch_size: "lots")."""


_KEEP_EFFECTIVE = ("scaled", "scale", "keep_effective", "keep")
"""``grad_accum`` values that keep the effective batch (batch_size x grad_accum) of the run before."""


def _half(value: Any, name: str) -> int:
    return max(1, as_int(value, name, 1) // 2)


def _keeps_effective_batch(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower() in _KEEP_EFFECTIVE


def _change(before: Mapping[str, Any], after: dict[str, Any], name: str, new: Any) -> None:
    """Apply one change to ``after`` (relative values are read against ``before`` or the defaults)."""
    low = str(new).strip().lower() if isinstance(new, str) else None
    if name in ("batch_size", "max_length", "lora_r") and low == "half":
        after[name] = _half(given_or_default(before, name), name)
    elif name == "grad_accum" and _keeps_effective_batch(new):
        return  # resolved once the new batch size is known
    elif name == "modules_to_save" and low in ("none", "", "[]", "null"):
        after.pop("modules_to_save", None)
    elif new is None:
        after.pop(name, None)
    else:
        after[name] = new


def _scaled_accum(before: Mapping[str, Any], after: Mapping[str, Any]) -> int:
    """The accumulation that keeps the effective batch of ``before`` at ``after``'s batch size."""
    old_b = as_int(given_or_default(before, "batch_size"), "batch_size", 1)
    old_a = as_int(given_or_default(before, "grad_accum"), "grad_accum", 1)
    new_b = as_int(after.get("batch_size", old_b), "batch_size", 1)
    return max(1, (old_b * old_a + new_b - 1) // new_b)


def _implied(after: dict[str, Any], changes: Mapping[str, Any]) -> None:
    """What the changed facts imply for others (4-bit LoRA is QLoRA, a ZeRO stage means DeepSpeed, ...)."""
    if "quantization" in changes:
        quant = str(given_or_default(after, "quantization")).lower()
        method = str(after.get("finetune_method", ""))
        if quant == "4bit" and str(given_or_default(after, "finetune_method")) in ("lora", "full"):
            after["finetune_method"] = "qlora"
        elif (quant == "8bit" and method in ("full", "qlora")) or (quant == "none" and method == "qlora"):
            after["finetune_method"] = "lora"
    if "gradient_checkpointing" in changes:
        after.pop("gc_active", None)
    unsharded = str(given_or_default(after, "distributed")) in ("none", "ddp")
    one_gpu = str(given_or_default(after, "distributed")) == "none" and not after.get("gpu_count")
    if ("zero_stage" in changes or "offload" in changes) and unsharded:
        after["distributed"] = "deepspeed"
        if one_gpu and "zero_stage" not in changes and "gpu_count" not in changes:
            # ZeRO-Offload alone runs on the one GPU the run has; only sharding needs more (assumed, and said)
            after["gpu_count"] = 1


def apply_changes(values: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """The facts (as ``{name: value}``) after a remedy's changes."""
    before = dict(values)
    after = dict(values)
    for name, new in changes.items():
        _change(before, after, name, new)
    if _keeps_effective_batch(changes.get("grad_accum")):
        after["grad_accum"] = _scaled_accum(before, after)
    _implied(after, changes)
    return after


#: Changed facts read back from the sized run (so "half" reads 2048 -> 1024 and "scaled" 1 -> 4).
RUN_FIELDS = {
    "max_length": "seq",
    "batch_size": "batch",
    "grad_accum": "grad_accum",
    "gradient_checkpointing": "gc",
    "gc_active": "gc",
    "attn_implementation": "attn",
    "optimizer": "optimizer",
    "quantization": "quantization",
    "double_quant": "double_quant",
    "finetune_method": "method",
    "lora_r": "lora_r",
    "lora_dropout": "lora_dropout",
    "prepare_kbit_training": "prepare_kbit",
    "fused_loss": "fused_loss",
    "optimizer_in_backward": "optimizer_in_backward",
    "torch_dtype": "weight_dtype",
    "eval_batch_size": "eval_batch",
    "eval_accumulation_steps": "eval_accumulation_steps",
    "compute_metrics": "compute_metrics",
    "preprocess_logits": "preprocess_logits",
    "max_new_tokens": "max_new_tokens",
    "num_beams": "num_beams",
    "distributed": "distributed",
    "zero_stage": "zero_stage",
    "offload": "offload",
    "gpu_count": "gpu_count",
    "expandable_segments": "expandable_segments",
}


@dataclass(frozen=True)
class Target:
    """One setting a change moves: its value on the user's run and after the change."""

    fact: str
    before: Any
    after: Any
    assumed: bool = False
    """The new value is the estimator's assumption, not the change's: ``gpu_count`` 1 -> 2 when a one-GPU
    run is sharded and the GPU count is not known (the label says so, and ``--fact gpu_count=N`` changes it)."""


def _run_value(est: Estimate, fact: str, values: Mapping[str, Any]) -> Any:
    run = est.run
    if fact in ("padding", "packing", "truncation", "max_sample_tokens"):
        return values.get(fact, DEFAULTS[fact].value if fact in DEFAULTS else "?")
    if fact in ("gpu_name", "gpu_memory_bytes"):
        return run.gpu.name if run.gpu is not None and fact == "gpu_name" else est.capacity_bytes
    if fact == "lora_target_modules":
        return ",".join(run.lora_targets)
    if fact == "modules_to_save":
        return ",".join(run.modules_to_save) or "none"
    name = RUN_FIELDS.get(fact)
    return getattr(run, name) if name is not None else values.get(fact)


@dataclass(frozen=True)
class Saving:
    """What one set of changes does to the estimate."""

    bytes: int
    """Expected device total before minus after (negative: the change costs memory)."""
    before: Estimate
    after: Estimate
    unmodeled: tuple[str, ...]
    """Changed facts the estimator does not model (their effect is not in ``bytes``)."""
    targets: tuple[Target, ...] = ()
    """Each changed setting with its value before and after, as the estimator sized them
    (relative changes resolved: ``max_length: half`` on a 2048 run reads 2048 -> 1024), plus the
    settings the change implies (``grad_accum`` when the micro-batch shrinks, ``finetune_method``
    when a LoRA base goes 4-bit, ``gpu_count`` when a one-GPU run is sharded over the assumed GPUs)."""
    unsized: str | None = None
    """Why the saving cannot be sized from what is known (then ``bytes`` is 0 and means nothing):
    ``"length_distribution"`` when it depends on how long the samples are."""

    @property
    def allocated_bytes(self) -> int:
        """The saving on the allocated peak alone."""
        return self.before.peak_bytes - self.after.peak_bytes


def targets(
    before: Estimate, after: Estimate, changes: Mapping[str, Any], values: Mapping[str, Any]
) -> tuple[Target, ...]:
    """The settings ``changes`` move, read from both sized runs (unchanged ones left out)."""
    after_values = apply_changes(values, changes)
    names = list(changes)
    for implied in ("grad_accum", "finetune_method", "distributed", "gpu_count"):
        if implied not in names:
            names.append(implied)
    assumed_after = {a.fact for a in after.assumptions} - set(changes)
    out = []
    for fact in names:
        if fact == "gc_active" and "gradient_checkpointing" in names:
            continue
        old, new = _run_value(before, fact, values), _run_value(after, fact, after_values)
        if old != new:
            out.append(Target(fact, old, new, fact in assumed_after))
    return tuple(out)


def saving_detail(
    facts: FactSet | Mapping[str, Any],
    changes: Mapping[str, Any],
    arch: Architecture | None = None,
    before: Estimate | None = None,
) -> Saving:
    """:class:`Saving` of ``changes`` on the run ``facts`` describe."""
    values = fact_values(facts)
    first = before or estimate(values, arch)
    try:
        second = estimate(apply_changes(values, changes), arch)
    except ValueError as exc:
        raise ChangeError(f"cannot apply {dict(changes)}: {exc}") from None
    unmodeled = tuple(sorted(set(changes) - MODELED))
    moved = targets(first, second, changes, values)
    unsized = _unsized(values, changes)
    saved = 0 if unsized else first.device_total.expected - second.device_total.expected
    return Saving(saved, first, second, unmodeled, moved, unsized)


#: ``padding`` values that pad each batch to its own longest sample.
_DYNAMIC = ("longest", "dynamic", "true")


def _unsized(values: Mapping[str, Any], changes: Mapping[str, Any]) -> str | None:
    """Why a change's saving depends on something not known (None when it can be sized).

    Dynamic padding lowers the peak only when no batch reaches max_length: what it saves is
    set by the longest sample, and only when batches were padded to max_length before. The
    estimator already sizes a batch of unknown padding by its longest sample, so without
    both facts the difference it would compute is an artefact, not a saving.
    """
    if str(changes.get("padding", "")).lower() not in _DYNAMIC:
        return None
    if str(values.get("padding", "")).lower() != "max_length" or not values.get("max_sample_tokens"):
        return "length_distribution"
    return None


def saving(facts: FactSet | Mapping[str, Any], changes: Mapping[str, Any], arch: Architecture | None = None) -> int:
    """Bytes that ``changes`` save on the run (expected device total before minus after)."""
    return saving_detail(facts, changes, arch).bytes
