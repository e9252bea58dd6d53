"""Activations: the tensors autograd saves for backward, and the recompute of gradient checkpointing.

Formulas: Korthikanti et al. 2022 (arXiv 2205.05198) §4.1, adapted tensor by tensor to
Llama-class decoders (shared/reference/memory-formulas.md §1.3-1.4) and checked against the
fake-tensor measurements in shared/reference/exact-measurement.md:

* norms save their input (fp32 for RMSNorm, plus the fp32 output for a trained rms_fp32 norm);
* a trained linear saves its input; a frozen one does not, but every LoRA-adapted linear saves
  an fp32 copy of its input (peft casts it to the adapter dtype), the r-wide lora_A output and
  the dropout's bool mask;
* a 4-bit linear of bitsandbytes 0.39.0-0.43.1 saves its input too (MatMul4Bit keeps
  ``ctx.tensors = (A, B)``; 0.43.2 keeps ``(None, B)``, PR #1270), so QLoRA with those releases
  keeps one compute-dtype input per input group of every layer;
* litgpt's own LoRA layers (``framework: litgpt``) save their dropout's mask and bf16 output
  (or share the input) instead of peft's fp32 copy, once for its fused qkv linear;
* the attention core is in :mod:`.attention`;
* a gated MLP saves gate, activation output and up (3·e·f); HF's python gelu_new saves four
  f-wide tensors;
* with full checkpointing only each layer's input is kept (2·s·b·h in 16-bit), plus the peak of
  recomputing one layer during backward.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from triage.estimate.components.attention import saved_per_token
from triage.estimate.components.trainable import EMBED_NAMES, HEAD_NAMES, adapter_modules
from triage.estimate.records import Component
from triage.estimate.run import Run

#: Saved f-wide tensors of the MLP activation function (HF's python gelu_new saves four).
ACT_SAVED = {"silu": 1, "gelu": 1, "gelu_tanh": 1, "relu": 1, "gelu_new": 4, "gelu_fast": 4, "swish": 1}


@dataclass(frozen=True)
class LayerSaving:
    """Bytes per token one decoder layer saves for backward, and how many layers save them."""

    saved: int
    """Outside the attention core: norms, linear inputs, LoRA copies, MLP."""
    core: int
    """The attention core (q, k, v, output)."""
    s_term: int
    """The part that grows with the sequence (eager attention's probabilities)."""
    layers: int
    """Decoder layers that save activations on this GPU."""

    @property
    def per_token(self) -> int:
        return self.saved + self.core + self.s_term


def _linear_inputs(run: Run, trainable_linears: bool) -> int:
    """Inputs the linears of one layer save per token (shared input, LoRA copies, masks)."""
    a, e = run.arch, run.e
    widths = {"attn_in": a.hidden, "attn_out": a.q_width, "mlp_in": a.hidden, "mlp_out": a.intermediate}
    mods = adapter_modules(run)
    saved = 0
    for group, width in widths.items():
        # a trained linear saves its input for the weight gradient; so does every 4-bit linear of
        # bitsandbytes 0.39.0-0.43.1 (MatMul4Bit keeps ctx.tensors = (A, B): Run.bnb_keeps_inputs)
        shared = trainable_linears or run.bnb_keeps_inputs
        adapted = [m for m in mods if m[3] == group]
        if run.framework == "litgpt":
            saved_litgpt, shared_litgpt = _litgpt_lora_inputs(run, group, width, len(adapted))
            saved += saved_litgpt
            if shared or shared_litgpt:
                saved += e * width
            continue
        for _ in adapted:
            if e != 4:  # peft casts the input to the fp32 adapter dtype, one copy per adapted module
                saved += 4 * width
            else:
                shared = True
            saved += 4 * run.lora_r  # lora_A output, saved for lora_B's weight gradient
            if run.lora_dropout > 0:
                saved += width  # the dropout's bool mask
        if shared:
            saved += e * width
    return saved


def _litgpt_lora_inputs(run: Run, group: str, width: int, adapted: int) -> tuple[int, bool]:
    """What litgpt's LoRA layers save per token for one input group, and whether they keep the input itself.

    litgpt (litgpt/lora.py) keeps its adapters in the model dtype and does not cast the input: each LoRA
    linear saves its dropout's bool mask and output (or, without dropout, the input itself) and the
    r-wide ``lora_A`` output. q, k and v are one fused ``attn`` linear there, so they count once.
    """
    if not adapted:
        return 0, False
    e = run.e
    modules = 1 if group == "attn_in" else adapted
    saved = modules * e * run.lora_r
    if run.lora_dropout > 0:
        return saved + modules * (width + e * width), False
    return saved, True


def _outside_attention(run: Run, trainable_linears: bool) -> int:
    """Bytes per token one layer saves outside the attention core."""
    a, e = run.arch, run.e
    h, f = a.hidden, a.intermediate
    fp32_norm_output = 4 * h if a.norm == "rms_fp32" and trainable_linears else 0
    per_norm = e * h + 8 if a.norm == "layer" else 4 * h + fp32_norm_output
    saved = a.norms_per_layer * per_norm + _linear_inputs(run, trainable_linears)
    # litgpt's MLPs call torch's gelu (one saved input) where transformers' python gelu_new saves four
    act_saved = 1 if run.framework == "litgpt" else ACT_SAVED.get(a.act, 1)
    saved += 3 * e * f if a.mlp == "gated" else act_saved * e * f
    if a.resid_dropout:
        saved += 2 * h
    return saved


def layer_saving(run: Run) -> LayerSaving:
    """What each decoder layer saves per token, and how many layers save it."""
    a = run.arch
    layers = a.layers if run.method != "freeze" else min(run.freeze_layers_trained, a.layers)
    if run.distributed == "model_parallel" and run.gpu_count > 1:
        layers = math.ceil(layers / run.gpu_count)
    core, s_term = saved_per_token(run)
    return LayerSaving(_outside_attention(run, run.method in ("full", "freeze")), core, s_term, layers)


def _model_level(run: Run) -> int:
    """Bytes per token saved outside the layers: the final norm, and the lm_head input when it trains."""
    a, e = run.arch, run.e
    model_level = 4 * a.hidden if a.norm != "layer" else e * a.hidden + 8
    lm_trainable = (
        run.method == "full"
        or any(m in HEAD_NAMES for m in run.modules_to_save)
        or (a.tied and any(m in EMBED_NAMES for m in run.modules_to_save))
    )
    if lm_trainable:
        model_level += e * a.hidden
    if a.resid_dropout:
        model_level += a.hidden
    return model_level


def activations(run: Run, saving: LayerSaving) -> Component:
    """Activations saved for backward (the layer inputs only, with gradient checkpointing)."""
    a, tokens = run.arch, run.tokens
    model_level = _model_level(run) * tokens
    if run.gc:
        # prepare_model_for_kbit_training makes the embedding fp32, so the residual stream is fp32
        resid = 4 if run.prepare_kbit else run.e
        return Component(
            "activations",
            saving.layers * resid * a.hidden * tokens + model_level,
            f"gradient checkpointing: {saving.layers} layer inputs x {resid} B x h={a.hidden} x "
            f"{tokens:,} tokens (b={run.batch} x s={run.seq}) + final norm",
            f"梯度检查点：{saving.layers} 层的输入 x {resid} B x h={a.hidden} x "
            f"{tokens:,} 个 token（b={run.batch} x s={run.seq}）+ 最后的 norm",
        )
    per_token = saving.saved + saving.core
    return Component(
        "activations",
        saving.layers * per_token * tokens + model_level,
        f"{saving.layers} layers x {per_token:,} B/token saved for backward x "
        f"{tokens:,} tokens (b={run.batch} x s={run.seq}); attention {run.attn}",
        f"{saving.layers} 层 x 每 token 为反向保存 {per_token:,} B x "
        f"{tokens:,} 个 token（b={run.batch} x s={run.seq}）；attention {run.attn}",
    )


def recompute(run: Run, saving: LayerSaving) -> Component | None:
    """With checkpointing: one decoder layer's activations rebuilt during backward, plus its gradients."""
    if not run.gc:
        return None
    a, e = run.arch, run.e
    transient = e * (2 * a.hidden + 2 * a.intermediate)
    if saving.s_term:
        transient += a.heads * run.seq * 5
    per_token = saving.per_token + transient
    return Component(
        "recompute",
        per_token * run.tokens,
        f"one decoder layer recomputed during backward: {per_token:,} B/token x {run.tokens:,} tokens",
        f"反向时重算一个解码层：每 token {per_token:,} B x {run.tokens:,} 个 token",
    )
