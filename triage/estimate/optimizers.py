"""Optimizer state per HF ``optim`` name (transformers ``OptimizerNames``).

For each optimizer: how many state tensors it keeps per trainable parameter and in which
precision, whether the state is paged (bitsandbytes unified memory, outside PyTorch's
counters), whether it is factored (Adafactor), and what temporaries its ``step()`` makes.

Sources: HF perf_train_gpu_one (AdamW 8 B/param fp32, 8-bit 2 B, Adafactor "slightly more
than 4", SGD momentum 4 B); bitsandbytes blockwise 8-bit states (blocksize 256, one fp32
absmax per block); torch.optim foreach AdamW's full-size ``_foreach_sqrt`` temporary, measured
at +12.55 GiB for a 7B bf16 full fine-tune (shared/reference/exact-measurement.md).
"""

from __future__ import annotations

from dataclasses import dataclass


class OptimizerError(ValueError):
    """An optimizer name the estimator does not know (``zh``: the same in Chinese)."""

    def __init__(self, message: str, zh: str = "") -> None:
        super().__init__(message)
        self.zh = zh


@dataclass(frozen=True)
class OptimizerSpec:
    """Memory behaviour of one optimizer."""

    name: str
    states: float
    """State tensors per parameter (Adam: 2 - m and v; Lion, SGD-momentum: 1; AdEMAMix: 3)."""
    state_bytes: float | None
    """Bytes per state element; None means the parameter's own dtype (torch.optim)."""
    paged: bool = False
    """bitsandbytes paged optimizer: state in CUDA unified memory, evicted to CPU under pressure."""
    factored: bool = False
    """Adafactor: a row and a column vector per matrix instead of a full second moment."""
    temps: str = "none"
    """Step temporaries: none (fused / per-tensor kernels), foreach (one full-size copy of the
    state), loop (a few copies of the largest parameter), fp32_loop (Adafactor: fp32 copies of
    the largest parameter, its gradient and the update)."""
    fused_backward: bool = False
    """LOMO/AdaLomo: the update happens inside backward, so no gradients are kept."""
    needs: str | None = None
    """Package it needs (bitsandbytes, torchao, galore_torch, ...)."""
    note: str = ""


_8BIT = 1.0 + 4.0 / 256  # one byte per element plus an fp32 absmax per 256-element block
_4BIT = 0.5 + 4.0 / 128

_SPECS = [
    OptimizerSpec("adamw_torch", 2, None, temps="foreach", note="torch.optim.AdamW, foreach on CUDA"),
    OptimizerSpec("adamw_torch_fused", 2, None, note="torch.optim.AdamW(fused=True)"),
    OptimizerSpec("adamw_hf", 2, None, temps="loop", note="transformers' own AdamW (removed in v5)"),
    OptimizerSpec("adamw_apex_fused", 2, None, needs="apex"),
    OptimizerSpec("adamw_torch_xla", 2, None),
    OptimizerSpec("adamw_torch_npu_fused", 2, None),
    OptimizerSpec("adamw_anyprecision", 2, None, needs="torchdistx"),
    OptimizerSpec("adamw_torch_4bit", 2, _4BIT, needs="torchao"),
    OptimizerSpec("adamw_torch_8bit", 2, _8BIT, needs="torchao"),
    OptimizerSpec("adamw_bnb_8bit", 2, _8BIT, needs="bitsandbytes"),
    OptimizerSpec("adamw_8bit", 2, _8BIT, needs="bitsandbytes"),
    OptimizerSpec("paged_adamw_8bit", 2, _8BIT, paged=True, needs="bitsandbytes"),
    OptimizerSpec("paged_adamw_32bit", 2, 4, paged=True, needs="bitsandbytes"),
    OptimizerSpec("paged_adamw", 2, 4, paged=True, needs="bitsandbytes"),
    OptimizerSpec("ademamix", 3, None, needs="bitsandbytes"),
    OptimizerSpec("ademamix_8bit", 3, _8BIT, needs="bitsandbytes"),
    OptimizerSpec("paged_ademamix_32bit", 3, 4, paged=True, needs="bitsandbytes"),
    OptimizerSpec("paged_ademamix_8bit", 3, _8BIT, paged=True, needs="bitsandbytes"),
    OptimizerSpec("lion_32bit", 1, 4, needs="bitsandbytes"),
    OptimizerSpec("lion_8bit", 1, _8BIT, needs="bitsandbytes"),
    OptimizerSpec("paged_lion_32bit", 1, 4, paged=True, needs="bitsandbytes"),
    OptimizerSpec("paged_lion_8bit", 1, _8BIT, paged=True, needs="bitsandbytes"),
    OptimizerSpec("rmsprop", 1, None, temps="foreach", note="momentum 0 by default"),
    OptimizerSpec("rmsprop_bnb", 1, 4, needs="bitsandbytes"),
    OptimizerSpec("rmsprop_bnb_32bit", 1, 4, needs="bitsandbytes"),
    OptimizerSpec("rmsprop_bnb_8bit", 1, _8BIT, needs="bitsandbytes"),
    OptimizerSpec("adagrad", 1, None, temps="foreach"),
    OptimizerSpec("sgd", 0, None, note="HF passes momentum=0 unless optim_args set it; then 1 state"),
    OptimizerSpec("sgd_momentum", 1, None, temps="foreach"),
    OptimizerSpec(
        "adafactor", 1, 4, factored=True, temps="fp32_loop", note="factored second moment, no first moment (beta1=None)"
    ),
    OptimizerSpec("galore_adamw", 2, 4, factored=True, needs="galore_torch", note="low-rank projected states"),
    OptimizerSpec("galore_adamw_8bit", 2, _8BIT, factored=True, needs="galore_torch"),
    OptimizerSpec("galore_adafactor", 1, 4, factored=True, needs="galore_torch"),
    OptimizerSpec("galore_adamw_layerwise", 2, 4, factored=True, fused_backward=True, needs="galore_torch"),
    OptimizerSpec("galore_adamw_8bit_layerwise", 2, _8BIT, factored=True, fused_backward=True, needs="galore_torch"),
    OptimizerSpec("galore_adafactor_layerwise", 1, 4, factored=True, fused_backward=True, needs="galore_torch"),
    OptimizerSpec("apollo_adamw", 2, 4, factored=True, needs="apollo_torch"),
    OptimizerSpec("apollo_adamw_layerwise", 2, 4, factored=True, fused_backward=True, needs="apollo_torch"),
    OptimizerSpec("lomo", 0, None, fused_backward=True, needs="lomo-optim"),
    OptimizerSpec("adalomo", 1, 4, factored=True, fused_backward=True, needs="lomo-optim"),
    OptimizerSpec("grokadamw", 3, None, needs="grokadamw"),
    OptimizerSpec("schedule_free_adamw", 2, None, needs="schedulefree"),
    OptimizerSpec("schedule_free_radam", 2, None, needs="schedulefree"),
    OptimizerSpec("schedule_free_sgd", 1, None, needs="schedulefree"),
    OptimizerSpec("stable_adamw", 2, None, needs="torch-optimi"),
    OptimizerSpec("sophia", 2, None),
]

OPTIMIZERS: dict[str, OptimizerSpec] = {s.name: s for s in _SPECS}
_ALIASES = {
    "adamw": "adamw_torch",
    "adam": "adamw_torch",
    "torch.optim.adamw": "adamw_torch",
    "adamw_torch_foreach": "adamw_torch",
    "fused_adamw": "adamw_torch_fused",
    "adamw8bit": "adamw_bnb_8bit",
    "adamw_8bit_bnb": "adamw_bnb_8bit",
    "pagedadamw8bit": "paged_adamw_8bit",
    "paged_adamw8bit": "paged_adamw_8bit",
    "bnb.optim.adamw8bit": "adamw_bnb_8bit",
    "bnb.optim.pagedadamw8bit": "paged_adamw_8bit",
    "adamw_bnb": "adamw_bnb_8bit",
    "lion": "lion_32bit",
    "adam8bit": "adamw_bnb_8bit",
    "sgd_nesterov": "sgd_momentum",
}


def optimizer_spec(name: str) -> OptimizerSpec:
    """The spec for an HF ``optim`` name (case-insensitive; a few common spellings accepted)."""
    key = name.strip().lower().replace("-", "_")
    key = _ALIASES.get(key.replace("_", "") if key.replace("_", "") in _ALIASES else key, key)
    spec = OPTIMIZERS.get(key)
    if spec is None:
        from rapidfuzz import process

        near = [m[0] for m in process.extract(key, list(OPTIMIZERS), limit=3)]
        raise OptimizerError(
            f"unknown optimizer {name!r}; did you mean {', '.join(near)}?",
            f"未知的优化器 {name!r}；是不是 {', '.join(near)}？",
        )
    return spec
