"""What the watcher records: the run's settings at the start, and the live stack and memory at the OOM.

Nothing here imports torch or transformers at import time: torch is taken from
``sys.modules`` when the run has imported it (an OOM from torch means it has),
so ``import triage.watch`` stays light. The report is checked against
:class:`triage.ingest.report.Report` before it is written, so the watcher can
only write what ``triage diagnose --report`` reads.
"""

from __future__ import annotations

import datetime
import enum
import importlib.metadata
import math
import os
import platform
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from triage import __version__
from triage.ingest.report import Batch, ExceptionInfo, Frame, Gpu, MemoryAtOom, Parameters, Report, TrainerInfo

#: Installed packages whose versions go into the report (distribution names).
PACKAGES = ("torch", "transformers", "peft", "trl", "accelerate", "bitsandbytes", "deepspeed", "flash-attn")
#: Frames of the traceback kept in the report.
TRACEBACK_FRAMES = 60
MESSAGE_LIMIT = 4000


def _is_oom_itself(exc: BaseException) -> bool:
    if any(cls.__name__ == "OutOfMemoryError" for cls in type(exc).__mro__):
        return True
    if isinstance(exc, RuntimeError):
        text = str(exc).lower()
        return "out of memory" in text or "cublas_status_alloc_failed" in text
    return False


def is_oom(exc: BaseException) -> bool:
    """``torch.OutOfMemoryError`` / ``torch.cuda.OutOfMemoryError`` (any subclass), an old torch's RuntimeError,
    or an exception raised while handling one (accelerate's ``No executable batch size found``, a wrapper's)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 8:
        if _is_oom_itself(current):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


# ---------------------------------------------------------------------------------------------------------------
# the live stack


def frames_of(tb: TracebackType | None) -> list[FrameType]:
    """The traceback's frames, outermost first."""
    out = []
    while tb is not None:
        out.append(tb.tb_frame)
        tb = tb.tb_next
    return out


def _path(filename: str) -> str:
    return filename.replace("\\", "/")


def _in(filename: str, *parts: str) -> bool:
    name = _path(filename)
    return any(p in name for p in parts)


_SAVING = frozenset(
    {"save_model", "_save_checkpoint", "_save", "save_pretrained", "save_state", "_save_optimizer_and_scheduler"}
)
_EVALUATION = frozenset({"evaluate", "evaluation_loop", "prediction_step", "predict", "prediction_loop"})
_LOADING = frozenset({"from_pretrained", "_load_pretrained_model", "load_state_dict", "_load_from_checkpoint"})


def _phase_rules() -> list[tuple[str, Callable[[str, str], bool]]]:
    """(phase, test on (filename, function)), in priority order: the outer context beats the inner step."""
    return [
        ("saving", lambda f, n: n in _SAVING),
        ("generation", lambda f, n: n == "generate" or _in(f, "transformers/generation/")),
        ("evaluation", lambda f, n: n in _EVALUATION),
        ("merging", lambda f, n: n in ("merge_and_unload", "merge_adapter")),
        ("loading", lambda f, n: n in _LOADING),
        (
            "optimizer",
            lambda f, n: (
                _in(f, "/torch/optim/", "bitsandbytes/optim", "deepspeed/ops/adam")
                or (
                    n == "step"
                    and _in(f, "accelerate/optimizer.py", "transformers/optimization.py", "deepspeed/runtime/")
                )
            ),
        ),
        (
            "backward",
            lambda f, n: (
                (n == "backward" and _in(f, "torch/autograd/", "torch/_tensor.py", "accelerate/", "deepspeed/"))
                or n in ("_engine_run_backward", "run_backward")
            ),
        ),
        (
            "forward",
            lambda f, n: (
                (n in ("_call_impl", "_wrapped_call_impl") and _in(f, "torch/nn/modules/module.py"))
                or n in ("compute_loss", "forward")
            ),
        ),
        ("training", lambda f, n: n in ("training_step", "_inner_training_loop", "train")),
    ]


def phase_of(frames: list[tuple[str, str]]) -> tuple[str | None, str | None]:
    """The phase (a value of the ``phase`` fact) and the frame that says so, from (filename, function) pairs."""
    for phase, test in _phase_rules():
        for filename, name in reversed(frames):  # innermost first within a rule
            if test(filename, name):
                short = "/".join(_path(filename).split("/")[-3:])
                return phase, f"{short}:{name}"
    return None, None


def _shape(value: Any) -> list[int] | None:
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    try:
        dims = [int(d) for d in shape]
    except (TypeError, ValueError):
        return None
    return dims or None


def batch_of(frames: list[FrameType]) -> Batch | None:
    """``input_ids.shape`` of the batch in flight: the innermost frame with ``input_ids`` or ``inputs['input_ids']``."""
    for frame in reversed(frames):
        local = frame.f_locals
        candidates = [local.get("input_ids")]
        for name in ("inputs", "batch", "model_inputs"):
            value = local.get(name)
            if isinstance(value, Mapping):
                candidates.append(value.get("input_ids"))
        for value in candidates:
            dims = _shape(value) if value is not None else None
            if dims:
                return Batch(shape=dims, frame=frame.f_code.co_name)
    return None


def _is_trainer(obj: Any) -> bool:
    return any(
        cls.__name__.endswith("Trainer") and cls.__module__.split(".")[0] in ("transformers", "trl")
        for cls in type(obj).__mro__
    )


def trainer_of(frames: list[FrameType]) -> Any:
    """The transformers/TRL Trainer whose method is on the stack (its ``self``), or None."""
    for frame in frames:
        candidate = frame.f_locals.get("self")
        if candidate is not None and _is_trainer(candidate):
            return candidate
    return None


# ---------------------------------------------------------------------------------------------------------------
# settings


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data: containers kept, enums by value, sets sorted, anything else as text."""
    if depth > 20:
        return str(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, enum.Enum):
        return plain(value.value, depth + 1)
    if isinstance(value, Mapping):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(str(v) for v in value)
    return str(value)


def _to_dict(obj: Any) -> dict[str, Any] | None:
    if obj is None:
        return None
    convert = getattr(obj, "to_dict", None)
    if callable(convert):
        data = convert()
    elif isinstance(obj, Mapping):
        data = dict(obj)
    else:
        return None
    out = plain(data)
    return out if isinstance(out, dict) else None


def _peft_config(model: Any) -> dict[str, Any] | None:
    configs = getattr(model, "peft_config", None)
    if not isinstance(configs, Mapping) or not configs:
        return None
    active = getattr(model, "active_adapter", None)
    name = active if isinstance(active, str) and active in configs else next(iter(configs))
    return _to_dict(configs[name])


def _parameters(model: Any) -> Parameters | None:
    count = getattr(model, "get_nb_trainable_parameters", None)
    if callable(count):
        trainable, total = count()
        return Parameters(total=int(total), trainable=int(trainable))
    params = getattr(model, "parameters", None)
    if not callable(params):
        return None
    total = trainable = 0
    for p in params():
        n = int(p.numel())
        total += n
        trainable += n if p.requires_grad else 0
    return Parameters(total=total, trainable=trainable)


def _length(dataset: Any) -> int | None:
    if dataset is None:
        return None
    if isinstance(dataset, Mapping):
        parts = [_length(d) for d in dataset.values()]
        return sum(p for p in parts if p is not None) if parts and all(p is not None for p in parts) else None
    try:
        return len(dataset)
    except TypeError:
        return None


def _trainer_info(trainer: Any) -> TrainerInfo:
    cls = type(trainer)
    base = next(
        (c.__name__ for c in cls.__mro__ if c.__module__.split(".")[0] in ("transformers", "trl") and c is not cls),
        None,
    )
    own = cls.__module__.split(".")[0] in ("transformers", "trl")
    return TrainerInfo(
        class_name=cls.__name__,
        module=cls.__module__,
        base=None if own else base,
        compute_metrics=getattr(trainer, "compute_metrics", None) is not None,
        preprocess_logits_for_metrics=getattr(trainer, "preprocess_logits_for_metrics", None) is not None,
        train_samples=_length(getattr(trainer, "train_dataset", None)),
        eval_samples=_length(getattr(trainer, "eval_dataset", None)),
    )


def settings(
    *, args: Any = None, model: Any = None, trainer: Any = None, notes: list[str] | None = None
) -> dict[str, Any]:
    """The run's configuration: TrainingArguments, model config, peft config, parameter counts, the Trainer.

    A part that cannot be read (an unusual model or config object) is left out and said in ``notes``,
    so the rest of the report is still written.
    """
    if trainer is not None:
        args = args if args is not None else getattr(trainer, "args", None)
        model = model if model is not None else getattr(trainer, "model", None)
    parts: dict[str, Callable[[], Any]] = {
        "training_args": lambda: _to_dict(args),
        "model": lambda: _to_dict(getattr(model, "config", None)),
        "peft_config": lambda: _peft_config(model),
        "parameters": lambda: _parameters(model) if model is not None else None,
    }
    if trainer is not None:
        parts["trainer"] = lambda: _trainer_info(trainer)
    out: dict[str, Any] = {}
    for key, read in parts.items():
        try:
            out[key] = read()
        except Exception as exc:  # one unreadable part must not cost the whole report
            out[key] = None
            if notes is not None:
                notes.append(f"{key} could not be recorded: {type(exc).__name__}: {exc}"[:300])
    return out


# ---------------------------------------------------------------------------------------------------------------
# the machine


def versions() -> dict[str, str]:
    """Python and the installed versions of the packages that matter (from metadata: nothing is imported)."""
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def _torch() -> Any:
    """torch when the run imported it (the watcher never imports it for the run)."""
    return sys.modules.get("torch")


def world_size() -> int:
    torch = _torch()
    dist = getattr(torch, "distributed", None) if torch is not None else None
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_world_size())
    except (RuntimeError, ValueError):
        pass
    raw = os.environ.get("WORLD_SIZE", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 1


def cuda_available() -> bool:
    torch = _torch()
    return bool(torch is not None and torch.cuda.is_available())


def gpus() -> list[Gpu]:
    if not cuda_available():
        return []
    torch = _torch()
    out = []
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        out.append(
            Gpu(
                index=i,
                name=props.name,
                total_memory_bytes=int(props.total_memory),
                capability=f"{props.major}.{props.minor}",
            )
        )
    return out


def memory_at_oom() -> MemoryAtOom | None:
    """The allocator's counters on the current device (None without CUDA)."""
    if not cuda_available():
        return None
    torch = _torch()
    device = torch.cuda.current_device()
    stats = {str(k): v for k, v in torch.cuda.memory_stats(device).items() if isinstance(v, (int, float))}
    return MemoryAtOom(
        device=device,
        allocated_bytes=int(torch.cuda.memory_allocated(device)),
        reserved_bytes=int(torch.cuda.memory_reserved(device)),
        max_allocated_bytes=int(torch.cuda.max_memory_allocated(device)),
        max_reserved_bytes=int(torch.cuda.max_memory_reserved(device)),
        stats={k: v for k, v in stats.items() if not (isinstance(v, float) and not math.isfinite(v))},
    )


def _env() -> dict[str, str]:
    return {
        k: os.environ[k]
        for k in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "CUDA_VISIBLE_DEVICES")
        if k in os.environ
    }


def build(
    exc: BaseException,
    *,
    start: Mapping[str, Any] | None = None,
    trainer: Any = None,
    step: int | None = None,
    snapshot: str | None = None,
    notes: list[str] | None = None,
) -> Report:
    """The report of ``exc``: the settings recorded at the start (else the Trainer on the stack), the phase,
    step and batch from the stack, and the allocator's counters now."""
    frames = frames_of(exc.__traceback__)
    pairs = [(f.f_code.co_filename, f.f_code.co_name) for f in frames]
    phase, phase_frame = phase_of(pairs)
    found = trainer if trainer is not None else trainer_of(frames)
    recorded = dict(start or {})
    notes = [*(notes or []), *recorded.pop("notes", [])]
    if found is not None:
        now = settings(trainer=found, notes=notes)
        for key, value in now.items():
            if recorded.get(key) is None:
                recorded[key] = value
    state = getattr(found, "state", None)
    global_step = getattr(state, "global_step", None) if state is not None else None
    epoch = getattr(state, "epoch", None) if state is not None else None
    if global_step is None:
        global_step = step
    return Report(
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        triage_version=__version__,
        exception=ExceptionInfo(type=type(exc).__name__, module=type(exc).__module__, message=str(exc)[:MESSAGE_LIMIT]),
        phase=phase,  # type: ignore[arg-type]
        phase_frame=phase_frame,
        global_step=int(global_step) if isinstance(global_step, int) else None,
        epoch=float(epoch) if isinstance(epoch, (int, float)) and math.isfinite(epoch) else None,
        batch=batch_of(frames),
        training_args=recorded.get("training_args"),
        model=recorded.get("model"),
        peft_config=recorded.get("peft_config"),
        parameters=recorded.get("parameters"),
        trainer=recorded.get("trainer"),
        world_size=world_size(),
        versions=versions(),
        platform=platform.platform(),
        cuda_available=cuda_available(),
        gpus=gpus(),
        memory=memory_at_oom(),
        env=_env(),
        snapshot=snapshot,
        traceback=[Frame(filename=f, line=tb_line, name=n) for (f, n), tb_line in _lines(exc)][-TRACEBACK_FRAMES:],
        notes=notes,
    )


def _lines(exc: BaseException) -> Iterator[tuple[tuple[str, str], int]]:
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        yield (code.co_filename, code.co_name), tb.tb_lineno
        tb = tb.tb_next


def free_path(path: Path) -> Path:
    """``path``, or ``stem-1.suffix``, ``stem-2.suffix``... when it exists."""
    if not path.exists():
        return path
    for n in range(1, 10_000):
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        if not candidate.exists():
            return candidate
    raise FileExistsError(f"{path} and 9,999 numbered copies exist")


def write_new(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` or, when that exists, to the next free numbered name; never overwrites."""
    target = free_path(path)
    for _ in range(100):
        try:
            with open(target, "xb") as fh:
                fh.write(data)
            return target
        except FileExistsError:  # another process took the name between the check and the open
            target = free_path(target)
    raise FileExistsError(f"no free name next to {path}")


def report_bytes(report: Report) -> bytes:
    """The report as written: ``format`` first (``--input`` recognises a report by it)."""
    return (report.model_dump_json(indent=2) + "\n").encode("utf-8")
