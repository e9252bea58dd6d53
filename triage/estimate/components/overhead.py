"""Memory outside PyTorch's allocated counter: CUDA context, cuBLAS workspaces, allocator slack,
NCCL buffers and other processes, each as a low/expected/high :class:`~triage.estimate.records.BandItem`.

Sources (shared/reference/memory-formulas.md §1.8-1.9): the CUDA context is ~300-430 MB with
lazy module loading (CUDA >= 11.7, pytorch PR #86509) and 1.0-1.3 GB on pre-Ampere boards with
older CUDA (HF model_memory_anatomy: 1343 MB on a V100); the caching allocator's segments and
fragmentation add 0-50 % over the allocated peak (torchtune rows D25/D26; expandable segments
cut it); QLoRA's many mid-size quantized blocks leave 7-19 % of reserved slack in the replay of
shared/reference/exact-measurement.md; NCCL communicators take 0.2-1.5 GB per process.
"""

from __future__ import annotations

from triage.estimate.records import Band, BandItem, GiB, MiB
from triage.estimate.run import Run


def cuda_context(run: Run) -> BandItem:
    """The CUDA context and kernels of one process."""
    cc = run.gpu.capability if run.gpu else None
    if cc is not None and cc < 8.0:
        return BandItem(
            "cuda_context",
            int(0.4 * GiB),
            int(0.8 * GiB),
            int(1.5 * GiB),
            "CUDA context and kernels per process; 1.0-1.3 GB on pre-Ampere boards with older CUDA "
            "(HF model_memory_anatomy: 1343 MB on a V100), ~0.3-0.5 GB with lazy loading",
            "每个进程的 CUDA 上下文和内核；Ampere 之前的显卡配旧版 CUDA 时为 1.0-1.3 GB"
            "（HF model_memory_anatomy：V100 上 1343 MB），懒加载时约 0.3-0.5 GB",
        )
    return BandItem(
        "cuda_context",
        int(0.25 * GiB),
        int(0.5 * GiB),
        int(1.0 * GiB),
        "CUDA context per process: ~300-430 MB with lazy module loading (CUDA >= 11.7, "
        "PyTorch >= 1.13; pytorch PR #86509), up to ~1 GB without it",
        "每个进程的 CUDA 上下文：模块懒加载时约 300-430 MB（CUDA >= 11.7、PyTorch >= 1.13；"
        "pytorch PR #86509），不懒加载时最多约 1 GB",
    )


def cublas_workspace(run: Run) -> BandItem:
    """cuBLAS/cuBLASLt workspaces (larger on Hopper)."""
    cc = run.gpu.capability if run.gpu else None
    hopper = cc is not None and cc >= 9.0
    return BandItem(
        "cublas_workspace",
        8 * MiB,
        (32 if hopper else 16) * MiB,
        (96 if hopper else 64) * MiB,
        "cuBLAS/cuBLASLt workspaces (allocated through the caching allocator on a GPU; the "
        "fake-tensor oracle does not see them)",
        "cuBLAS/cuBLASLt 工作区（在 GPU 上经缓存分配器分配；fake-tensor 基准看不到它们）",
    )


def _fragmentation(run: Run) -> tuple[tuple[float, float, float], str, str]:
    """Allocator slack as fractions (low, expected, high) of the allocated peak, and why (English, Chinese)."""
    if run.expandable_segments:
        return (
            (0.0, 0.01, 0.03),
            "expandable_segments:True maps pages into one growing segment, so little is lost to fragmentation",
            "expandable_segments:True 把页映射进一个不断增长的段，碎片损失很少",
        )
    if run.method == "full":
        frac = (0.005, 0.06, 0.12)
        why = "caching-allocator segments and fragmentation: 0.5-12% over the allocated peak for full fine-tuning"
        why_zh = "缓存分配器的段和碎片：全参数微调时比已分配峰值多 0.5-12%"
    else:
        frac = (0.01, 0.04, 0.08)
        why = "caching-allocator segments and fragmentation: 1-8% over the allocated peak for LoRA"
        why_zh = "缓存分配器的段和碎片：LoRA 时比已分配峰值多 1-8%"
    if run.padded:
        frac = (frac[0], frac[1] * 1.5, max(frac[2], 0.3))
        why += "; padded batches of varying length fragment more (up to ~30-50%)"
        why_zh += "；长度不一的 padding batch 碎片更多（最多约 30-50%）"
    return frac, why, why_zh


def allocator(run: Run, allocated: int, weights_bytes: int) -> BandItem:
    """The caching allocator's segments and fragmentation over the allocated peak."""
    frac, why, why_zh = _fragmentation(run)
    lo, mid, hi = (allocated * f for f in frac)
    if run.quantization != "none" and not run.expandable_segments:
        # QLoRA's many mid-size quantized-weight allocations land in 20 MiB segments: the replay in
        # exact-measurement.md puts reserved 7-19% over allocated for QLoRA runs of 5-15 GiB
        qw = weights_bytes
        lo, mid, hi = lo + 0.06 * qw, mid + 0.14 * qw, hi + 0.25 * qw
        why += "; plus ~14% of the quantized weights (segment slack of QLoRA's many mid-size blocks)"
        why_zh += "；另加量化权重的约 14%（QLoRA 大量中等大小块的段余量）"
    return BandItem("allocator", int(lo), int(mid), int(hi), why, why_zh)


def device_band(run: Run, allocated: int, weights_bytes: int) -> Band:
    """What the device holds in total: the allocated peak plus every overhead, each explained."""
    items = [cuda_context(run), cublas_workspace(run), allocator(run, allocated, weights_bytes)]
    if run.gpu_count > 1 and run.distributed != "none":
        items.append(
            BandItem(
                "nccl",
                int(0.2 * GiB),
                int(0.5 * GiB),
                int(1.5 * GiB),
                "NCCL communicator buffers per process (up to several GB with many peers)",
                "每个进程的 NCCL 通信缓冲区（通信对象多时可达数 GB）",
            )
        )
    if run.other_process_bytes:
        n = run.other_process_bytes
        items.append(
            BandItem(
                "other_processes",
                n,
                n,
                n,
                "memory other processes hold on this GPU (from the OOM message)",
                "这块显卡上其他进程占用的显存（来自 OOM 报错信息）",
            )
        )
    return Band(
        allocated + sum(i.low for i in items),
        allocated + sum(i.expected for i in items),
        allocated + sum(i.high for i in items),
        tuple(items),
    )
