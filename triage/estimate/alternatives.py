"""The estimate under the other value of each setting it had to assume, when that moves it by more than 10 %.

The estimator fills every setting the facts leave out (:class:`~triage.estimate.run.Assumption`).
Most defaults are the libraries' own and move the figure little; a few stand for a choice the
user made that nothing in their files shows, and the other choice changes the answer:

* ``finetune_method``: no adapter file, no LoRA setting and no method stated is sized as LoRA;
  a full fine-tune adds gradients and optimizer state for every parameter (40-76 % more on the
  runs of issue #13);
* ``prepare_kbit_training``: every 4-bit run is sized as calling peft's
  ``prepare_model_for_kbit_training`` (which upcasts the non-quantized parameters to fp32 and
  turns checkpointing on); a script that does not call it keeps 16-bit norms and no checkpointing;
* ``gradient_checkpointing``: the Trainer's default (off), or on where the recipe turns it on;
* ``torch_dtype``: sized as 16-bit, but ``from_pretrained`` without ``torch_dtype`` loads fp32
  in transformers < 5, doubling the weights;
* ``attn_implementation``: SDPA when the transformers version is unknown; before 4.36 it is eager;
* ``gpu_count``: a DeepSpeed/FSDP run with the GPU count not given is sized on 2 GPUs; on a node of
  8, ZeRO/FSDP sharding divides the sharded state by 8 instead.

:func:`alternatives` sizes the run under each other value and keeps those that move the expected
device total by more than :data:`THRESHOLD`; every face shows both figures and the interview asks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from triage.estimate.architecture import Architecture
from triage.estimate.changes import apply_changes
from triage.estimate.estimator import Estimate, estimate
from triage.estimate.run import RunError, fact_values

if TYPE_CHECKING:
    from triage.facts import FactSet

#: A relative change of the expected device total above this is shown with both figures.
THRESHOLD = 0.10


@dataclass(frozen=True)
class Alternative:
    """The run sized with another value of a setting the estimate assumed."""

    fact: str
    assumed: Any
    """The value the estimate used."""
    value: Any
    """The other value."""
    estimate: Estimate
    """The run with ``value`` instead of ``assumed``."""
    change: float
    """Relative change of the expected device total: (alternative - assumed) / assumed."""

    def to_json(self) -> dict[str, Any]:
        band = self.estimate.device_total
        return {
            "fact": self.fact,
            "assumed": self.assumed,
            "value": self.value,
            "device_total_expected_gib": round(band.expected / 1024**3, 3),
            "verdict": self.estimate.verdict,
            "change": round(self.change, 3),
        }


def _others(fact: str, assumed: Any, values: Mapping[str, Any], est: Estimate) -> list[Any]:
    """The other values worth sizing for an assumed ``fact`` (empty when the assumption is safe)."""
    run = est.run
    if fact == "finetune_method":
        lora_said = any(values.get(k) for k in ("lora_r", "lora_target_modules", "lora_dropout", "modules_to_save"))
        return ["full"] if assumed == "lora" and run.quantization == "none" and not lora_said else []
    if fact == "prepare_kbit_training":
        return [not assumed] if isinstance(assumed, bool) else []
    if fact == "gradient_checkpointing":
        return [not assumed] if isinstance(assumed, bool) else []
    if fact == "torch_dtype":
        tf = run.transformers_version
        return ["fp32"] if assumed in ("bf16", "fp16") and (tf is None or tf.major < 5) else []
    if fact == "attn_implementation":
        return ["eager"] if assumed != "eager" and run.transformers_version is None else []
    if fact == "gpu_count":
        return [8] if assumed == 2 else []
    return []


def alternatives(
    facts: FactSet | Mapping[str, Any],
    est: Estimate | None = None,
    arch: Architecture | None = None,
    threshold: float = THRESHOLD,
) -> list[Alternative]:
    """Each assumed setting whose other value moves the expected device total by more than ``threshold``."""
    values = fact_values(facts)
    est = est or estimate(values, arch)
    base = est.device_total.expected
    out: list[Alternative] = []
    seen: set[str] = set()
    for a in est.assumptions:
        if a.fact in seen or a.fact in values:
            continue
        seen.add(a.fact)
        for other in _others(a.fact, a.value, values, est):
            try:
                alt = estimate(apply_changes(values, {a.fact: other}), arch)
            except (RunError, ValueError):
                continue
            change = (alt.device_total.expected - base) / base if base else 0.0
            if abs(change) > threshold:
                out.append(Alternative(a.fact, a.value, other, alt, change))
    out.sort(key=lambda x: -abs(x.change))
    return out


__all__ = ["THRESHOLD", "Alternative", "alternatives"]
