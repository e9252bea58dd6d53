"""The model's weights: their dtype or quantization, what ZeRO-3/FSDP/device_map keep on one GPU,
and the compute-dtype copies autocast keeps.

Formulas (shared/reference/memory-formulas.md §1.1):

* fp32 4 B, fp16/bf16 2 B per parameter (HF model_memory_anatomy).
* bitsandbytes NF4 quantizes only the linears inside the decoder blocks: 0.5 B plus an fp32
  absmax per 64-element block (0.5625 B), or 0.5 + 1/64 + 4/(64·256) = 0.5159 B with double
  quantization (QLoRA, arXiv 2305.14314). LLM.int8 is 1 B plus an fp32 scale per output row.
  Embeddings, lm_head and norms stay at ``torch_dtype``.
* peft's ``prepare_model_for_kbit_training`` casts every non-4-bit parameter to fp32
  ("cast all non INT8 parameters to fp32", peft/utils/other.py).
* ZeRO-3 / FSDP full shard keep 1/d of the weights plus the gathered working set (two decoder
  layers and the embedding); ``device_map`` model parallelism splits the layers.
* autocast (fp32 weights, 16-bit compute) keeps a 16-bit copy of each linear weight for
  backward (one layer at a time with checkpointing).
"""

from __future__ import annotations

from triage.estimate.components.distributed import Sharding
from triage.estimate.records import Component
from triage.estimate.run import Run


def _quantized(run: Run) -> tuple[int, str, str]:
    """Bytes and formula (English, Chinese) of a 4-bit or 8-bit base model."""
    a = run.arch
    lin = a.linear_params()
    other = a.total_params() - lin
    other_bytes = 4 if run.prepare_kbit else run.w_bytes
    if run.quantization == "4bit":
        per = 0.5 + (1 / 64 + 4 / (64 * 256) if run.double_quant else 4 / 64)
        qbytes = int(lin * per)
        formula = (
            f"{lin:,} block-linear params x {per:.4f} B (NF4{' + double quant' if run.double_quant else ''})"
            f" + {other:,} embedding/lm_head/norm params x {other_bytes} B"
        )
        formula_zh = (
            f"{lin:,} 个块内线性层参数 x {per:.4f} B（NF4{' + 双重量化' if run.double_quant else ''}）"
            f" + {other:,} 个 embedding/lm_head/norm 参数 x {other_bytes} B"
        )
    else:
        rows = a.layers * sum(x.d_out for x in a.linears())
        qbytes = lin + 4 * rows
        formula = (
            f"{lin:,} block-linear params x 1 B (int8) + fp32 row scales + {other:,} other params x {other_bytes} B"
        )
        formula_zh = f"{lin:,} 个块内线性层参数 x 1 B（int8）+ fp32 行缩放 + {other:,} 个其他参数 x {other_bytes} B"
    if run.prepare_kbit:
        formula += " (prepare_model_for_kbit_training upcasts these to fp32)"
        formula_zh += "（prepare_model_for_kbit_training 会把这些转成 fp32）"
    return qbytes + other * other_bytes, formula, formula_zh


def weights(run: Run) -> Component:
    """All the model's weights, as loaded."""
    if run.quantization in ("4bit", "8bit"):
        return Component("weights", *_quantized(run))
    n = run.arch.total_params()
    if run.prepare_kbit:
        return Component(
            "weights",
            4 * n,
            f"{n:,} params x 4 B: prepare_model_for_kbit_training on a "
            "model that is not quantized casts every fp16/bf16 weight to fp32",
            f"{n:,} 个参数 x 4 B：对没有量化的模型调用 prepare_model_for_kbit_training "
            "会把每个 fp16/bf16 权重转成 fp32",
        )
    return Component(
        "weights",
        n * run.w_bytes,
        f"{n:,} params x {run.w_bytes} B ({run.weight_dtype})",
        f"{n:,} 个参数 x {run.w_bytes} B（{run.weight_dtype}）",
    )


def live_weights(run: Run, shards: Sharding, loaded: Component) -> Component:
    """The weights one GPU holds: all of them, or a ZeRO-3/FSDP shard, or its layers of a device_map split."""
    a, w = run.arch, run.w_bytes
    if run.distributed == "model_parallel" and shards.gpus > 1:
        d = shards.gpus
        per_layer = loaded.bytes - a.embedding_params() * w - a.lm_head_params() * w
        return Component(
            "weights",
            per_layer // d + (a.lm_head_params() or a.embedding_params()) * w,
            f"{loaded.formula}; layers split over {d} GPUs (device_map), the last GPU also holds lm_head",
            f"{loaded.formula_zh}；各层分到 {d} 张卡上（device_map），最后一张卡还放着 lm_head",
        )
    if shards.params > 1 or shards.offload_params:
        # FSDP's MixedPrecision gathers the shards in the compute dtype (accelerate sets param_dtype from
        # mixed_precision); DeepSpeed's 16-bit mode has the weights in it already
        gathered = run.e if run.quantization == "none" else w
        working = 2 * a.layer_params() * gathered + a.vocab * a.hidden * gathered
        base = 0 if shards.offload_params else loaded.bytes // shards.params
        return Component(
            "weights",
            base + working,
            f"{loaded.formula}; sharded over {shards.params} GPUs"
            + (" and offloaded to CPU" if shards.offload_params else "")
            + " + gathered working set (two decoder layers and the embedding)",
            f"{loaded.formula_zh}；分片到 {shards.params} 张卡"
            + ("并 offload 到 CPU" if shards.offload_params else "")
            + " + 聚合后的工作集（两个解码层和 embedding）",
        )
    return loaded


def autocast_copies(run: Run) -> Component | None:
    """Compute-dtype copies of the linear weights that autocast keeps for backward."""
    if run.compute_dtype == run.weight_dtype or run.quantization != "none":
        return None
    if run.distributed == "fsdp" and run.gpu_count > 1:
        return None  # FSDP's MixedPrecision hands the layers their weights already cast to the compute dtype
    a = run.arch
    cast_params = (a.linear_params() // a.layers if run.gc else a.linear_params()) + a.vocab * a.hidden
    return Component(
        "autocast_copies",
        cast_params * run.e,
        f"autocast keeps {run.compute_dtype} copies of the {run.weight_dtype} "
        "linear weights for backward" + (" (one layer at a time with checkpointing)" if run.gc else ""),
        f"autocast 为反向保留 {run.weight_dtype} 线性层权重的 {run.compute_dtype} 拷贝"
        + ("（开启检查点时一次一层）" if run.gc else ""),
    )
