"""Trainable state: which parameters the run trains, their LoRA adapters, modules_to_save copies and gradients.

Formulas (shared/reference/memory-formulas.md §1.2):

* LoRA adds ``r·(d_in + d_out)`` parameters per targeted linear and layer, checked against the
  logged counts of litgpt, torchtune and peft (Llama-2-7B, r=8 on q,v: 4,194,304). peft's
  ``autocast_adapter_dtype=True`` (peft >= 0.12.0) keeps them in fp32 on a 16-bit base: 4 B each;
  earlier releases give them the base weight's 16-bit dtype (``Run.adapter_bytes``).
* ``modules_to_save`` keeps a trainable copy of each named embedding or head matrix (V x h).
* One gradient per trainable parameter, in the parameter's dtype (HF model_memory_anatomy);
  an optimizer fused into backward (LOMO, torchtune ``optimizer_in_bwd``) frees each gradient
  right after its update, so only the largest one is live. ZeRO-2/3 shard them over the GPUs.
* Tied embeddings in a full fine-tune: the embedding's gradient exists three times at the end of
  backward (measured with the fake-tensor oracle, shared/reference/exact-measurement.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from triage.estimate.records import Component
from triage.estimate.run import Run, RunError

if TYPE_CHECKING:
    from triage.estimate.components.context import Context

EMBED_NAMES = frozenset(
    {"embed_tokens", "wte", "embed_in", "word_embeddings", "embedding", "embeddings", "tok_embeddings"}
)
HEAD_NAMES = frozenset({"lm_head", "embed_out", "output_layer", "output"})


@dataclass(frozen=True)
class Trainable:
    """What the run trains."""

    params: int
    """Trainable parameters: the LoRA adapters, the trained layers, or the whole model."""
    param_bytes: int
    """Bytes per element of a trained weight of a full/freeze fine-tune (its dtype)."""
    element_bytes: int
    """Bytes per trainable element (LoRA adapters: ``Run.adapter_bytes``, else ``param_bytes``)."""
    shapes: tuple[tuple[int, int], ...]
    """2-D shapes of the trained matrices (for factored optimizers)."""
    largest: int
    """Elements of the largest trained matrix."""
    formula: str
    copies_bytes: int = 0
    """Bytes of the modules_to_save copies."""
    copies_params: int = 0
    formula_zh: str = ""
    """``formula`` in Chinese."""

    @property
    def total_params(self) -> int:
        return self.params + self.copies_params

    @property
    def gradient_bytes(self) -> int:
        """Every trainable parameter's gradient (before any sharding or fusing)."""
        return self.params * self.element_bytes + self.copies_bytes


def adapter_modules(run: Run) -> list[tuple[str, int, int, str]]:
    """(name, d_in, d_out, input_group) of every LoRA-targeted linear in one layer."""
    if not run.lora:
        return []
    linears = run.arch.linears()
    wanted = set(run.lora_targets)
    found = [(lin.name, lin.d_in, lin.d_out, lin.input_group) for lin in linears if lin.name in wanted]
    if not found:
        raise RunError(
            f"lora_target_modules {','.join(run.lora_targets)} match no module of {run.arch.name}; "
            f"its linears are {', '.join(lin.name for lin in linears)}"
        )
    return found


def unknown_targets(run: Run) -> set[str]:
    """LoRA targets that name no module of the model (ignored, as peft would fail on them)."""
    known = {x.name for x in run.arch.linears()} | EMBED_NAMES | HEAD_NAMES
    return set(run.lora_targets) - known


def param_bytes(run: Run) -> int:
    """Bytes per element of the trainable parameters of a full/freeze fine-tune."""
    return 4 if run.prepare_kbit else run.w_bytes


def _adapters(run: Run) -> Trainable:
    a = run.arch
    mods = adapter_modules(run)
    r = run.lora_r
    adapters = a.layers * sum(r * (d_in + d_out) for _, d_in, d_out, _ in mods)
    shapes = [(r, d_in) for _, d_in, _, _ in mods] * a.layers + [(d_out, r) for _, _, d_out, _ in mods] * a.layers
    largest = max(r * max(d_in, d_out) for _, d_in, d_out, _ in mods)
    names = ",".join(m[0] for m in mods)
    formula = f"{a.layers} layers x r={r} x sum(d_in+d_out) over {names} = {adapters:,} params"
    formula_zh = f"{a.layers} 层 x r={r} x {names} 的 sum(d_in+d_out) = {adapters:,} 个参数"
    if run.trainable_override:
        adapters = run.trainable_override
        formula = f"trainable_params_b = {adapters:,} params (given)"
        formula_zh = f"trainable_params_b = {adapters:,} 个参数（已给出）"
    e = run.adapter_bytes
    return Trainable(adapters, e, e, tuple(shapes), largest, formula, formula_zh=formula_zh)


def _weights_trained(run: Run) -> Trainable:
    a = run.arch
    p = param_bytes(run)
    if run.method == "freeze":
        k = min(run.freeze_layers_trained, a.layers)
        n = run.trainable_override or k * a.layer_params()
        shapes = [(x.d_out, x.d_in) for x in a.linears()] * k
        largest = max(x.d_in * x.d_out for x in a.linears())
        return Trainable(
            n,
            p,
            p,
            tuple(shapes),
            largest,
            f"last {k} decoder layers trainable = {n:,} params",
            formula_zh=f"最后 {k} 个解码层可训练 = {n:,} 个参数",
        )
    n = run.trainable_override or a.total_params()
    shapes = [(x.d_out, x.d_in) for x in a.linears()] * a.layers + [(a.vocab, a.hidden)] * (1 if a.tied else 2)
    return Trainable(
        n, p, p, tuple(shapes), a.vocab * a.hidden, f"all {n:,} params trainable", formula_zh=f"全部 {n:,} 个参数可训练"
    )


def trainable(run: Run) -> Trainable:
    """The trainable parameters of ``run`` (adapters, trained layers or all), with modules_to_save."""
    found = _adapters(run) if run.lora else _weights_trained(run)
    copies = modules_to_save(run)
    if copies is None:
        return found
    params = copies.bytes // (4 if run.prepare_kbit else run.w_bytes)
    return Trainable(
        found.params,
        found.param_bytes,
        found.element_bytes,
        found.shapes,
        found.largest,
        found.formula,
        copies.bytes,
        params,
        found.formula_zh,
    )


def lora_adapters(ctx: Context) -> Component | None:
    """The LoRA adapter weights on this GPU: fp32 (peft ``autocast_adapter_dtype``), 16-bit before peft 0.12.

    FSDP full shard and ZeRO-3 shard every parameter, the adapters included (FSDP flattens each
    wrapped unit's parameters into one sharded FlatParameter; ZeRO-3 partitions all of them), and
    FSDP ``cpu_offload`` / ZeRO-3 ``offload_param`` keep those shards on the CPU, adapters too.
    """
    if not ctx.run.lora:
        return None
    tr, shards = ctx.trainable, ctx.shards
    e = tr.element_bytes
    size = tr.params * e
    if e == 4:
        formula = f"{tr.formula} x 4 B (fp32 adapters, peft autocast_adapter_dtype)"
        formula_zh = f"{tr.formula_zh} x 4 B（fp32 的 adapter，peft autocast_adapter_dtype）"
    else:
        formula = f"{tr.formula} x {e} B (adapters in the base weights' dtype: peft before 0.12)"
        formula_zh = f"{tr.formula_zh} x {e} B（adapter 与基座权重同 dtype：peft 0.12 之前）"
    if shards.offload_params:
        size = 0
        formula += "; sharded and offloaded to CPU with the other parameters"
        formula_zh += "；与其他参数一起分片并 offload 到 CPU"
    elif shards.params > 1:
        size //= shards.params
        formula += f" / {shards.params} GPUs (sharded with the other parameters)"
        formula_zh += f" / {shards.params} 张卡（与其他参数一起分片）"
    return Component("lora_adapters", size, formula, formula_zh)


def modules_to_save(run: Run) -> Component | None:
    """Trainable copies of the embedding/head matrices that peft's modules_to_save names."""
    if not run.lora or not run.modules_to_save:
        return None
    a = run.arch
    count = sum(1 for m in run.modules_to_save if m in EMBED_NAMES | HEAD_NAMES)
    n = count * a.vocab * a.hidden
    dtype = 4 if run.prepare_kbit else run.w_bytes
    if not n * dtype:
        return None
    return Component(
        "modules_to_save",
        n * dtype,
        f"{count} trainable copies (modules_to_save) of a {a.vocab}x{a.hidden} matrix x {dtype} B = {n:,} params",
        f"{a.vocab}x{a.hidden} 矩阵的 {count} 份可训练拷贝（modules_to_save）x {dtype} B = {n:,} 个参数",
    )


def gradients(ctx: Context) -> Component:
    """Gradients live at the end of backward: all of them, one (fused step), sharded or offloaded."""
    run, tr, shards = ctx.run, ctx.trainable, ctx.shards
    if ctx.in_backward:
        grads = tr.largest * tr.element_bytes
        note = "optimizer step fused into backward: only one parameter's gradient at a time"
        note_zh = "优化器更新融合进反向传播：同一时刻只有一个参数的梯度"
    else:
        grads = tr.gradient_bytes
        note = f"{tr.total_params:,} trainable params x {tr.element_bytes} B"
        note_zh = f"{tr.total_params:,} 个可训练参数 x {tr.element_bytes} B"
    if run.lora and run.framework == "litgpt" and run.distributed == "fsdp" and shards.gpus > 1:
        # litgpt wraps each Block (frozen base and LoRA together) in one FSDP unit: FSDP1 with
        # use_orig_params then keeps gradient memory as if nothing were frozen (torch FSDP docstring:
        # mixing frozen and non-frozen parameters causes "higher than expected gradient memory usage")
        grads = run.arch.total_params() * run.w_bytes
        note = f"{run.arch.total_params():,} params x {run.w_bytes} B: FSDP units mix frozen and LoRA parameters"
        note_zh = f"{run.arch.total_params():,} 个参数 x {run.w_bytes} B：FSDP 单元里冻结参数和 LoRA 参数混在一起"
    if shards.grads > 1 and run.distributed == "fsdp" and run.grad_accum > 1:
        note += (
            "; not sharded: gradient accumulation runs under FSDP no_sync, which keeps the full unsharded "
            "gradients until the sync step (torch FSDP.no_sync docstring; accelerate's sync_each_batch avoids it)"
        )
        note_zh += (
            "；没有分片：梯度累积在 FSDP no_sync 下进行，同步之前一直保留完整未分片的梯度"
            "（torch FSDP.no_sync 的文档；accelerate 的 sync_each_batch 可以避免）"
        )
    elif shards.grads > 1:
        grads //= shards.grads
        note += f" / {shards.grads} GPUs (ZeRO-{run.zero_stage})"
        note_zh += f" / {shards.grads} 张卡（ZeRO-{run.zero_stage}）"
    if shards.offload_state and run.zero_stage >= 2:
        grads = 0
        note += "; offloaded to CPU after reduction"
        note_zh += "；归约后 offload 到 CPU"
    return Component("gradients", grads, note, note_zh)


def tied_embedding_grads(ctx: Context) -> Component | None:
    """Two extra copies of a tied embedding's gradient at the end of a full fine-tune's backward.

    At the end of backward the embedding's gradient exists three times at once (the lm_head use
    already in .grad, the embedding backward's output and their sum), measured with the
    fake-tensor oracle (docs/validation.md).
    """
    run, a = ctx.run, ctx.run.arch
    if run.method != "full" or not a.tied or ctx.in_backward or ctx.shards.grads != 1:
        return None
    p = param_bytes(run)
    return Component(
        "tied_embedding_grads",
        2 * a.vocab * a.hidden * p,
        f"tied embeddings: 2 extra copies of the embedding gradient at the "
        f"end of backward: 2 x V={a.vocab} x h={a.hidden} x {p} B",
        f"共享的嵌入：反向结束时嵌入梯度多出 2 份：2 x V={a.vocab} x h={a.hidden} x {p} B",
    )
