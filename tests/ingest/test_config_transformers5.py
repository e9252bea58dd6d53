"""The keys transformers 5.x, TRL 1.x and peft 0.21 write, read from files those libraries wrote.

The templates under bench/data/user_files/ are what ``TrainingArguments.to_json_string()`` (transformers
5.24.0), ``SFTConfig`` / ``ModelConfig`` (TRL 1.16.0), ``LoraConfig.to_dict()`` (peft 0.21.2) and a
saved ``config.json`` hold (bench/user_file_templates.py). Sources of each reading:

* ``activation_checkpointing`` replaces ``gradient_checkpointing``, its deprecated alias, which
  ``TrainingArguments.__post_init__`` uses only when the new name is unset (transformers 5.24.0,
  src/transformers/training_args.py); ``activation_checkpointing_kwargs`` takes ``every_n_layers``
  and ``offload`` (``PreTrainedModel.activation_checkpointing_enable``).
* ``use_liger_kernel`` calls ``apply_liger_kernel(model, liger_kernel_config)``
  (src/transformers/trainer.py), whose ``fused_linear_cross_entropy`` defaults to True
  (https://github.com/linkedin/Liger-Kernel, src/liger_kernel/transformers/monkey_patch.py).
* TRL's ``padding_free`` flattens the batch into one sequence; ``activation_offloading`` keeps the
  saved activations in host memory (trl/trainer/sft_config.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from triage.cli import main
from triage.ingest.config import read_config

TEMPLATES = Path(__file__).resolve().parents[2] / "bench" / "data" / "user_files"


def template(name: str) -> dict:
    return json.loads((TEMPLATES / name).read_text(encoding="utf-8"))["data"]


def read_data(data: dict, path: str = "args.json"):
    reading = read_config(json.dumps(data, indent=1), path)
    return reading, {f.name: (f.raw, f.line) for f in reading.found}


def test_every_key_the_libraries_write_is_understood():
    for name in ("training_args.json", "sft_config.json", "trl_model_config.json", "adapter_config.json"):
        reading, _ = read_data(template(name), name)
        assert reading.unknown_keys == [], name
        if name != "trl_model_config.json":  # ModelConfig alone leaves checkpointing and bf16 to TRL
            assert reading.notes == [], name
    for preset, config in template("model_configs.json").items():
        reading, got = read_data({**config, "dtype": "bfloat16"}, "config.json")
        assert reading.kind == "model_config" and reading.unknown_keys == [], preset
        assert got["torch_dtype"][0] == "bf16"


def test_activation_checkpointing_is_gradient_checkpointing_and_wins_over_the_old_name():
    args = {"output_dir": "out", "per_device_train_batch_size": 2, "activation_checkpointing": True}
    _, got = read_data(args)
    assert got["gradient_checkpointing"] == (True, 4)  # the line the key is written on
    # both written and disagreeing: transformers uses the new name
    _, got = read_data({**args, "gradient_checkpointing": True, "activation_checkpointing": False})
    assert got["gradient_checkpointing"][0] is False
    _, got = read_data({**args, "gradient_checkpointing": True, "activation_checkpointing": None})
    assert got["gradient_checkpointing"][0] is True  # unset new name: the alias counts


def test_checkpointing_every_n_layers_and_offload_are_said_not_dropped():
    args = template("training_args.json")
    args.update(activation_checkpointing=True, activation_checkpointing_kwargs={"every_n_layers": 2, "offload": True})
    args["gradient_checkpointing_kwargs"] = args["activation_checkpointing_kwargs"]  # the mirrored alias
    reading, _ = read_data(args)
    assert len(reading.notes) == 2  # once, not once per name
    assert "every_n_layers=2" in reading.notes[0] and "low" in reading.notes[0]
    assert "offload=true" in reading.notes[1] and "host memory" in reading.notes[1]
    reading, _ = read_data({**template("sft_config.json"), "activation_offloading": True})
    assert [n for n in reading.notes if "activation_offloading=true" in n]


def test_liger_kernel_means_a_fused_loss_unless_its_config_turns_it_off():
    _, got = read_data({**template("training_args.json"), "use_liger_kernel": True})
    assert got["fused_loss"][0] is True
    _, got = read_data(
        {
            **template("training_args.json"),
            "use_liger_kernel": True,
            "liger_kernel_config": {"fused_linear_cross_entropy": False},
        }
    )
    assert got["fused_loss"][0] is False
    _, got = read_data(template("training_args.json"))
    assert got["fused_loss"][0] is False  # use_liger_kernel: false is a statement
    _, got = read_data({"base_model": "m", "datasets": [], "liger_fused_linear_cross_entropy": True}, "axolotl.yaml")
    assert got["fused_loss"][0] is True
    _, got = read_data({"base_model": "m", "datasets": [], "cut_cross_entropy": True}, "axolotl.yaml")
    assert got["fused_loss"][0] is True


def test_padding_free_and_the_4bit_compute_dtype():
    _, got = read_data({**template("sft_config.json"), "padding_free": True})
    assert got["padding"][0] == "none"
    saved = {**template("model_configs.json")["llama-2-7b"], "quantization_config": template("bnb_4bit.json")}
    _, got = read_data(saved, "config.json")
    assert got["quantization"][0] == "4bit" and got["double_quant"][0] is True
    assert got["bnb_compute_dtype"][0] == "bf16"


def test_a_liger_run_is_estimated_with_the_fused_loss(tmp_path, capsys):
    """The user's path: the same TrainingArguments file with use_liger_kernel on sizes a smaller loss block."""
    figures = {}
    for liger in (False, True):
        path = tmp_path / f"args-{liger}.json"
        path.write_text(json.dumps({**template("training_args.json"), "use_liger_kernel": liger, "bf16": True}))
        argv = ["estimate", "--model", "llama-3-8b", "--config", str(path), "--max-length", "2048"]
        main([*argv, "--finetune-method", "lora", "--format", "json"])
        data = json.loads(capsys.readouterr().out)
        figures[liger] = data["components"].get("logits_loss", 0)
    assert figures[True] < figures[False] / 4


def test_trl_defaults_that_changed_between_releases_are_said():
    """TRL turns gradient checkpointing on from 0.22.0 and bf16 from 0.19.0 (trl/trainer/*_config.py at those
    tags); a recipe that leaves them out is read with a note, not sized silently as the Trainer default."""
    recipe = {"model_name_or_path": "Qwen/Qwen2.5-7B", "dataset_name": "trl-lib/Capybara", "use_peft": True}
    reading, got = read_data(recipe, "trl.yaml")
    assert "gradient_checkpointing" not in got and "mixed_precision" not in got
    assert any("TRL 0.22.0" in n for n in reading.notes) and any("TRL 0.19.0" in n for n in reading.notes)
    assert reading.unknown_keys == []  # dataset_name is TRL's ScriptArguments
    reading, got = read_data({**recipe, "activation_checkpointing": True, "bf16": True}, "trl.yaml")
    assert got["gradient_checkpointing"][0] is True and got["mixed_precision"][0] == "bf16"
    assert reading.notes == []


def test_trl_use_peft_over_a_4bit_base_is_qlora():
    recipe = {"model_name_or_path": "m", "max_length": 512, "use_peft": True, "load_in_4bit": True}
    _, got = read_data(recipe, "trl.yaml")
    assert got["finetune_method"] == ("qlora", 5) and got["quantization"][0] == "4bit"


def test_trl_use_peft_without_lora_settings_gets_modelconfig_defaults():
    """`trl sft --config` with use_peft and no lora_r / lora_dropout: ModelConfig's 16 and 0.05 (v0.8.0 to v1.9.0)."""
    reading, got = read_data({"model_name_or_path": "m", "use_peft": True, "max_length": 512}, "trl.yaml")
    assert got["lora_r"][0] == 16 and got["lora_dropout"][0] == 0.05
    noted = {f.name: f.note for f in reading.found}
    assert "ModelConfig" in noted["lora_dropout"]
    _, got = read_data({"model_name_or_path": "m", "use_peft": True, "lora_r": 64, "lora_dropout": 0.0}, "trl.yaml")
    assert got["lora_r"][0] == 64 and got["lora_dropout"][0] == 0.0


def test_torch_empty_cache_steps_is_quiet_when_null_and_listed_when_set():
    reading, _ = read_data({**template("training_args.json"), "torch_empty_cache_steps": None})
    assert reading.unknown_keys == []
    reading, _ = read_data({**template("training_args.json"), "torch_empty_cache_steps": 50})
    assert reading.unknown_keys == ["torch_empty_cache_steps"]  # no fact holds it yet: not dropped silently
