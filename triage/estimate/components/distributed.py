"""Distribution: how ZeRO/FSDP shard the state, and the communication buffers of DDP and ZeRO.

Formulas: ZeRO (arXiv 1910.02054) shards optimizer state at stage 1, gradients at stage 2 and
parameters at stage 3 over the d data-parallel GPUs (shared/reference/memory-formulas.md §1.2,
"Sharded variants"); FSDP FULL_SHARD is sized like ZeRO-3. DDP keeps its gradient buckets as a
second copy of the gradients (``gradient_as_bucket_view=False``, the default); HF's DeepSpeed
"auto" config sizes the reduce and all-gather buckets at hidden² elements each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from triage.estimate.records import Component
from triage.estimate.run import Run

if TYPE_CHECKING:
    from triage.estimate.components.context import Context


@dataclass(frozen=True)
class Sharding:
    """Over how many GPUs each kind of state is split, and what is offloaded to the CPU."""

    gpus: int
    deepspeed: bool
    state: int
    """Shard degree of the optimizer state and master weights (ZeRO >= 1)."""
    grads: int
    """Shard degree of the gradients (ZeRO >= 2)."""
    params: int
    """Shard degree of the weights (ZeRO-3, FSDP full shard)."""
    offload_state: bool
    offload_params: bool


def sharding(run: Run) -> Sharding:
    """The sharding of ``run``'s state (1 everywhere without DeepSpeed or FSDP)."""
    d = run.gpu_count
    ds, fsdp = run.distributed == "deepspeed", run.distributed == "fsdp"
    zero = ds or fsdp
    return Sharding(
        gpus=d,
        deepspeed=ds,
        state=d if zero and run.zero_stage >= 1 else 1,
        grads=d if zero and run.zero_stage >= 2 else 1,
        params=d if zero and run.zero_stage >= 3 else 1,
        offload_state=run.offload and zero,
        offload_params=run.offload and ((ds and run.zero_stage >= 3) or fsdp),
    )


def comm_buffers(ctx: Context) -> Component | None:
    """DDP gradient buckets or ZeRO reduce/all-gather buckets."""
    run, a = ctx.run, ctx.run.arch
    if run.distributed == "ddp" and ctx.shards.gpus > 1:
        return Component(
            "comm_buffers",
            ctx.trainable.gradient_bytes,
            "DDP gradient buckets: a second copy of the trainable gradients (gradient_as_bucket_view=False)",
            "DDP 梯度桶：可训练梯度的第二份拷贝（gradient_as_bucket_view=False）",
        )
    if ctx.shards.deepspeed and run.zero_stage >= 2:
        return Component(
            "comm_buffers",
            2 * a.hidden * a.hidden * run.e,
            "ZeRO reduce/all-gather buckets (HF 'auto': hidden² elements each)",
            "ZeRO 的 reduce/all-gather 桶（HF 'auto'：每个 hidden² 个元素）",
        )
    return None
