"""Optimizer memory: the state tensors, DeepSpeed's fp32 master weights and the step's temporaries.

Formulas (shared/reference/memory-formulas.md §1.2; the per-optimizer table is
:mod:`triage.estimate.optimizers`):

* state = trainable params x states per param x bytes per state element: AdamW 2 states in the
  parameter's dtype (torch.optim) or fp32 (DeepSpeed), 8-bit optimizers 1 B + an fp32 absmax per
  256-element block (bitsandbytes); Adafactor keeps a row and a column vector per matrix;
  GaLore/APOLLO keep states of rank-128 projections of each matrix larger than the rank.
* ZeRO >= 1 shards state and master weights over the GPUs; ZeRO-Offload moves them to the CPU.
  Paged optimizers keep their state in CUDA unified memory, outside PyTorch's counters.
* DeepSpeed keeps an fp32 master copy of 16-bit trainable parameters (ZeRO, arXiv 1910.02054).
* foreach AdamW's ``_foreach_sqrt`` makes one temporary the size of the whole state list,
  measured at +12.55 GiB on a 7B bf16 full fine-tune (shared/reference/exact-measurement.md).
"""

from __future__ import annotations

from triage.estimate.components.context import Context
from triage.estimate.records import Component

#: GaLore's and APOLLO's default projection rank.
PROJECTION_RANK = 128


#: DeepSpeed's default zero_optimization.sub_group_size (elements): ZeRO-3 steps the partition in sub-groups.
DS_SUB_GROUP = 1_000_000_000


def state_element_bytes(ctx: Context) -> float:
    """Bytes per optimizer-state element (DeepSpeed keeps full-precision states in fp32)."""
    spec = ctx.spec
    if ctx.shards.deepspeed:
        return 4 if spec.state_bytes is None or spec.state_bytes >= 4 else spec.state_bytes
    return spec.state_bytes if spec.state_bytes is not None else ctx.trainable.element_bytes


def _state(ctx: Context) -> tuple[int, str, str]:
    """Unsharded state bytes and their formula (in English and Chinese)."""
    spec, tr, run = ctx.spec, ctx.trainable, ctx.run
    if spec.factored and spec.name.startswith(("adafactor", "adalomo")):
        vectors = 0 if run.lora else run.arch.norm_params() + run.arch.bias_params()
        elements = sum(r + c for r, c in tr.shapes) + vectors
        return (
            elements * 4,
            f"factored second moment: rows+cols of each matrix = {elements:,} x 4 B",
            f"分解的二阶矩：每个矩阵的行+列 = {elements:,} x 4 B",
        )
    if spec.factored:  # GaLore / APOLLO: low-rank projected states
        rank = PROJECTION_RANK
        proj = sum(rank * (r + c) for r, c in tr.shapes if min(r, c) > rank)
        small = sum(r * c for r, c in tr.shapes if min(r, c) <= rank)
        state = int((proj * spec.states + small * spec.states) * (spec.state_bytes or 4))
        return (
            state,
            f"low-rank (rank {rank}) projected states of the trainable matrices ({spec.name})",
            f"可训练矩阵的低秩（rank {rank}）投影状态（{spec.name}）",
        )
    state_el = state_element_bytes(ctx)
    params = tr.total_params
    return (
        int(params * spec.states * state_el),
        f"{params:,} trainable params x {spec.states:g} states x {state_el:g} B ({spec.name})",
        f"{params:,} 个可训练参数 x {spec.states:g} 个状态 x {state_el:g} B（{spec.name}）",
    )


def optimizer_state(ctx: Context) -> Component:
    """The optimizer state on the GPU (``optimizer_state_paged`` when paged: not in the allocated peak)."""
    state, formula, formula_zh = _state(ctx)
    shards, run = ctx.shards, ctx.run
    if shards.state > 1:
        state //= shards.state
        formula += f" / {shards.state} GPUs (ZeRO-{run.zero_stage})"
        formula_zh += f" / {shards.state} 张卡（ZeRO-{run.zero_stage}）"
    if shards.offload_state:
        state = 0
        formula += "; offloaded to CPU"
        formula_zh += "；已 offload 到 CPU"
    if ctx.spec.paged and not shards.offload_state:
        formula += "; paged: in CUDA unified memory, outside PyTorch's counters, evicted to CPU under pressure"
        formula_zh += "；分页：位于 CUDA 统一内存，不计入 PyTorch 的计数，显存紧张时换出到 CPU"
        return Component("optimizer_state_paged", state, formula, formula_zh)
    return Component("optimizer_state", state, formula, formula_zh)


def master_weights(ctx: Context) -> Component | None:
    """DeepSpeed's fp32 master copy of the trainable parameters of a 16-bit full fine-tune."""
    run, shards = ctx.run, ctx.shards
    if not shards.deepspeed or run.lora or run.weight_dtype == "fp32" or shards.offload_state:
        return None
    params = ctx.trainable.total_params
    master = params * 4 // shards.state
    if not master:
        return None
    return Component(
        "master_weights",
        master,
        f"fp32 master copy of {params:,} trainable params (DeepSpeed)"
        + (f" / {shards.state}" if shards.state > 1 else ""),
        f"{params:,} 个可训练参数的 fp32 主副本（DeepSpeed）" + (f" / {shards.state}" if shards.state > 1 else ""),
    )


def optimizer_temps(ctx: Context) -> Component:
    """Temporaries of ``optimizer.step()``: foreach copies, or a few copies of the largest parameter."""
    spec, tr = ctx.spec, ctx.trainable
    if spec.temps == "foreach" and not ctx.in_backward:
        temps = int(tr.total_params * state_element_bytes(ctx)) // ctx.shards.state
        formula = "foreach step: one temporary the size of the whole state tensor list (_foreach_sqrt)"
        formula_zh = "foreach 更新：一个与全部状态张量列表同样大小的临时张量（_foreach_sqrt）"
    elif spec.temps == "loop":
        temps = tr.largest * tr.element_bytes * 2
        formula = "for-loop step: temporaries of the largest parameter"
        formula_zh = "逐参数循环更新：最大参数大小的临时张量"
    elif spec.temps == "fp32_loop":
        temps = tr.largest * 4 * 3
        formula = "Adafactor step: fp32 copies of the largest parameter, its gradient and the update"
        formula_zh = "Adafactor 更新：最大参数、其梯度和更新量的 fp32 拷贝"
    else:
        temps, formula, formula_zh = 0, "fused step: no large temporaries", "fused 更新：没有大的临时张量"
    if master_weights(ctx) is not None:
        # DeepSpeed's step converts the 16-bit gradient partition to fp32: estimate_zero2/zero3_model_states_
        # mem_needs count 18 B per param over the GPUs = 2 (16-bit grads) + 4 (fp32 grads) + 4 (fp32 params) + 8
        part = ctx.trainable.total_params // ctx.shards.state
        sub_group = ""
        if ctx.run.zero_stage >= 3 and part > DS_SUB_GROUP:
            # ZeRO-3 steps its partition one sub_group at a time (stage3.py: _prepare_fp32_grad_for_sub_group
            # builds that sub_group's fp32 gradients, _release_sub_group drops them after its step)
            part = DS_SUB_GROUP
            sub_group = f" (ZeRO-3: one sub_group of {DS_SUB_GROUP:.0e} elements at a time)"
        fp32_grads = part * 4
        temps += fp32_grads
        formula += f"; fp32 gradient partition of the DeepSpeed step: {fp32_grads / 2**30:.2f} GiB{sub_group}"
        formula_zh += f"；DeepSpeed 更新时的 fp32 梯度分区：{fp32_grads / 2**30:.2f} GiB" + (
            f"（ZeRO-3：每次一个 {DS_SUB_GROUP:.0e} 个元素的 sub_group）" if sub_group else ""
        )
    return Component("optimizer_temps", 0 if ctx.shards.offload_state else temps, formula, formula_zh)
