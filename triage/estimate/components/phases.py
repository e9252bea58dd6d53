"""Phases of one step: which components are live at each moment, and which moment is the peak.

From shared/reference/memory-formulas.md §1.10 and the fake-tensor measurements of
shared/reference/exact-measurement.md:

* ``backward`` at its *start*: weights, optimizer state, every saved activation and the loss
  block (LoRA/QLoRA runs peak here); accumulated gradients when grad_accum > 1;
* with checkpointing, *inside* backward: the layer inputs while the last layer is recomputed
  (the loss block is gone);
* ``backward`` at its *end*: weights, optimizer state and all gradients (full fine-tuning);
* ``optimizer``: weights, state, gradients and the step's temporaries (foreach AdamW);
* ``evaluation`` and ``generation`` when the run is in them: then that phase is the peak.
"""

from __future__ import annotations

from collections.abc import Mapping

from triage.estimate.components.context import Context
from triage.estimate.records import Component, Phase
from triage.estimate.run import Run


def _live(sizes: Mapping[str, Component], name: str) -> int:
    """Bytes of a sized component (0 when the run does not have it)."""
    return sizes[name].bytes if name in sizes else 0


def _static(sizes: Mapping[str, Component]) -> dict[str, int]:
    """What is live all step long (paged optimizer state is not: it lives outside PyTorch's counters)."""
    names = ("weights", "lora_adapters", "modules_to_save", "optimizer_state", "master_weights", "causal_mask_buffer")
    return {name: _live(sizes, name) for name in names}


def _inside_backward(ctx: Context, sizes: Mapping[str, Component], accumulated: int) -> Phase:
    """With checkpointing: all layer inputs still live while the last layer is recomputed."""
    run = ctx.run
    adapter_grads = 0 if ctx.in_backward or not run.lora else _live(sizes, "lora_adapters")
    inner = dict(
        _static(sizes),
        gradients=accumulated + adapter_grads,
        activations=_live(sizes, "activations"),
        recompute=_live(sizes, "recompute"),
        attention_mask=_live(sizes, "attention_mask"),
        autocast_copies=_live(sizes, "autocast_copies"),
        comm_buffers=_live(sizes, "comm_buffers") if accumulated else 0,
    )
    if "attention_scores" in sizes:
        inner["attention_scores"] = sizes["attention_scores"].bytes
        inner["recompute"] = inner["recompute"] - sizes["attention_scores"].bytes
    return Phase(
        "backward", "inside backward: one checkpointed layer recomputed", inner, "反向传播中：重算一个检查点层"
    )


def training_phases(ctx: Context, sizes: Mapping[str, Component]) -> list[Phase]:
    """The moments of a training step, each with the bytes of every live component."""
    run, static = ctx.run, _static(sizes)
    grads, comm = _live(sizes, "gradients"), _live(sizes, "comm_buffers")
    accumulated = grads if run.grad_accum > 1 and not ctx.in_backward else 0
    start = dict(
        static,
        gradients=accumulated,
        activations=_live(sizes, "activations"),
        attention_scores=0 if run.gc else _live(sizes, "attention_scores"),
        logits_loss=_live(sizes, "logits_loss"),
        attention_mask=_live(sizes, "attention_mask"),
        autocast_copies=_live(sizes, "autocast_copies"),
        comm_buffers=comm if accumulated else 0,
    )
    phases = [
        Phase(
            "backward", "start of backward: saved activations and the loss", start, "反向传播开始：保存的激活值和 loss"
        )
    ]
    if run.gc:
        phases.append(_inside_backward(ctx, sizes, accumulated))
    end = dict(static, gradients=grads, comm_buffers=comm, tied_embedding_grads=_live(sizes, "tied_embedding_grads"))
    phases.append(Phase("backward", "end of backward: all gradients", end, "反向传播结束：全部梯度"))
    if not ctx.in_backward:
        step = dict(static, gradients=grads, optimizer_temps=_live(sizes, "optimizer_temps"), comm_buffers=comm)
        phases.append(Phase("optimizer", "optimizer step", step, "优化器更新"))
    return phases


def evaluation_phase(sizes: Mapping[str, Component]) -> Phase:
    """An evaluation forward, with the predictions accumulated so far."""
    live = dict(_static(sizes), eval_forward=_live(sizes, "eval_forward"), eval_logits=_live(sizes, "eval_logits"))
    return Phase("evaluation", "evaluation forward with accumulated predictions", live, "评估前向，带已累积的预测")


def generation_phase(sizes: Mapping[str, Component]) -> Phase:
    """generate() at its last token."""
    live = dict(
        _static(sizes), kv_cache=_live(sizes, "kv_cache"), generation_prefill=_live(sizes, "generation_prefill")
    )
    return Phase(
        "generation", "generate(): KV cache at the last token", live, "generate()：最后一个 token 时的 KV 缓存"
    )


def peak_phase(run: Run, phases: list[Phase]) -> Phase:
    """The peak: the evaluation/generation phase when the run is in one, else the largest training moment."""
    if run.phase in ("evaluation", "generation"):
        return phases[-1]
    return max(phases, key=lambda p: p.total)
