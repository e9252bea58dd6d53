"""OOM fingerprint: which predicted tensor a failed allocation most likely was.

An OOM message says ``Tried to allocate X``. The estimator knows the sizes of the run's big
single tensors: the fp32 logits (b·s·V·4), eager attention scores (b·heads·s²·bytes), an
optimizer state tensor materialised at the first step, one layer's MLP activation, the
foreach step's temporary, the KV cache... The closest one (in ratio; the message rounds to
two decimals and the allocator rounds large requests up to 2 MiB) is the likely culprit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from triage.estimate.estimator import Estimate, estimate
from triage.estimate.run import as_int, fact_values, in_lang

if TYPE_CHECKING:
    from triage.facts import FactSet

MiB = 1024**2

DESCRIPTIONS = {
    "logits_fp32": "the fp32 copy of the logits in the loss (b·s·V·4): the large-vocabulary spike",
    "logits_fp32_shifted": "the shifted fp32 logits (b·(s-1)·V·4) of older transformers' loss",
    "logits": "the logits in the model dtype (b·s·V)",
    "mlp_activation": "one layer's MLP activation (b·s·intermediate)",
    "mlp_activation_fp32": "one layer's MLP activation in fp32",
    "hidden_states_fp32": "an fp32 copy of the hidden states (b·s·h·4)",
    "optimizer_state_tensor": "an optimizer state tensor allocated at the first optimizer step",
    "largest_gradient": "the gradient of the largest trainable parameter",
    "foreach_temporary": "the foreach optimizer step's temporary (the size of all optimizer state)",
    "attention_scores_fp32": "eager attention's fp32 softmax (b·heads·s²·4)",
    "attention_scores": "eager attention scores in the model dtype (b·heads·s²)",
    "eval_logits_step": "one evaluation batch's logits being accumulated on the GPU",
    "kv_cache_step": "the KV cache growing by one token",
    "generation_logits": "the fp32 logits of generate()'s prefill",
}

#: :data:`DESCRIPTIONS` in Chinese.
DESCRIPTIONS_ZH = {
    "logits_fp32": "loss 中 logits 的 fp32 拷贝（b·s·V·4）：大词表带来的尖峰",
    "logits_fp32_shifted": "旧版 transformers 的 loss 中移位后的 fp32 logits（b·(s-1)·V·4）",
    "logits": "模型 dtype 下的 logits（b·s·V）",
    "mlp_activation": "一层的 MLP 激活（b·s·intermediate）",
    "mlp_activation_fp32": "一层的 fp32 MLP 激活",
    "hidden_states_fp32": "hidden states 的 fp32 拷贝（b·s·h·4）",
    "optimizer_state_tensor": "第一次优化器更新时分配的优化器状态张量",
    "largest_gradient": "最大的可训练参数的梯度",
    "foreach_temporary": "foreach 优化器更新的临时张量（与全部优化器状态一样大）",
    "attention_scores_fp32": "eager attention 的 fp32 softmax（b·heads·s²·4）",
    "attention_scores": "模型 dtype 下的 eager attention 分数（b·heads·s²）",
    "eval_logits_step": "正在显卡上累积的一个评估 batch 的 logits",
    "kv_cache_step": "增长一个 token 的 KV 缓存",
    "generation_logits": "generate() prefill 的 fp32 logits",
}


@dataclass(frozen=True)
class Candidate:
    name: str
    bytes: int
    ratio: float
    """requested / predicted."""
    description: str
    description_zh: str = ""

    def description_in(self, lang: str) -> str:
        return in_lang(self.description, self.description_zh, lang)


@dataclass(frozen=True)
class Fingerprint:
    requested_bytes: int
    best: Candidate | None
    """None when no predicted tensor is within 30%."""
    confidence: str
    """high (within 2%), medium (10%), low (30%) or none."""
    candidates: tuple[Candidate, ...]
    """All predicted tensors, closest first."""


def _round_alloc(n: int) -> int:
    if n <= MiB:
        return max(512, -(-n // 512) * 512)
    return -(-n // (2 * MiB)) * (2 * MiB)


def fingerprint(facts: FactSet | Mapping[str, Any], est: Estimate | None = None) -> Fingerprint | None:
    """Compare ``oom_requested_bytes`` with the run's predicted tensors; None without a request size."""
    values = fact_values(facts)
    raw = values.get("oom_requested_bytes")
    if not raw:
        return None
    requested = as_int(raw, "oom_requested_bytes", 1)
    est = est or estimate(values)
    cands = []
    for name, size in est.tensors.items():
        if size <= 0:
            continue
        predicted = _round_alloc(size)
        cands.append(
            Candidate(
                name, predicted, requested / predicted, DESCRIPTIONS.get(name, name), DESCRIPTIONS_ZH.get(name, name)
            )
        )
    cands.sort(key=lambda c: abs(math.log(c.ratio)))
    if not cands:
        return Fingerprint(requested, None, "none", ())
    best = cands[0]
    off = abs(best.ratio - 1)
    # the message prints two decimals: "0.05 GiB" can be 4% away from the true size
    slack = 0.006 * (1024**3 if requested >= 1024**3 else MiB) / requested
    off = max(0.0, off - slack)
    confidence = "high" if off <= 0.02 else "medium" if off <= 0.10 else "low" if off <= 0.30 else "none"
    return Fingerprint(requested, best if confidence != "none" else None, confidence, tuple(cands))
