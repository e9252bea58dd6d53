"""Attention: what the attention kernel saves for backward, eager attention's s² scores, the 4-D
mask, and transformers 4.38's causal-mask buffer.

Formulas (shared/reference/memory-formulas.md §1.3 and §1.5):

* every kernel saves q and k after RoPE and v (a view keeps a fused qkv output alive); eager
  attention repeats the KV heads of GQA, and so does SDPA before transformers 4.48;
* eager attention saves the fp32 softmax and the compute-dtype probabilities: heads·s·(4+e)
  bytes per token and layer (Korthikanti et al. 2022, the 5as²b term, adapted; transformers' Falcon
  and GPT-2 take the softmax in the compute dtype: heads·s·e), plus the
  soft-capped scores and the dropout mask when the model has them;
* SDPA/FlashAttention save their output and an fp32 logsumexp per head instead (linear in s);
* eager (and SDPA/xformers on padded batches) builds a b x s² mask in the compute dtype;
* transformers 4.38 registered an int64 causal_mask of max_position_embeddings² (transformers #29484);
* SDPA falls back to its math kernel for Falcon-7B-style multi-query attention: the model hands SDPA an
  explicit mask and a single KV head, and PyTorch's flash kernel refuses any explicit mask while the
  memory-efficient kernel refuses differing head counts (aten/src/ATen/native/transformers/cuda/
  sdp_utils.cpp: ``check_for_attn_mask``, ``check_batch_size_and_num_heads_dense<false>``). The math
  kernel keeps the softmax output, in fp32 since torch 2.5 (the math backend "accumulates in float32
  even when given float16 or bfloat16 inputs" unless ``allow_fp16_bf16_reduction_math_sdp``), measured
  with the fake-tensor oracle at 4 B per score element per layer (docs/validation.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.version import Version

from triage.estimate.records import Component
from triage.estimate.run import Run

if TYPE_CHECKING:
    from triage.estimate.components.activations import LayerSaving

#: Layouts whose eager attention takes the softmax in the compute dtype, not fp32.
SOFTMAX_IN_COMPUTE_DTYPE = ("falcon", "gpt2")

#: Layouts whose attention input is one fused qkv projection.
FUSED_QKV = ("phi3", "neox", "falcon", "chatglm", "baichuan", "gpt2")


def _repeats_kv(run: Run) -> bool:
    """The kernel sees the KV heads repeated to the query heads (eager; SDPA before transformers 4.48)."""
    tfv = run.transformers_version
    if run.framework == "litgpt":  # litgpt expands k and v to the query heads before SDPA
        return True
    return run.attn == "eager" or (run.attn == "sdpa" and tfv is not None and tfv < Version("4.48.0"))


def sdpa_math_fallback(run: Run) -> bool:
    """SDPA runs its math kernel (O(s²) memory): Falcon's multi-query attention with its explicit mask."""
    a = run.arch
    return run.attn == "sdpa" and run.framework != "litgpt" and a.layout == "falcon" and a.kv_heads == 1 < a.heads


def math_score_bytes(run: Run) -> int:
    """Bytes per score element the math kernel keeps: fp32 from torch 2.5 (or unknown), else the compute dtype."""
    tv = run.torch_version
    return run.e if tv is not None and tv < Version("2.5.0") else 4


def score_bytes(run: Run) -> int:
    """Bytes per attention-score element one layer keeps for backward (0 for kernels linear in s)."""
    a, e = run.arch, run.e
    if run.attn == "eager":
        # Llama-style eager attention takes the softmax in fp32 and casts back (both kept); transformers'
        # Falcon and GPT-2 attention take it in the compute dtype (measured with the oracle: 2 B per score)
        per = e if a.layout in SOFTMAX_IN_COMPUTE_DTYPE else 4 + (e if e != 4 else 0)
        if a.attn_softcap:
            per += e
        if a.attn_dropout:
            per += 1 + e
        return per
    return math_score_bytes(run) if sdpa_math_fallback(run) else 0


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
    if sdpa_math_fallback(run):
        return core + e * qw, a.heads * run.seq * score_bytes(run)  # output; the softmax output per score
    if run.attn != "eager":
        return core + e * qw + 4 * a.heads, 0  # output and fp32 logsumexp
    return core, a.heads * run.seq * score_bytes(run)


def attention_scores(run: Run, saving: LayerSaving) -> Component | None:
    """Eager attention's saved scores (with checkpointing: the one layer being recomputed)."""
    if not saving.s_term:
        return None
    a, per = run.arch, score_bytes(run)
    one_layer = a.heads * run.batch * run.seq**2 * per
    scores = one_layer if run.gc else saving.layers * saving.s_term * run.tokens
    what = (
        f"eager attention keeps fp32 softmax + {run.compute_dtype} probabilities"
        if run.attn == "eager"
        else "SDPA falls back to its math kernel (explicit mask, one KV head) and keeps the softmax output"
    )
    what_zh = (
        f"eager attention 保留 fp32 的 softmax 和 {run.compute_dtype} 的概率矩阵"
        if run.attn == "eager"
        else "SDPA 退回到 math 内核（显式 mask、只有一个 KV 头），保留 softmax 的输出"
    )
    layers = saving.layers if not run.gc else 1
    return Component(
        "attention_scores",
        scores,
        f"{what}: {layers} layer(s) x b={run.batch} x {a.heads} heads x "
        f"s²={run.seq}² x {per} B" + (" (gradient checkpointing: only the layer being recomputed)" if run.gc else ""),
        f"{what_zh}：{layers} 层 x b={run.batch} x {a.heads} 个头 x s²={run.seq}² x {per} B"
        + ("（梯度检查点：只有正在重算的那一层）" if run.gc else ""),
    )


def attention_mask(run: Run) -> Component | None:
    """The 4-D attention mask eager attention (and SDPA/xformers on padded batches) builds."""
    if not (run.attn == "eager" or (run.padded and run.attn in ("sdpa", "xformers"))):
        return None
    return Component(
        "attention_mask",
        run.batch * run.seq**2 * run.e,
        f"4-D attention mask b={run.batch} x s²={run.seq}² x {run.e} B",
        f"4 维 attention mask：b={run.batch} x s²={run.seq}² x {run.e} B",
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
        f"transformers 4.38 注册了一个 int64 的 causal_mask："
        f"max_position_embeddings² = {a.max_position}² x 8 B（transformers #29484）",
    )
