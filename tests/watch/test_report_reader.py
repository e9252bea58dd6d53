"""``triage diagnose --report``: the watcher's report read as exact facts, and bad files refused in one line."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from conftest import REPORT

from triage.cli import main
from triage.ingest.report import SCHEMA_PATH, Report, schema

ROOT = Path(__file__).resolve().parents[2]


def run_json(capsys, *args):
    assert main(["diagnose", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_committed_report_schema_is_fresh():
    assert (ROOT / SCHEMA_PATH).read_text(encoding="utf-8") == schema(), "run `python -m triage.ingest.report`"


def test_a_report_is_read_as_exact_facts_and_ranks_the_eval_batch_first(capsys, report_file):
    path = report_file()
    data = run_json(capsys, "--report", str(path))
    facts = data["facts"]
    assert facts["phase"]["value"] == "evaluation" and facts["phase"]["source"] == "report"
    assert facts["phase"]["path"] == str(path)
    assert facts["oom_step"]["value"] == 3
    assert facts["eval_batch_size"]["value"] == 8 and facts["batch_size"]["value"] == 1
    assert facts["eval_accumulation_steps"]["value"] == 0
    assert facts["compute_metrics"]["value"] is False
    assert facts["finetune_method"]["value"] == "lora" and facts["lora_r"]["value"] == 16
    assert facts["gpu_name"]["value"] == "NVIDIA GeForce RTX 4090"
    assert facts["torch_version"]["value"] == "2.5.1"
    assert facts["max_length"]["value"] == 1024, "the failing batch's length stands in for an unset max_length"
    assert facts["oom_requested_bytes"]["value"] == int(3.91 * 1024**3)
    assert facts["quantization"]["value"] == "none", "a model config without quantization_config was loaded unquantized"
    assert facts["gpu_count"]["value"] == 1 and facts["expandable_segments"]["value"] is False
    assert all(f["source"] in ("report", "derived") for f in facts.values()), facts
    assert data["causes"][0]["id"] == "eval-batch-too-large"
    assert f"{path}: training_args.torch_empty_cache_steps" in data["inputs"]["unknown_keys"], "none dropped silently"
    assert data["memory"]["estimated"], "the model config inside the report gives the estimator the architecture"
    assert "triage-report.json" in {Path(r["path"]).name for r in data["inputs"]["read_as"]}


def test_fact_beats_the_report_and_the_report_beats_a_config(capsys, report_file, tmp_path):
    config = tmp_path / "args.json"
    config.write_text(json.dumps({"per_device_eval_batch_size": 2, "output_dir": "x"}), encoding="utf-8")
    data = run_json(capsys, "--report", str(report_file()), "--config", str(config), "--fact", "oom_step=9")
    assert data["facts"]["eval_batch_size"]["value"] == 8
    assert data["facts"]["oom_step"]["source"] == "cli"
    assert any("report beats config" in c for c in data["inputs"]["conflicts"])


def test_input_recognises_a_report(capsys, report_file):
    data = run_json(capsys, "--input", str(report_file()))
    assert data["facts"]["phase"]["source"] == "report"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "not a triage report (not valid JSON"),
        (json.dumps({"per_device_train_batch_size": 4}), 'no "format": "triage-report"'),
        (json.dumps({**REPORT, "version": "2.0"}), "version 2.0 is from a newer triage"),
        (json.dumps({**REPORT, "version": "one"}), "without a valid version"),
        (json.dumps({k: v for k, v in REPORT.items() if k != "exception"}), "broken triage report: exception"),
        (json.dumps({**REPORT, "global_step": "three"}), "broken triage report: global_step"),
        (json.dumps([1, 2]), "not a triage report"),
    ],
)
def test_bad_reports_are_refused_in_one_line(capsys, tmp_path, content, says):
    path = tmp_path / "r.json"
    path.write_text(content, encoding="utf-8")
    assert main(["diagnose", "--report", str(path)]) == 3
    err = capsys.readouterr().err.strip()
    assert says in err and "\n" not in err and "Traceback" not in err


def test_a_newer_minor_version_is_read_and_its_new_fields_named(capsys, report_file):
    data = copy.deepcopy(REPORT)
    data["version"] = "1.7"
    data["power_draw_watts"] = 350
    out = run_json(capsys, "--report", str(report_file(data)))
    assert out["facts"]["phase"]["value"] == "evaluation"
    assert any("not read: power_draw_watts" in n for n in out["inputs"]["notes"])


def test_the_example_validates_against_the_model():
    assert Report.model_validate(REPORT).phase == "evaluation"


def test_missing_report_file_is_one_line(capsys, tmp_path):
    assert main(["diagnose", "--report", str(tmp_path / "nope.json")]) == 3
    err = capsys.readouterr().err.strip()
    assert "nope.json" in err and "\n" not in err


def test_the_allocator_setting_and_a_quantized_model(capsys, report_file):
    data = copy.deepcopy(REPORT)
    data["env"] = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    data["model"]["quantization_config"] = {"load_in_4bit": True, "bnb_4bit_use_double_quant": True}
    data["gpus"].append({**data["gpus"][0], "index": 1})
    data["snapshot"] = "triage-snapshot.pickle"
    out = run_json(capsys, "--report", str(report_file(data)))
    facts = out["facts"]
    assert any("add --snapshot triage-snapshot.pickle" in n for n in out["inputs"]["notes"])
    assert facts["expandable_segments"]["value"] is True
    assert facts["quantization"]["value"] == "4bit" and facts["finetune_method"]["value"] == "qlora"
    assert "gpu_count" not in facts, "two visible GPUs in one process: how many the model uses is not known"
