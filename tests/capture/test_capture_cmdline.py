"""The command line read as configuration: launchers, HF-style arguments, overrides, config files."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from triage.capture.cmdline import read_command
from triage.capture.session import read_configs

FIXTURES = Path(__file__).parent.parent / "fixtures" / "ingest" / "config"


def words(text: str) -> list[str]:
    return text.split()


def facts(reading) -> dict[str, object]:
    return {f.name: f.raw for f in (*reading.launcher_found, *reading.found)}


def said(reading, name: str) -> str | None:
    return next(f.excerpt for f in (*reading.launcher_found, *reading.found) if f.name == name)


def test_hf_arguments_are_read_by_the_config_rules(tmp_path):
    r = read_command(
        words(
            "python train.py --per_device_train_batch_size 4 --gradient_checkpointing True --max_seq_length 2048 "
            "--bf16 --optim=paged_adamw_8bit --gradient-accumulation-steps 8 --learning_rate 2e-4 --my_flag"
        ),
        str(tmp_path),
    )
    assert r.launcher == "python" and r.interpreter == "python"
    got = facts(r)
    assert got["batch_size"] == 4
    assert got["gradient_checkpointing"] is True
    assert got["max_length"] == 2048
    assert got["mixed_precision"] == "bf16"
    assert got["optimizer"] == "paged_adamw_8bit"
    assert got["grad_accum"] == 8
    assert said(r, "batch_size") == "--per_device_train_batch_size 4"
    assert said(r, "optimizer") == "--optim=paged_adamw_8bit"
    # a plain script's arguments are not a framework's whole config: no framework defaults guessed
    assert "framework" not in got and "trainer_type" not in got
    assert r.unknown_keys == ("my_flag",)  # learning_rate is known to be irrelevant; nothing dropped silently


def test_negated_flags_lists_and_negative_numbers(tmp_path):
    r = read_command(
        words("python t.py --no_gradient_checkpointing --target_modules q_proj v_proj --lora_r 16 --seed -1"),
        str(tmp_path),
    )
    got = facts(r)
    assert got["gradient_checkpointing"] is False
    assert got["lora_target_modules"] == "q_proj,v_proj"
    assert got["lora_r"] == 16


@pytest.mark.parametrize(
    ("argv", "count", "distributed"),
    [
        ("torchrun --nproc_per_node 4 train.py --lora_r 8", 4, "ddp"),
        ("torchrun --standalone --nproc-per-node=2 train.py", 2, "ddp"),
        (f"{sys.executable} -m torch.distributed.run --nproc_per_node=8 train.py", 8, "ddp"),
        ("accelerate launch --multi_gpu --num_processes 2 train.py", 2, "ddp"),
        ("accelerate launch --num_processes 8 --num_machines 2 train.py", 4, "ddp"),
        ("deepspeed --num_gpus 8 train.py", 8, "deepspeed"),
        ("deepspeed --include localhost:0,1,3 train.py", 3, "deepspeed"),
    ],
)
def test_launchers_give_gpu_count_and_distribution(tmp_path, argv, count, distributed):
    got = facts(read_command(argv.split(), str(tmp_path)))
    assert got["gpu_count"] == count
    assert got["distributed"] == distributed


def test_launcher_arguments_are_not_the_scripts(tmp_path):
    r = read_command(words("torchrun --nproc_per_node 2 --master_port 29501 train.py --batch_size 2"), str(tmp_path))
    assert facts(r)["batch_size"] == 2
    assert "master_port" not in r.unknown_keys


def test_a_deepspeed_config_file_says_the_stage_not_its_name(tmp_path):
    # the file is named z3 but says stage 2: the content is read, the name's guess dropped
    (tmp_path / "ds_z3.json").write_text('{"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": 2}')
    r = read_command(words("torchrun --nproc_per_node 4 train.py --deepspeed ds_z3.json"), str(tmp_path))
    assert r.config_files == ("ds_z3.json",)
    got = facts(r)
    assert got["distributed"] == "deepspeed"
    assert "zero_stage" not in got
    configs, notes = read_configs([str(tmp_path / p) for p in r.config_files])
    assert notes == []
    assert {f.name: f.raw for f in configs[0][1].found}["zero_stage"] == 2


def test_llamafactory_yaml_and_overrides(tmp_path):
    shutil.copy(FIXTURES / "llama_factory.yaml", tmp_path / "sft.yaml")
    r = read_command(
        words("llamafactory-cli train sft.yaml cutoff_len=4096 per_device_train_batch_size=1"), str(tmp_path)
    )
    assert r.launcher == "llamafactory"
    assert r.config_files == ("sft.yaml",)
    got = facts(r)
    assert got["max_length"] == 4096 and got["batch_size"] == 1
    assert got["framework"] == "llama_factory"
    # the yaml says the defaults; the overrides alone must not claim LLaMA-Factory's defaults over it
    assert all(f.note is None for f in r.found)
    assert said(r, "max_length") == "cutoff_len=4096"


def test_axolotl_with_overrides_and_as_a_module(tmp_path):
    shutil.copy(FIXTURES / "axolotl.yaml", tmp_path / "qlora.yml")
    r = read_command(words("axolotl train qlora.yml --micro_batch_size=2"), str(tmp_path))
    assert r.launcher == "axolotl" and r.config_files == ("qlora.yml",)
    assert facts(r)["batch_size"] == 2
    r = read_command(words("accelerate launch -m axolotl.cli.train qlora.yml"), str(tmp_path))
    assert r.launcher == "axolotl" and r.config_files == ("qlora.yml",)


def test_env_prefix_and_missing_files(tmp_path):
    r = read_command(words("env CUDA_VISIBLE_DEVICES=1 python -u train.py --config nope.yaml"), str(tmp_path))
    assert r.env == (("CUDA_VISIBLE_DEVICES", "1"),)
    assert r.interpreter == "python" and r.config_files == ()


def test_console_script_interpreter_from_its_shebang(tmp_path, monkeypatch):
    script = tmp_path / "bin" / "torchrun"
    script.parent.mkdir()
    script.write_text("#!/opt/conda/envs/ft/bin/python3.11\nimport sys\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(script.parent))
    assert read_command(["torchrun", "train.py"], str(tmp_path)).interpreter == "/opt/conda/envs/ft/bin/python3.11"
    script.write_text("#!/usr/bin/env python3\n")
    assert read_command(["torchrun", "train.py"], str(tmp_path)).interpreter == "python3"
    script.write_text("#!/bin/bash\n")
    assert read_command(["torchrun", "train.py"], str(tmp_path)).interpreter is None


def test_data_files_are_not_configs(tmp_path):
    (tmp_path / "data.json").write_text('[{"text": "hi"}]')
    (tmp_path / "info.json").write_text('{"alpaca": {"file_name": "a.json"}}')
    r = read_command(words("python t.py --data_path data.json --dataset_info info.json"), str(tmp_path))
    configs, notes = read_configs([str(tmp_path / p) for p in r.config_files])
    assert configs == []
    assert len(notes) == 2 and all("not" in n for n in notes)


def test_odd_command_lines_never_raise(tmp_path):
    for argv in (["python"], ["python", "-c", "pass"], ["torchrun"], ["accelerate", "launch"], ["env"], ["x", "--"]):
        read_command(argv, str(tmp_path))


def test_accelerate_without_config_file_reads_its_default_config(tmp_path):
    home = tmp_path / "hf"
    (home / "accelerate").mkdir(parents=True)
    shutil.copy(FIXTURES / "accelerate_config.yaml", home / "accelerate" / "default_config.yaml")
    env = {"HF_HOME": str(home)}
    r = read_command(words("accelerate launch train.py"), str(tmp_path), env)
    assert r.config_files == (str(home / "accelerate" / "default_config.yaml"),)
    mine = tmp_path / "mine.yaml"
    shutil.copy(FIXTURES / "accelerate_config.yaml", mine)
    r = read_command(["accelerate", "launch", "--config_file", "mine.yaml", "train.py"], str(tmp_path), env)
    assert r.config_files == ("mine.yaml",)
    assert (
        read_command(words("accelerate launch train.py"), str(tmp_path), {"HF_HOME": str(tmp_path / "x")}).config_files
        == ()
    )
