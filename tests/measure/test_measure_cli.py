"""``triage measure``: the missing-extra message (no torch needed) and a real tiny run."""

from __future__ import annotations

import importlib.util
import json

import pytest

from triage.cli import main


def test_without_the_extra_it_says_how_to_install_and_exits_3(monkeypatch, capsys) -> None:
    real_find_spec = importlib.util.find_spec

    def no_torch(name: str, *args, **kwargs):
        return None if name == "torch" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", no_torch)
    code = main(["measure", "--model", "llama-2-7b"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert len(err) == 1
    assert "pip install 'triage-oom[measure]'" in err[0]


def test_measure_is_listed_in_help(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "measure" in capsys.readouterr().out


def test_measure_a_config_json_and_compare_with_the_estimate(tiny_config, capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    code = main(
        [
            "measure",
            "--model",
            str(tiny_config),
            "--max-length",
            "128",
            "--per-device-train-batch-size",
            "2",
            "--lora-r",
            "16",
            "--format",
            "json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["peak_allocated_bytes"] == 21930496  # the tiny-Llama LoRA step, as in the step tests
    assert out["peak_phase"] == "backward"
    assert "estimate_error_pct" in out


def test_measure_text_output_shows_breakdown_and_error(capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    code = main(
        [
            "measure",
            "--model",
            "llama-3.2-1b",
            "--max-length",
            "256",
            "--per-device-train-batch-size",
            "1",
            "--gradient-checkpointing",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "measured peak" in text and "GiB" in text
    assert "weights (params + buffers)" in text
    assert "error" in text and "%" in text


def test_unmeasurable_run_is_a_one_line_error(capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    code = main(["measure", "--model", "llama-2-7b", "--optim", "adafactor"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert len(err) == 1 and "adafactor" in err[0]
