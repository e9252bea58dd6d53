"""Single large tensors the run allocates, by name, for matching an OOM's requested size
(:mod:`triage.estimate.fingerprint`).

Shapes: the logits (b·s·V, fp32 in the loss and its shifted copy), one MLP activation (b·s·f),
the fp32 hidden states, the eager attention scores (b·heads·s²), the largest optimizer-state
tensor and gradient, foreach AdamW's temporary (shared/reference/exact-measurement.md), and in
evaluation and generation the per-step logits and KV-cache growth.
"""

from __future__ import annotations

from collections.abc import Mapping

from triage.estimate.components.context import Context
from triage.estimate.components.generation import prefill_logits_bytes, sequences
from triage.estimate.components.optimizer_memory import state_element_bytes
from triage.estimate.records import Component


def large_tensors(ctx: Context, sizes: Mapping[str, Component]) -> dict[str, int]:
    """Bytes of each single large tensor the run allocates."""
    run, tr, spec = ctx.run, ctx.trainable, ctx.spec
    a, e, tokens = run.arch, run.e, run.tokens
    temps = sizes["optimizer_temps"].bytes
    tensors: dict[str, int] = {
        "logits_fp32": tokens * a.vocab * 4,
        "logits_fp32_shifted": run.batch * max(run.seq - 1, 1) * a.vocab * 4,
        "logits": tokens * a.vocab * e,
        "mlp_activation": tokens * a.intermediate * e,
        "mlp_activation_fp32": tokens * a.intermediate * 4,
        "hidden_states_fp32": tokens * a.hidden * 4,
        "optimizer_state_tensor": int(tr.largest * (state_element_bytes(ctx) if spec.states else 0)),
        "largest_gradient": tr.largest * tr.element_bytes,
        "foreach_temporary": temps if spec.temps == "foreach" else 0,
    }
    if run.attn == "eager" or run.phase != "training":
        tensors["attention_scores_fp32"] = run.batch * a.heads * run.seq**2 * 4
        tensors["attention_scores"] = run.batch * a.heads * run.seq**2 * e
    if run.phase == "evaluation":
        tensors["eval_logits_step"] = run.eval_batch * run.seq * a.vocab * e
    if run.phase == "generation":
        tensors["kv_cache_step"] = 2 * sequences(run) * a.kv_width * e
        tensors["generation_logits"] = prefill_logits_bytes(run)
    return tensors
