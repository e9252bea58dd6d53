"""The watcher's report (``triage-report.json``): its versioned schema, and reading it as exact facts.

``triage.watch`` writes this file at the moment a run dies of an out-of-memory
error; ``triage diagnose --report FILE`` reads it back. The pydantic models here
are the single definition of the format for both sides (this module never
imports torch), and ``docs/schema/report.schema.json`` is generated from them
(``python -m triage.ingest.report``; a test fails when it is stale).

Versions: ``version`` is ``MAJOR.MINOR``. A new optional field raises the minor
number, anything else the major one. This reader accepts every minor version of
its major one (fields it does not know are left out, and it says so) and refuses
another major version in one line.

Every fact read from a report has the source kind ``report``: it was measured in
the run, not typed or guessed, so it beats configs, logs and the user's text and
only ``--fact`` (and interview answers) override it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from triage.ingest.config import read_config
from triage.ingest.env import os_from_platform, package_fact
from triage.ingest.errors import IngestError
from triage.ingest.found import Found, excerpt
from triage.ingest.lines import iter_text_lines, read_small
from triage.ingest.log import read_log_lines

FORMAT = "triage-report"
VERSION = "1.0"
"""1.0: the first report format (triage 0.1)."""
#: A report is a few kilobytes (memory_stats has ~80 numbers); anything this large is not one.
SIZE_LIMIT = 16 * 1024 * 1024

Phase = Literal[
    "loading", "forward", "backward", "optimizer", "evaluation", "generation", "saving", "merging", "training"
]


class Model(BaseModel):
    """Unknown keys are errors within a version: a field added in code but not here fails the tests."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True, use_attribute_docstrings=True)


class Frame(Model):
    """One frame of the traceback, outermost first."""

    filename: str
    line: int | None = None
    name: str


class ExceptionInfo(Model):
    """The exception that ended the run, exactly as raised (it was re-raised unchanged)."""

    type: str
    """Its class name: ``OutOfMemoryError``, ``RuntimeError``."""
    module: str
    """The module of its class: ``torch``, ``torch.cuda``, ``builtins``."""
    message: str
    """``str(exception)``, cut to 4,000 characters."""


class Batch(Model):
    """The batch being processed when memory ran out, found in the live stack's local variables."""

    shape: list[int]
    """``input_ids.shape``: ``[batch, sequence length]``."""
    frame: str
    """The function whose local variable it was (``training_step``, ``prediction_step``, ``forward``)."""


class TrainerInfo(Model):
    """What the ``Trainer`` object itself knew (not in ``TrainingArguments``)."""

    class_name: str
    """``Trainer``, ``SFTTrainer``, ``DPOTrainer``...; a subclass keeps its own name."""
    module: str
    """The module defining that class (``transformers.trainer``, ``trl.trainer.sft_trainer``)."""
    base: str | None = None
    """The nearest transformers/TRL class it derives from, when ``class_name`` is the user's subclass."""
    compute_metrics: bool | None = None
    """Whether ``compute_metrics`` was passed (evaluation then keeps every batch's logits)."""
    preprocess_logits_for_metrics: bool | None = None
    train_samples: int | None = None
    """``len(train_dataset)`` when it has a length."""
    eval_samples: int | None = None
    """``len(eval_dataset)`` (summed over a dict of eval sets) when it has a length."""


class Parameters(Model):
    """The model's parameters, counted in the run (peft's count when it is a peft model)."""

    total: int
    trainable: int


class Gpu(Model):
    """One visible CUDA device, from ``torch.cuda.get_device_properties``."""

    index: int
    name: str
    total_memory_bytes: int
    capability: str
    """``"8.6"``."""


class MemoryAtOom(Model):
    """The CUDA caching allocator's counters on the failing device, read right after the error."""

    device: int
    allocated_bytes: int
    """``torch.cuda.memory_allocated()``: tensors still alive while the exception is handled."""
    reserved_bytes: int
    """``torch.cuda.memory_reserved()``."""
    max_allocated_bytes: int
    """``torch.cuda.max_memory_allocated()``: the peak of the run (or since the last reset)."""
    max_reserved_bytes: int
    stats: dict[str, int | float]
    """``torch.cuda.memory_stats()``, every counter as torch names it."""


class Report(Model):
    """``triage-report.json``: the facts of a run at the moment it ran out of memory."""

    format: Literal["triage-report"] = "triage-report"
    version: str = VERSION
    created: str
    """When it was written, ISO 8601 in UTC."""
    triage_version: str
    exception: ExceptionInfo
    phase: Phase | None = None
    """Where in the run the error was raised, from the traceback's functions (see ``phase_frame``)."""
    phase_frame: str | None = None
    """The frame that decided ``phase``: ``torch/autograd/__init__.py:backward``."""
    global_step: int | None = None
    """``trainer.state.global_step``: optimizer steps completed before the failing one."""
    epoch: float | None = None
    batch: Batch | None = None
    training_args: dict[str, Any] | None = None
    """``TrainingArguments.to_dict()`` (or a TRL config's), tokens already masked by transformers."""
    model: dict[str, Any] | None = None
    """The model's ``config.to_dict()`` (what its ``config.json`` holds)."""
    peft_config: dict[str, Any] | None = None
    """The active adapter's ``PeftConfig.to_dict()``."""
    parameters: Parameters | None = None
    trainer: TrainerInfo | None = None
    world_size: int = 1
    """Processes in the run (``torch.distributed`` or ``WORLD_SIZE``)."""
    versions: dict[str, str]
    """Installed versions: python, torch, transformers, peft, trl, accelerate, bitsandbytes, deepspeed, flash-attn."""
    platform: str
    cuda_available: bool
    gpus: list[Gpu] = []
    memory: MemoryAtOom | None = None
    """None without CUDA."""
    env: dict[str, str] = {}
    """``PYTORCH_CUDA_ALLOC_CONF`` and ``CUDA_VISIBLE_DEVICES`` when set."""
    snapshot: str | None = None
    """The memory snapshot written beside the report (``snapshot=True`` on CUDA), for ``triage diagnose --snapshot``."""
    traceback: list[Frame] = []
    """The last 60 frames of the traceback, outermost first."""
    notes: list[str] = []
    """What the watcher wants the reader to know (what it could not record, and why)."""


def schema() -> str:
    """The JSON Schema of :class:`Report`, as committed in ``docs/schema/report.schema.json``."""
    return json.dumps(Report.model_json_schema(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


SCHEMA_PATH = Path("docs") / "schema" / "report.schema.json"


def _version(text: object) -> tuple[int, int] | None:
    major, dot, minor = str(text).partition(".")
    if not (major.isdigit() and dot and minor.isdigit()):
        return None
    return int(major), int(minor)


def parse_report(text: str, path: str = "report") -> tuple[Report, list[str]]:
    """The report in ``text`` and notes about it; a foreign, broken or newer-major file -> one-line IngestError."""
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as exc:
        raise IngestError(f"{path}: not a triage report (not valid JSON: line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise IngestError(f"{path}: not a triage report (nested too deeply)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise IngestError(
            f'{path}: not a triage report (no "format": "{FORMAT}"); give configs with --config and logs with --log'
        )
    got, ours = _version(data.get("version")), _version(VERSION)
    assert ours is not None
    if got is None:
        raise IngestError(
            f"{path}: triage report without a valid version ({data.get('version')!r}; expected MAJOR.MINOR)"
        )
    notes: list[str] = []
    if got[0] != ours[0]:
        newer = "a newer" if got[0] > ours[0] else "an older"
        raise IngestError(
            f"{path}: triage report version {got[0]}.{got[1]} is from {newer} triage; this one reads {ours[0]}.x"
            + (" (pip install -U triage-oom)" if got[0] > ours[0] else "")
        )
    if got[1] > ours[1]:
        known = set(Report.model_fields)
        extra = sorted(k for k in data if k not in known)
        data = {k: v for k, v in data.items() if k in known}
        if extra:
            notes.append(
                f"{path}: report version {got[0]}.{got[1]} is newer than {VERSION}; not read: {', '.join(extra)}"
            )
    try:
        report = Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the top level"
        raise IngestError(f"{path}: broken triage report: {where}: {first['msg']}") from None
    return report, notes


@dataclass(frozen=True)
class ReportReading:
    """What a report says, as readings for the merge, and the model's config for the estimator."""

    report: Report
    found: list[Found] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    model_config: Mapping[str, Any] | None = None
    unknown_keys: list[str] = field(default_factory=list)
    """Keys of the report's configs that the config readers do not understand (``training_args.KEY``)."""


def read_report(path: str) -> ReportReading:
    """Read ``path`` as a triage report; raises IngestError in one line for anything else."""
    report, notes = parse_report(read_small(path, SIZE_LIMIT), path)
    found, more, unknown = report_findings(report, path)
    return ReportReading(report, found, [*notes, *more], report.model, unknown)


_TRAINERS = {
    "SFTTrainer": "sft",
    "DPOTrainer": "dpo",
    "PPOTrainer": "ppo",
    "KTOTrainer": "kto",
    "ORPOTrainer": "orpo",
    "GRPOTrainer": "grpo",
    "RewardTrainer": "reward",
    "Trainer": "trainer",
    "Seq2SeqTrainer": "trainer",
}


def _section(data: Mapping[str, Any], name: str, path: str) -> tuple[list[Found], list[str], list[str]]:
    """A config section read by the config readers (its JSON lines quoted as the excerpts), with its notes
    and the keys they do not understand (``training_args.KEY``)."""
    reading = read_config(json.dumps(data, indent=1, default=str), f"{path}#{name}")
    found = [
        replace(f, line=None, excerpt=f"{name}: {f.excerpt.strip().rstrip(',')}" if f.excerpt else None)
        for f in reading.found
    ]
    return found, list(reading.notes), [f"{name}.{key}" for key in reading.unknown_keys]


def _said(name: str, value: object) -> str:
    return excerpt(f"{name}: {value}")


def report_findings(report: Report, path: str) -> tuple[list[Found], list[str], list[str]]:
    """Every fact the report states, in the vocabulary of ``knowledge/facts``; notes; config keys not understood."""
    found: list[Found] = []
    unknown: list[str] = []
    notes: list[str] = [f"{path}: {n}" for n in report.notes]
    if report.snapshot:
        notes.append(f"{path}: the watcher also dumped a memory snapshot: add --snapshot {report.snapshot}")
    exc = report.exception
    message = f"{exc.module}.{exc.type}: {exc.message}" if exc.module != "builtins" else f"{exc.type}: {exc.message}"
    said = read_log_lines(iter_text_lines(message)).found
    found += [replace(f, line=None) for f in said]
    if not any(f.name == "error_kind" for f in said) and exc.type == "OutOfMemoryError":
        found.append(Found("error_kind", "cuda_oom", None, _said("exception", exc.type)))
    if report.phase is not None:
        found.append(Found("phase", report.phase, None, _said("phase", f"{report.phase} ({report.phase_frame})")))
    if report.global_step is not None:
        found.append(Found("oom_step", report.global_step, None, _said("global_step", report.global_step)))
    sections = [("training_args", report.training_args), ("model", report.model)]
    sections.append(("peft_config", report.peft_config))
    for name, data in sections:
        if data:
            got, more, keys = _section(data, name, path)
            found += got
            notes += more
            unknown += keys
    if report.model is not None and not any(f.name == "quantization" for f in found):
        # transformers sets config.quantization_config whenever it loads a model quantized (bnb, GPTQ, AWQ, torchao)
        found.append(Found("quantization", "none", None, _said("model", "no quantization_config")))
    if report.peft_config is not None:
        quantized = any(f.name == "quantization" and f.raw in ("4bit", "8bit") for f in found)
        method = "qlora" if quantized else "lora"
        found.append(
            Found(
                "finetune_method",
                method,
                None,
                _said("peft_config.peft_type", report.peft_config.get("peft_type")),
                "a peft adapter" + (" on a quantized model" if quantized else ""),
            )
        )
    elif report.parameters is not None and report.parameters.trainable == report.parameters.total:
        found.append(Found("finetune_method", "full", None, _said("parameters", "every parameter trainable")))
    if report.parameters is not None:
        p = report.parameters
        found.append(Found("model_params_b", p.total / 1e9, None, _said("parameters.total", f"{p.total:,}")))
        found.append(
            Found("trainable_params_b", p.trainable / 1e9, None, _said("parameters.trainable", f"{p.trainable:,}"))
        )
    has_length = any(f.name == "max_length" for f in found)
    if report.batch is not None and len(report.batch.shape) >= 2 and not has_length:
        length = report.batch.shape[1]
        found.append(
            Found(
                "max_length",
                length,
                None,
                _said("batch.shape", report.batch.shape),
                f"the length of the batch that failed (in {report.batch.frame})",
            )
        )
    if report.trainer is not None:
        found += _trainer(report.trainer)
    if report.world_size > 1 or len(report.gpus) == 1:  # one process may also spread a model over several GPUs
        found.append(Found("gpu_count", report.world_size, None, _said("world_size", report.world_size)))
    for package, version in report.versions.items():
        fact = package_fact(package)
        if fact is not None:
            found.append(Found(fact, version, None, _said(f"versions.{package}", version)))
    system = os_from_platform(report.platform)
    if system is not None:
        found.append(Found("os", system, None, _said("platform", report.platform)))
    device = report.memory.device if report.memory is not None else 0
    gpu = next((g for g in report.gpus if g.index == device), report.gpus[0] if report.gpus else None)
    if gpu is not None:
        found.append(Found("gpu_name", gpu.name, None, _said("gpus", gpu.name)))
        found.append(
            Found("gpu_memory_bytes", gpu.total_memory_bytes, None, _said("gpus.total_memory", gpu.total_memory_bytes))
        )
        found.append(Found("compute_capability", float(gpu.capability), None, _said("gpus.capability", gpu.capability)))
    if report.memory is not None:
        found += _memory(report.memory, {f.name for f in said})
    conf = report.env.get("PYTORCH_CUDA_ALLOC_CONF") or report.env.get("PYTORCH_ALLOC_CONF")
    found.append(
        Found(
            "expandable_segments",
            bool(conf and "expandable_segments:true" in conf.replace(" ", "").lower()),
            None,
            _said("PYTORCH_CUDA_ALLOC_CONF", conf or "(unset)"),
        )
    )
    return _first_of_each(found), notes, unknown


def _trainer(info: TrainerInfo) -> list[Found]:
    out: list[Found] = []
    kind = _TRAINERS.get(info.class_name) or _TRAINERS.get(info.base or "")
    where = info.class_name + (f" ({info.base})" if info.base else "")
    out.append(Found("trainer_type", kind or "custom", None, _said("trainer", where)))
    framework = "trl" if info.module.startswith("trl") or (kind not in (None, "trainer")) else "hf_trainer"
    out.append(Found("framework", framework, None, _said("trainer", f"{info.module}.{info.class_name}")))
    if info.compute_metrics is not None:
        out.append(
            Found("compute_metrics", info.compute_metrics, None, _said("trainer.compute_metrics", info.compute_metrics))
        )
    if info.preprocess_logits_for_metrics is not None:
        out.append(
            Found(
                "preprocess_logits",
                info.preprocess_logits_for_metrics,
                None,
                _said("trainer.preprocess_logits_for_metrics", info.preprocess_logits_for_metrics),
            )
        )
    if info.eval_samples is not None:
        out.append(Found("eval_samples", info.eval_samples, None, _said("len(eval_dataset)", info.eval_samples)))
    return out


def _memory(memory: MemoryAtOom, from_message: set[str]) -> list[Found]:
    """The allocator's counters, unless the OOM message (written at the failing allocation) already gave them."""
    out: list[Found] = []
    if "torch_allocated_bytes" not in from_message:
        out.append(
            Found(
                "torch_allocated_bytes", memory.allocated_bytes, None, _said("memory_allocated", memory.allocated_bytes)
            )
        )
    if "torch_reserved_unallocated_bytes" not in from_message:
        spare = max(0, memory.reserved_bytes - memory.allocated_bytes)
        out.append(
            Found("torch_reserved_unallocated_bytes", spare, None, _said("memory_reserved - memory_allocated", spare))
        )
    return out


def _first_of_each(found: list[Found]) -> list[Found]:
    """One reading per fact, the first (the exception's own words before the settings)."""
    seen: set[str] = set()
    out = []
    for f in found:
        if f.name not in seen:
            seen.add(f.name)
            out.append(f)
    return out


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(schema(), encoding="utf-8")
    print(f"wrote {target}")
