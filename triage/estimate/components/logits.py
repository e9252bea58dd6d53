"""Logits and loss: the vocabulary-sized tensors of the cross-entropy at the start of backward.

Formulas (shared/reference/memory-formulas.md §1.6): HF's ``ForCausalLMLoss`` upcasts the logits
to fp32 before the cross-entropy. Measured with the fake-tensor oracle (docs/validation.md, the
reference table in tests/fixtures/estimate/reference_peaks.yaml): three b·s·V fp32 tensors are
live at the peak (``_log_softmax_backward_data``), with or without checkpointing: the
log-softmax output, its incoming gradient and the gradient being produced; soft-capped logits
keep one more compute-dtype copy. A fused or chunked loss (Liger, Cut Cross-Entropy,
torchtune) keeps the hidden states' gradient and one chunk of ceil(V/h) tokens instead.
"""

from __future__ import annotations

import math

from triage.estimate.records import Component
from triage.estimate.run import Run

#: b·s·V fp32 tensors live at the start of backward with the unfused loss.
LIVE_FP32_LOGITS = 3


def logits_loss(run: Run) -> Component:
    """The loss block live at the start of backward."""
    a, e, tokens = run.arch, run.e, run.tokens
    if run.fused_loss:
        chunk = max(1, tokens // max(1, math.ceil(a.vocab / a.hidden)))
        return Component(
            "logits_loss",
            tokens * e * a.hidden + chunk * a.vocab * 8,
            f"fused/chunked cross-entropy: gradient of the hidden states ({tokens:,} x {a.hidden} x {e} B) "
            f"+ one chunk of {chunk:,} tokens x V={a.vocab} x 8 B",
            f"融合/分块的交叉熵：hidden states 的梯度（{tokens:,} x {a.hidden} x {e} B）"
            f"+ 一块 {chunk:,} 个 token x V={a.vocab} x 8 B",
        )
    if run.framework == "litgpt":
        # litgpt (litgpt/utils.py chunked_cross_entropy) takes the cross-entropy of the bf16 logits in
        # chunks of 128 tokens: the logits and each chunk's log-softmax output stay in the compute dtype
        return Component(
            "logits_loss",
            2 * tokens * a.vocab * e,
            f"litgpt chunked cross-entropy on {run.compute_dtype} logits: logits + log-softmax output, "
            f"2 x {tokens:,} tokens x V={a.vocab} x {e} B",
            f"litgpt 在 {run.compute_dtype} logits 上分块算交叉熵：logits + log-softmax 输出，"
            f"2 x {tokens:,} 个 token x V={a.vocab} x {e} B",
        )
    n_v = LIVE_FP32_LOGITS
    return Component(
        "logits_loss",
        tokens * a.vocab * 4 * n_v + (tokens * a.vocab * e if a.logit_softcap else 0),
        f"fp32 logits, log-softmax and their gradients at the start of backward: "
        f"{n_v} x {tokens:,} tokens x V={a.vocab} x 4 B",
        f"反向开始时的 fp32 logits、log-softmax 及其梯度：{n_v} x {tokens:,} 个 token x V={a.vocab} x 4 B",
    )
