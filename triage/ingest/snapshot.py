"""Read a PyTorch CUDA memory snapshot and attribute the live memory to components.

The file is what ``torch.cuda.memory._dump_snapshot()`` writes (``triage.watch``
with ``snapshot=True`` dumps one at the OOM): a pickle of the dictionary that
``torch.cuda.memory._snapshot()`` documents (read in torch 2.13.0's
``torch/cuda/memory.py`` and ``torch/cuda/_memory_viz.py``)::

    {"segments": [{"device", "address", "total_size", "stream", "segment_type", "allocated_size",
                   "active_size", "blocks": [{"size", "requested_size", "address",
                                              "state": "active_allocated" | "active_awaiting_free" | "inactive",
                                              "frames": [{"filename", "line", "name"}, ...]}]}],
     "device_traces": [[{"action": "alloc" | "free_requested" | ... | "oom", "addr", "size",
                         "stream", "frames", "device_free" (oom only)}, ...] per device]}

A pickle can run code when it is loaded, so this reader never unpickles
anything but plain containers and primitives (dict, list, tuple, str, int,
float, bool, None): any class or function reference is refused before it is
looked up, and so is a file over :data:`SIZE_LIMIT`.

Attribution looks at each live block's allocation stack (:func:`component_of`):
a frame in ``torch/optim`` is optimizer state, ``transformers/cache_utils.py`` is
KV cache, model loading and ``Module.to`` are weights, the loss functions and
the model head are logits/loss, module forwards are activations, and the
autograd engine is gradients. It has been checked against snapshots built to
that documented format, **not yet against a snapshot taken on a real GPU**.
"""

from __future__ import annotations

import io
import os
import pickle
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from triage.ingest.errors import IngestError
from triage.ingest.found import Found

#: The components live memory is attributed to, in the order they are shown.
COMPONENTS = ("weights", "gradients", "optimizer_state", "activations", "logits_loss", "kv_cache", "other")
#: Snapshots grow with the recorded history (several KB per entry); past this, refuse rather than fill RAM.
SIZE_LIMIT = 512 * 1024 * 1024
#: Containers nested deeper than this are not a snapshot (frames sit at depth 6).
MAX_DEPTH = 32

_PLAIN = (dict, list, tuple, str, int, float, bool, type(None))


class _Refused(pickle.UnpicklingError):
    """Something the file asks for that this reader never builds."""


class _PlainUnpickler(pickle.Unpickler):
    """Builds only what pickle's own opcodes build; every global (class, function) is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise _Refused(f"it names {module}.{name}, and only plain data is read")

    def persistent_load(self, pid: Any) -> Any:
        raise _Refused("it refers to outside objects (persistent ids), and only plain data is read")


def _check_plain(data: Any, path: str) -> None:
    """Refuse anything but plain containers and primitives (sets, bytes, ...), iteratively."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, _PLAIN):
            raise IngestError(f"{path}: refused: it holds a {type(node).__name__}, and only plain data is read")
        if isinstance(node, (dict, list, tuple)):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if depth > MAX_DEPTH:
                raise IngestError(f"{path}: nested more than {MAX_DEPTH} levels deep; that is not a memory snapshot")
            items = [*node.keys(), *node.values()] if isinstance(node, dict) else node
            stack.extend((item, depth + 1) for item in items)


def load_plain(path: str, limit: int = SIZE_LIMIT) -> Any:
    """The data of a pickle file made only of plain containers; anything else -> one-line IngestError."""
    try:
        size = os.stat(path).st_size
        if size > limit:
            raise IngestError(f"{path} is {size / 2**20:.0f} MiB, over the {limit // 2**20} MiB a snapshot may have")
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise IngestError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise IngestError(f"{path} is over the {limit // 2**20} MiB a snapshot may have")
    try:
        data = _PlainUnpickler(io.BytesIO(raw)).load()
    except _Refused as exc:
        raise IngestError(f"{path}: refused: {exc}") from None
    except Exception as exc:  # a damaged pickle fails in many ways; each is the same answer to the user
        raise IngestError(f"{path}: not a readable pickle ({type(exc).__name__}: {exc})"[:300]) from None
    _check_plain(data, path)
    return data


@dataclass(frozen=True)
class LiveBlock:
    """One of the largest live allocations."""

    bytes: int
    component: str
    where: str
    """The innermost frame worth showing: ``modeling_llama.py:412:forward``."""


@dataclass(frozen=True)
class SnapshotMemory:
    """The live memory of one device at the snapshot, by component."""

    path: str
    device: int
    components: Mapping[str, int]
    """Bytes of live blocks (active_allocated and active_awaiting_free) per component of :data:`COMPONENTS`."""
    allocated: int
    reserved: int
    """Bytes of every segment (what ``torch.cuda.memory_reserved`` counts)."""
    without_stack: int
    """Live bytes whose block has no recorded stack (history was off when they were allocated): in ``other``."""
    requested: int | None = None
    """The allocation that failed (the last ``oom`` event of the device's trace)."""
    device_free: int | None = None
    """What CUDA reported free at that failure."""
    largest: tuple[LiveBlock, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


_MODELING = re.compile(r"(?:^|/)modeling_[^/]*\.py$")
_LOSS_NAMES = frozenset(
    {"cross_entropy", "nll_loss", "log_softmax", "ForCausalLMLoss", "fixed_cross_entropy", "loss_function",
     "ForMaskedLMLoss", "chunked_cross_entropy", "liger_cross_entropy"}
)  # fmt: skip
_GATHER_NAMES = frozenset({"nested_concat", "torch_pad_and_concatenate", "_nested_gather", "gather_function"})
_LOAD_NAMES = frozenset(
    {"from_pretrained", "_load_pretrained_model", "load_state_dict", "_load_state_dict_into_meta_model",
     "load_checkpoint_and_dispatch", "dispatch_model", "set_module_tensor_to_device", "get_peft_model",
     "inject_adapter", "update_layer", "prepare_model_for_kbit_training", "merge_and_unload", "_move_model_to_device"}
)  # fmt: skip
_MODULE_CASTS = frozenset({"_apply", "to", "cuda", "half", "bfloat16", "float", "to_empty"})
_GRAD_MARKS = ("autograd", "AccumulateGrad", "evaluate_function", "_engine_run_backward")


#: ``torch/optim/adam.py(139): _init_group``: how a frame reads when torch.cuda._memory_viz builds the snapshot
#: from a ``torch.profiler`` memory profile (``filename`` is then ``"none"``).
_PROFILER_NAME = re.compile(r"^(.+?\.py)\((\d+)\): (.+)$")


def _frame(f: Any) -> tuple[str, str]:
    if not isinstance(f, Mapping):
        return "", ""
    filename, name = str(f.get("filename") or "").replace("\\", "/"), str(f.get("name") or "")
    if filename in ("", "none"):
        m = _PROFILER_NAME.match(name)
        if m:
            return m.group(1).replace("\\", "/"), m.group(3)
    return filename, name


def component_of(frames: Sequence[Any]) -> str:
    """The component an allocation belongs to, from its stack (frames in any order)."""
    fr = [(f if f.startswith("/") or not f else "/" + f, n) for f, n in map(_frame, frames)]
    if not fr:
        return "other"
    files = [f for f, _ in fr]
    names = [n for _, n in fr]
    if any(f.endswith("cache_utils.py") for f in files):
        return "kv_cache"
    if any("/torch/optim/" in f or "bitsandbytes/optim" in f or "deepspeed/ops/adam" in f for f in files):
        return "optimizer_state"
    if any(n in _LOAD_NAMES for n in names) or any(
        n in _MODULE_CASTS and f.endswith("torch/nn/modules/module.py") for f, n in fr
    ):
        return "weights"
    if any(n in _LOSS_NAMES for n in names) or any(f.endswith("loss/loss_utils.py") for f in files):
        return "logits_loss"
    modeling = sum(1 for f in files if _MODELING.search(f))
    recompute = any(f.endswith("torch/utils/checkpoint.py") for f in files)
    if modeling == 1 and not recompute:
        return "logits_loss"  # inside the *ForCausalLM forward but not its inner model: the head, the upcast logits
    if modeling or recompute or any(f.endswith("torch/nn/modules/module.py") for f in files):
        return "activations"
    if any(n in _GATHER_NAMES for n in names):
        return "logits_loss"  # evaluation's accumulated predictions
    if any(any(m in f or m in n for m in _GRAD_MARKS) for f, n in fr) or "backward" in names:
        return "gradients"
    return "other"


def _where(frames: Sequence[Any]) -> str:
    """The first frame (innermost, as torch records them) from Python source outside torch's own internals."""
    for f in frames:
        name, func = _frame(f)
        if name.endswith(".py") and "/torch/" not in name and not name.startswith("torch/"):
            line = f.get("line") if isinstance(f, Mapping) else None
            return f"{name.rsplit('/', 1)[-1]}:{line}:{func}" if line else f"{name.rsplit('/', 1)[-1]}:{func}"
    for f in frames:
        name, func = _frame(f)
        if func:
            return f"{name.rsplit('/', 1)[-1]}:{func}" if name else func
    return "(no stack recorded)"


def _int(value: Any, where: str, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise IngestError(f"{path}: not a PyTorch memory snapshot ({where} is not a size)")
    return value


def attribute(data: Any, path: str = "snapshot") -> SnapshotMemory:
    """The live memory of the snapshot's device (the one that ran out, else the fullest), by component."""
    if not isinstance(data, Mapping) or not isinstance(data.get("segments"), list):
        raise IngestError(
            f"{path}: not a PyTorch memory snapshot (no 'segments' list; torch.cuda.memory._dump_snapshot writes one)"
        )
    traces = data.get("device_traces")
    traces = traces if isinstance(traces, list) else []
    ooms: dict[int, Mapping[str, Any]] = {}
    for dev, trace in enumerate(traces):
        if isinstance(trace, list):
            for event in trace:
                if isinstance(event, Mapping) and event.get("action") == "oom":
                    ooms[dev] = event
    per_device: dict[int, list[Mapping[str, Any]]] = {}
    for i, seg in enumerate(data["segments"]):
        if not isinstance(seg, Mapping) or not isinstance(seg.get("blocks"), list):
            raise IngestError(f"{path}: not a PyTorch memory snapshot (segments[{i}] has no 'blocks' list)")
        dev = seg.get("device", 0)
        per_device.setdefault(dev if isinstance(dev, int) and not isinstance(dev, bool) else 0, []).append(seg)
    notes: list[str] = []
    if not per_device:
        raise IngestError(f"{path}: the snapshot has no memory segments (was it taken on a device with CUDA memory?)")
    if ooms:
        device = max(ooms) if len(ooms) > 1 else next(iter(ooms))
        if device not in per_device:
            device = next(iter(per_device))
    else:
        device = max(per_device, key=lambda d: _active(per_device[d], path))
        notes.append("no out-of-memory event in the snapshot's trace: it shows the memory when it was taken")
    if len(per_device) > 1:
        notes.append(f"the snapshot holds {len(per_device)} devices; device {device} is shown")
    components = dict.fromkeys(COMPONENTS, 0)
    allocated = reserved = bare = 0
    blocks: list[LiveBlock] = []
    for i, seg in enumerate(per_device[device]):
        reserved += _int(seg.get("total_size", 0), f"segments[{i}].total_size", path)
        for j, block in enumerate(seg["blocks"]):
            if not isinstance(block, Mapping):
                raise IngestError(f"{path}: not a PyTorch memory snapshot (segments[{i}].blocks[{j}] is not a block)")
            if block.get("state") not in ("active_allocated", "active_awaiting_free"):
                continue
            size = _int(block.get("size"), f"segments[{i}].blocks[{j}].size", path)
            frames = block.get("frames")
            frames = frames if isinstance(frames, list) else []
            if not frames:
                bare += size
            comp = component_of(frames)
            components[comp] += size
            allocated += size
            blocks.append(LiveBlock(size, comp, _where(frames)))
    if bare and allocated and bare / allocated > 0.5:
        notes.append(
            "most live memory has no allocation stack: memory history was turned on after it was allocated "
            "(call torch.cuda.memory._record_memory_history() before loading the model)"
        )
    oom = ooms.get(device)
    requested = device_free = None
    if oom is not None:
        requested = oom.get("size") if isinstance(oom.get("size"), int) else None
        device_free = oom.get("device_free") if isinstance(oom.get("device_free"), int) else None
    largest = tuple(sorted(blocks, key=lambda b: -b.bytes)[:5])
    return SnapshotMemory(
        path, device, components, allocated, reserved, bare, requested, device_free, largest, tuple(notes)
    )


def _active(segments: list[Mapping[str, Any]], path: str) -> int:
    total = 0
    for seg in segments:
        for block in seg["blocks"]:
            if isinstance(block, Mapping) and block.get("state") == "active_allocated":
                total += _int(block.get("size"), "a block's size", path)
    return total


def read_snapshot(path: str) -> SnapshotMemory:
    """Load ``path`` with the plain-data unpickler and attribute its live memory."""
    return attribute(load_plain(path), path)


def snapshot_findings(snap: SnapshotMemory) -> list[Found]:
    """The allocator's numbers at the failure, as readings (exact, like the OOM message's)."""
    said = f"memory snapshot, device {snap.device}"
    out = [
        Found("torch_allocated_bytes", snap.allocated, None, f"{said}: live blocks"),
        Found(
            "torch_reserved_unallocated_bytes",
            max(0, snap.reserved - snap.allocated),
            None,
            f"{said}: segments - live blocks",
        ),
    ]
    if snap.requested is not None:
        out.append(Found("oom_requested_bytes", snap.requested, None, f"{said}: oom event size"))
        out.append(Found("error_kind", "cuda_oom", None, f"{said}: oom event"))
    if snap.device_free is not None:
        out.append(Found("oom_free_bytes", snap.device_free, None, f"{said}: oom event device_free"))
    return out
