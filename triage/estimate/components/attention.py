"""Attention: what the attention kernel saves for backward, eager attention's s² scores, the 4-D
mask, and transformers 4.38's causal-mask buffer.

Formulas (shared/reference/memory-formulas.md §1.3 and §1.5):

* every kernel saves q and k after RoPE and v (a view keeps a fused qkv output alive); eager
  attention repeats the KV heads of GQA, and so does SDPA before transformers 4.48;
* eager attention saves the fp32 softmax and the compute-dtype probabilities: heads·s·(4+e)
  bytes per token and layer (Korthikanti et al. 2022, the 5as²b term, adapted), plus the
  soft-capped scores and the dropout mask when the model has them;
* SDPA/FlashAttention save their output and an fp32 logsumexp per head instead (linear in s);
* eager (and SDPA/xformers on padded batches) builds a b x s² mask in the compute dtype;
* transformers 4.38 registered an int64 causal_mask of max_position_embeddings² (transformers #29484).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.version import Version

from triage.estimate.records import Component
from triage.estimate.run import Run

if TYPE_CHECKING:
    from triage.estimate.components.activations import LayerSaving

#: Layouts whose attention input is one fused qkv projection.
FUSED_QKV = ("phi3", "neox", "falcon", "chatglm", "baichuan", "gpt2")


def _repeats_kv(run: Run) -> bool:
    """The kernel sees the KV heads repeated to the query heads (eager; SDPA before transformers 4.48)."""
    tfv = run.transformers_version
    if run.framework == "litgpt":  # litgpt expands k and v to the query heads before SDPA
        return True
    return run.attn == "eager" or (run.attn == "sdpa" and tfv is not None and tfv < Version("4.48.0"))


def saved_per_token(run: Run) -> tuple[int, int]:
    """Bytes per token one layer's attention saves for backward: (core, s-term).

    The s-term is the part that grows with the sequence (eager's probabilities); the core is
    what the attention saves besides.
    """
    a, e = run.arch, run.e
    qw, kvw = a.q_width, a.kv_width
    kv_saved = qw if _repeats_kv(run) and a.kv_heads != a.heads else kvw
    core = e * qw + e * kv_saved  # q and k after RoPE
    # v; a view into a fused qkv output keeps all of it (litgpt fuses qkv in every model: its ``attn`` linear)
    fused = a.layout in FUSED_QKV or run.framework == "litgpt"
    core += e * (qw + 2 * kvw) if fused else e * kv_saved
    if run.attn != "eager":
        return core + e * qw + 4 * a.heads, 0  # output and fp32 logsumexp
    s_term = a.heads * run.seq * (4 + (e if e != 4 else 0))
    if a.attn_softcap:
        s_term += a.heads * run.seq * e
    if a.attn_dropout:
        s_term += a.heads * run.seq * (1 + e)
    return core, s_term


def attention_scores(run: Run, saving: LayerSaving) -> Component | None:
    """Eager attention's saved scores (with checkpointing: the one layer being recomputed)."""
    if not saving.s_term:
        return None
    a, e = run.arch, run.e
    one_layer = a.heads * run.batch * run.seq**2 * (4 + e)
    scores = one_layer if run.gc else saving.layers * saving.s_term * run.tokens
    return Component(
        "attention_scores",
        scores,
        f"eager attention keeps fp32 softmax + {run.compute_dtype} probabilities: "
        f"{saving.layers if not run.gc else 1} layer(s) x b={run.batch} x {a.heads} heads x s²={run.seq}² x "
        f"{4 + e} B" + (" (gradient checkpointing: only the layer being recomputed)" if run.gc else ""),
    )


def attention_mask(run: Run) -> Component | None:
    """The 4-D attention mask eager attention (and SDPA/xformers on padded batches) builds."""
    if not (run.attn == "eager" or (run.padded and run.attn in ("sdpa", "xformers"))):
        return None
    return Component(
        "attention_mask",
        run.batch * run.seq**2 * run.e,
        f"4-D attention mask b={run.batch} x s²={run.seq}² x {run.e} B",
    )


def causal_mask_buffer(run: Run) -> Component | None:
    """transformers 4.38's int64 causal_mask buffer of Llama-layout models."""
    a, tfv = run.arch, run.transformers_version
    if tfv is None or not Version("4.38.0") <= tfv < Version("4.39.0"):
        return None
    if a.layout != "llama" or a.family not in ("", "llama", "gemma"):
        return None
    return Component(
        "causal_mask_buffer",
        8 * a.max_position**2,
        f"transformers 4.38 registers an int64 causal_mask of "
        f"max_position_embeddings² = {a.max_position}² x 8 B (transformers #29484)",
    )
