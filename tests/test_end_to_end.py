"""Whole-pipeline behaviour the issues promise: readers -> estimate -> diagnosis -> plan -> output."""

from __future__ import annotations

import json
from pathlib import Path

from triage.cli import main

FIX = Path(__file__).parent / "fixtures" / "e2e"
LOG = FIX / "fragmentation-oom.log"


def diagnose_json(capsys, *argv: str) -> dict:
    assert main(["diagnose", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_large_reserved_but_unallocated_ranks_fragmentation_first(capsys):
    data = diagnose_json(capsys, "--log", str(LOG))
    top = data["causes"][0]
    assert top["category"] == "fragmentation"
    assert data["facts"]["torch_reserved_unallocated_bytes"]["path"] == str(LOG)
    assert data["facts"]["phase"]["value"] == "backward"
    first = data["remedies"][0]
    assert first["id"] == "expandable-segments" and first["applicable"] is not False


def test_expandable_segments_already_on_is_not_recommended_again(capsys, tmp_path):
    log = tmp_path / "train.log"
    log.write_text(
        "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n" + LOG.read_text(encoding="utf-8"), encoding="utf-8"
    )
    data = diagnose_json(capsys, "--log", str(log))
    assert data["facts"]["expandable_segments"]["value"] is True
    assert data["causes"][0]["category"] == "fragmentation"
    recommended = [r["id"] for r in data["remedies"] if r["applicable"] is not False]
    assert "expandable-segments" not in recommended
    assert recommended, "other fragmentation remedies are still offered"


SCENARIO = "LLaMA-7B LoRA on a 3090, max_length 2048, batch size 4, no gradient checkpointing, CUDA out of memory"


def test_scenario_shows_savings_in_gib_and_a_plan_that_fits(capsys):
    data = diagnose_json(capsys, "--symptom", SCENARIO)
    mem = data["memory"]
    assert mem["estimated"] and mem["fits"] is False
    assert mem["components"]["weights"] > 12 and mem["components"]["activations"] > mem["components"]["weights"]
    saving = {r["id"]: r["saving_gib"] for r in data["remedies"]}
    assert saving["enable-gradient-checkpointing"] > 20
    plan = mem["plan"]
    assert plan["fits"] and plan["steps"]
    assert plan["device_total_after_gib"] <= mem["gpu_capacity_gib"]
    assert main(["--symptom", SCENARIO]) == 0
    text = capsys.readouterr().out
    assert "saves" in text and "GiB" in text and "cheapest plan that fits" in text


def test_remedies_rank_by_what_they_save_on_this_run(capsys):
    data = diagnose_json(capsys, "--symptom", SCENARIO)
    savings = [
        r["saving_gib"] for r in data["remedies"] if r["saving_gib"] is not None and r["applicable"] is not False
    ]
    assert savings and savings[0] == max(savings)


def test_without_a_model_the_output_says_what_the_estimate_needs(capsys):
    data = diagnose_json(capsys, "--symptom", "CUDA out of memory at step 0")
    assert data["memory"]["estimated"] is False
    assert "model" in data["memory"]["missing"]
