"""Evaluation and generation: the no-grad forward, the logits the Trainer accumulates, the KV cache
and the prefill of ``generate()``.

Formulas (shared/reference/memory-formulas.md §1.6-1.7, §1.10):

* an eval forward keeps the logits plus fp32 loss copies (e + 8 bytes per token and vocabulary
  entry) and one layer's largest intermediate (3 MLP-wide tensors, or eager's s² scores);
* without ``preprocess_logits_for_metrics`` the Trainer keeps every eval batch's logits on the
  GPU until ``eval_accumulation_steps`` moves them (x2 while concatenating);
* KV cache = 2 · layers · (batch x beams) · (prompt + new tokens) · kv_width · e;
* the prefill computes fp32 logits for the last position (every prompt position before
  transformers 4.45) plus one layer's largest intermediate.
"""

from __future__ import annotations

from packaging.version import Version

from triage.estimate.records import Component
from triage.estimate.run import Run


def _layer_peak(run: Run, sequences: int) -> int:
    """One layer's largest intermediate in a no-grad forward of ``sequences`` sequences."""
    a, e = run.arch, run.e
    if run.attn == "eager":
        return sequences * a.heads * run.seq**2 * (4 + e)
    return sequences * run.seq * a.intermediate * e * 3


def eval_logits(run: Run) -> Component | None:
    """The eval logits the Trainer accumulates on the GPU for compute_metrics."""
    if not run.compute_metrics or run.preprocess_logits:
        return None
    a, e = run.arch, run.e
    be = run.eval_batch
    if run.eval_accumulation_steps is None:
        kept = run.eval_samples
    else:
        kept = min(run.eval_samples, run.eval_accumulation_steps * be)
    return Component(
        "eval_logits",
        2 * kept * run.seq * a.vocab * e,
        f"Trainer accumulates the logits of {kept:,} eval samples on the GPU "
        f"(x2 while concatenating): {kept:,} x s={run.seq} x V={a.vocab} x {e} B",
        f"Trainer 在显卡上累积 {kept:,} 条评估样本的 logits（拼接时 x2）：{kept:,} x s={run.seq} x V={a.vocab} x {e} B",
    )


def eval_forward(run: Run) -> Component:
    """An evaluation forward without gradients: logits, fp32 loss copies and one layer's peak."""
    a, e = run.arch, run.e
    be = run.eval_batch
    tokens = be * run.seq
    fwd = tokens * a.vocab * (e + 8)
    layer_peak = tokens * a.intermediate * e * 3
    if run.attn == "eager":
        layer_peak = max(layer_peak, _layer_peak(run, be))
    return Component(
        "eval_forward",
        fwd + layer_peak,
        f"eval forward (no grad): logits + fp32 loss copies for "
        f"{be} x {run.seq} tokens, plus one layer's largest intermediate",
        f"评估前向（不求梯度）：{be} x {run.seq} 个 token 的 logits 和 fp32 loss 拷贝，加上一层中最大的中间张量",
    )


def sequences(run: Run) -> int:
    """Sequences generate() runs at once (batch x beams)."""
    return run.eval_batch * run.num_beams


def kv_cache(run: Run) -> Component:
    """The KV cache at the last generated token."""
    a, e = run.arch, run.e
    bb = sequences(run)
    total_len = run.seq + run.max_new_tokens
    return Component(
        "kv_cache",
        2 * a.layers * bb * total_len * a.kv_width * e,
        f"KV cache 2 x {a.layers} layers x {bb} sequences (batch x beams) x {total_len} tokens x {a.kv_width} x {e} B",
        f"KV 缓存 2 x {a.layers} 层 x {bb} 条序列（batch x beams）x {total_len} 个 token x {a.kv_width} x {e} B",
    )


def _all_positions(run: Run) -> bool:
    """transformers < 4.45 computes the prefill logits of every prompt position."""
    tfv = run.transformers_version
    return tfv is not None and tfv < Version("4.45.0")


def prefill_logits_bytes(run: Run) -> int:
    """The fp32 logits of the prefill."""
    return sequences(run) * (run.seq if _all_positions(run) else 1) * run.arch.vocab * 4


def generation_prefill(run: Run) -> Component:
    """The prefill of generate(): fp32 logits plus one layer's largest intermediate."""
    return Component(
        "generation_prefill",
        prefill_logits_bytes(run) + _layer_peak(run, sequences(run)),
        "prefill: fp32 logits of "
        + ("every prompt position (transformers < 4.45)" if _all_positions(run) else "the last position")
        + " + one layer's largest intermediate",
        "prefill："
        + ("每个提示位置（transformers < 4.45）" if _all_positions(run) else "最后一个位置")
        + "的 fp32 logits + 一层中最大的中间张量",
    )
