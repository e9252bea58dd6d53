"""Specs from presets and config.json, and the facts the estimator gets (pure Python, no torch)."""

from __future__ import annotations

import pytest

from triage.estimate import find_architecture, run_from_facts
from triage.measure import (
    MeasureSpec,
    SpecError,
    all_linear_targets,
    estimator_facts,
    hf_config_from_architecture,
    hf_config_from_json,
    spec_for_config,
    spec_for_preset,
)
from triage.measure.spec import spec_from_run


@pytest.mark.parametrize(
    ("preset", "model_type"),
    [
        ("llama-2-7b", "llama"),
        ("mistral-7b", "mistral"),
        ("qwen2.5-7b", "qwen2"),
        ("gemma-2b", "gemma"),
        ("phi-2", "phi"),
        ("phi-3-mini", "phi3"),
    ],
)
def test_presets_map_to_transformers_model_types(preset: str, model_type: str) -> None:
    arch = find_architecture(preset)
    assert arch is not None
    cfg = hf_config_from_architecture(arch)
    assert cfg["model_type"] == model_type
    assert cfg["vocab_size"] == arch.vocab
    assert cfg["num_hidden_layers"] == arch.layers


def test_remote_code_models_are_refused() -> None:
    arch = find_architecture("chatglm3-6b")
    assert arch is not None
    with pytest.raises(SpecError, match="remote code"):
        hf_config_from_architecture(arch)


def test_config_json_drops_loader_fields(tiny_config) -> None:
    spec = spec_for_config(tiny_config, seq=64)
    assert "torch_dtype" not in spec.hf_config
    assert spec.lora_targets == ("q_proj", "v_proj")
    with pytest.raises(SpecError, match="model_type"):
        hf_config_from_json({"hidden_size": 8})


def test_bad_values_are_one_line_errors() -> None:
    with pytest.raises(SpecError, match="attn must be one of"):
        spec_for_preset("llama-2-7b", attn="flash")
    with pytest.raises(SpecError, match="unknown model"):
        spec_for_preset("no-such-model-xyz")


def test_estimator_sees_the_same_run() -> None:
    spec = spec_for_preset(
        "llama-3-8b",
        method="qlora",
        lora_targets=all_linear_targets({"model_type": "llama"}),
        prepare_kbit=True,
        seq=2048,
        batch=2,
        gc=True,
    )
    run = run_from_facts(estimator_facts(spec, "llama-3-8b", "5.24.0"))
    assert (run.method, run.quantization, run.double_quant, run.prepare_kbit) == ("qlora", "4bit", True, True)
    assert (run.seq, run.batch, run.gc, run.attn, run.lora_r) == (2048, 2, True, "sdpa", 16)
    assert set(run.lora_targets) == set(spec.lora_targets)
    assert run.optimizer == "adamw_torch_fused"


def test_spec_from_run_round_trips_and_refuses_what_it_cannot_run() -> None:
    arch = find_architecture("llama-2-7b")
    assert arch is not None
    cfg = hf_config_from_architecture(arch)
    run = run_from_facts(
        {
            "model_name": "llama-2-7b",
            "max_length": 1024,
            "batch_size": 2,
            "lora_r": 8,
            "optimizer": "adamw_torch",
            "torch_dtype": "bf16",
        }
    )
    spec, _notes = spec_from_run(run, cfg, arch.name)
    assert isinstance(spec, MeasureSpec)
    assert (spec.seq, spec.batch, spec.lora_r, spec.optim_impl) == (1024, 2, 8, "foreach")
    with pytest.raises(SpecError, match="optimizer"):
        spec_from_run(run_from_facts({"model_name": "llama-2-7b", "optimizer": "adafactor"}), cfg, arch.name)
    with pytest.raises(SpecError, match="8-bit"):
        spec_from_run(run_from_facts({"model_name": "llama-2-7b", "quantization": "8bit"}), cfg, arch.name)
