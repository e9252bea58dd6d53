import json

import pytest

from triage.cli import main

from .conftest import FIXTURES

SCENARIO_ARGS = [
    "estimate",
    "--model",
    "LLaMA-7B",
    "--gpu",
    "3090",
    "--max-length",
    "2048",
    "--per-device-train-batch-size",
    "4",
    "--no-gradient-checkpointing",
    "--torch-dtype",
    "bf16",
    "--fact",
    "transformers_version=4.31.0",
    "--finetune-method",
    "lora",
]


def test_json_contract_and_exit_code_when_it_does_not_fit(capsys):
    code = main([*SCENARIO_ARGS, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {
        "peak_allocated_gib",
        "device_total_gib",
        "components",
        "peak_phase",
        "fits",
        "gpu_capacity_gib",
        "assumptions",
    } <= set(data)
    assert set(data["device_total_gib"]) == {"low", "expected", "high"}
    assert data["fits"] is False and data["peak_phase"] == "backward"
    assert data["gpu_capacity_gib"] == pytest.approx(23.69, abs=0.01)
    assert data["components"]["attention_scores"] > data["components"]["weights"]
    assert data["device_total_gib"]["low"] <= data["device_total_gib"]["expected"] <= data["device_total_gib"]["high"]


def test_text_shows_breakdown_bar_and_verdict(capsys):
    code = main(
        [
            "estimate",
            "--model",
            "qwen2.5-0.5b",
            "--gpu",
            "4090",
            "--max-length",
            "512",
            "--per-device-train-batch-size",
            "1",
            "--torch-dtype",
            "bf16",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "FITS" in out and "weights" in out and "[" in out and "Assumed" in out


def test_config_file_and_model_config_json(capsys):
    code = main(
        [
            "estimate",
            "--model",
            str(FIXTURES / "llama-2-7b-config.json"),
            "--config",
            str(FIXTURES / "train_args.json"),
            "--gpu",
            "a100-80gb",
            "--format",
            "json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["components"]["weights"] == pytest.approx(12.55, abs=0.01)
    stated = {a["fact"] for a in data["assumptions"]}
    assert "batch_size" not in stated and "max_length" not in stated  # read from train_args.json


def test_bad_input_exit_codes(capsys):
    assert main(["estimate", "--model", "no-such-model-xyz"]) == 3
    assert "unknown model" in capsys.readouterr().err
    assert main(["estimate", "--model", "llama-2-7b", "--fact", "not_a_fact=1"]) == 3
    assert main(["estimate", "--model", "llama-2-7b", "--optim", "adamw_quantum"]) == 3
    assert main(["estimate", "--model", str(FIXTURES / "missing.json")]) == 3
    assert main(["estimate", "--bogus-flag"]) == 2


def test_fit_command(capsys):
    code = main(
        [
            "fit",
            "--solve",
            "max_length",
            "--model",
            "llama-3-8b",
            "--gpu",
            "4090",
            "--load-in-4bit",
            "--gradient-checkpointing",
            "--torch-dtype",
            "bf16",
            "--per-device-train-batch-size",
            "1",
            "--format",
            "json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["variable"] == "max_length" and data["value"] > 2048
    assert main(["fit", "--model", "llama-2-70b", "--gpu", "t4", "--solve", "batch_size"]) == 1
    assert main(["fit", "--model", "llama-2-7b"]) == 3  # no GPU


def test_text_fits_80_columns(capsys):
    from triage.cli import main

    main(
        [
            "estimate",
            "--model",
            "llama2-7b",
            "--gpu",
            "3090",
            "--max-length",
            "2048",
            "--per-device-train-batch-size",
            "4",
        ]
    )
    out = capsys.readouterr().out
    assert "DOES NOT FIT" in out
    assert max(len(line) for line in out.splitlines()) <= 80


@pytest.mark.parametrize(("lang", "word"), [("en", "BORDERLINE"), ("zh", "临界")])
def test_a_gpu_between_the_low_and_expected_totals_is_borderline(capsys, lang, word):
    args = [a for a in SCENARIO_ARGS if a not in ("--gpu", "3090")]
    main([*args, "--format", "json"])
    band = json.loads(capsys.readouterr().out)["device_total_gib"]
    between = int((band["low"] + band["expected"]) / 2 * 1024**3)
    code = main([*args, "--fact", f"gpu_memory_bytes={between}", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "borderline" and data["fits"] is False and code == 1
    main([*args, "--fact", f"gpu_memory_bytes={between}", "--lang", lang])
    out = capsys.readouterr().out
    assert word in out
    main([*args, "--fact", f"gpu_memory_bytes={int(band['low'] * 0.9 * 1024**3)}", "--format", "json"])
    assert json.loads(capsys.readouterr().out)["verdict"] == "does_not_fit"
