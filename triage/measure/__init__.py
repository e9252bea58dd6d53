"""The measurement oracle: one real training step on fake tensors, counted like the CUDA allocator.

Optional extra (``pip install 'triage-oom[measure]'``: torch, transformers, peft, accelerate).
Nothing in the core imports this package; torch is imported only by the modules that run
the step (:mod:`triage.measure.step`, :mod:`~triage.measure.counter`, ...), inside :func:`measure`.

Public API::

    available() -> str | None          None when the extra is installed, else the missing package
    MeasureSpec(name, hf_config, dtype, method, lora_r, lora_targets, seq, batch, gc, attn, optimizer, ...)
    spec_for_preset(name, **overrides) -> MeasureSpec      from an estimator preset (triage.estimate)
    spec_for_config(path, **overrides) -> MeasureSpec      from a Hugging Face config.json
    measure(spec, mode="fake") -> Measurement              peak_bytes, phase, op, module, breakdown
    estimator_facts(spec, preset) -> dict                  the same run as triage.estimate facts
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from triage.estimate.architecture import ArchitectureError, read_config_json
from triage.measure.result import BLOCK, CATEGORIES, LABELS, Measurement, round_block
from triage.measure.spec import (
    MeasureSpec,
    SpecError,
    all_linear_targets,
    default_targets,
    estimator_facts,
    hf_config_from_architecture,
    hf_config_from_json,
)

#: Import names of the packages the extra provides.
REQUIRED = ("torch", "transformers", "peft")
INSTALL_HINT = "pip install 'triage-oom[measure]'"


def available() -> str | None:
    """None when torch, transformers and peft can be imported; else the first missing one."""
    for name in REQUIRED:
        if importlib.util.find_spec(name) is None:
            return name
    return None


def spec_for_preset(name: str, **overrides: Any) -> MeasureSpec:
    """A spec for an estimator preset name ("llama-2-7b", "Qwen/Qwen2.5-7B", ...)."""
    from triage.estimate import find_architecture

    arch = find_architecture(name)
    if arch is None:
        raise SpecError(
            f"unknown model {name!r}: give a preset name (`triage estimate --list-models`) or a config.json"
        )
    cfg = hf_config_from_architecture(arch)
    overrides.setdefault("lora_targets", default_targets(cfg))
    return MeasureSpec(name=arch.name, hf_config=cfg, **overrides)


def spec_for_config(path: str | Path, **overrides: Any) -> MeasureSpec:
    """A spec for a Hugging Face ``config.json`` (or a directory holding one)."""
    try:
        where, data = read_config_json(path)
    except ArchitectureError as exc:
        raise SpecError(str(exc)) from None
    cfg = hf_config_from_json(data)
    overrides.setdefault("lora_targets", default_targets(cfg))
    return MeasureSpec(name=str(data.get("_name_or_path") or where), hf_config=cfg, **overrides)


def measure(spec: MeasureSpec, mode: str = "fake") -> Measurement:
    """Run one training step of ``spec`` (fake tensors by default) and return the allocated peak."""
    missing = available()
    if missing is not None:
        raise ImportError(f"triage measure needs {missing}: {INSTALL_HINT}")
    from triage.measure.step import measure_step

    return measure_step(spec, mode=mode)


__all__ = [
    "BLOCK",
    "CATEGORIES",
    "INSTALL_HINT",
    "LABELS",
    "MeasureSpec",
    "Measurement",
    "SpecError",
    "all_linear_targets",
    "available",
    "default_targets",
    "estimator_facts",
    "hf_config_from_architecture",
    "hf_config_from_json",
    "measure",
    "round_block",
    "spec_for_config",
    "spec_for_preset",
]
