from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.ingest.config import parse_config_text, read_config
from triage.ingest.errors import IngestError


def read(path: str):
    reading = read_config(Path(path).read_text(encoding="utf-8"), path)
    return reading, {f.name: (f.raw, f.line) for f in reading.found}


def test_training_args_json_and_unknown_keys(fixture_path):
    reading, got = read(fixture_path("config/training_args.json"))
    assert reading.kind == "training_args"
    assert got["batch_size"] == (8, 8)
    assert got["eval_batch_size"] == (16, 9)
    assert got["mixed_precision"] == ("bf16", 21)
    assert got["gradient_checkpointing"] == (False, 30)
    assert reading.unknown_keys == ["my_custom_flag"]


def test_trl_configs(fixture_path):
    reading, got = read(fixture_path("config/sft_config.yaml"))
    assert reading.kind == "trl" and got["trainer_type"][0] == "sft"
    assert got["max_length"] == (4096, 5) and got["packing"][0] is True
    assert got["attn_implementation"][0] == "flash_attention_2"
    reading, got = read(fixture_path("config/dpo_config.json"))
    assert got["trainer_type"][0] == "dpo" and got["max_length"][0] == 1024
    assert got["mixed_precision"][0] == "fp16"


def test_axolotl(fixture_path):
    reading, got = read(fixture_path("config/axolotl.yaml"))
    assert reading.kind == "axolotl"
    assert got["finetune_method"][0] == "qlora"
    assert got["quantization"][0] == "4bit"
    assert got["max_length"] == (4096, 17)
    assert got["batch_size"] == (2, 20)
    assert got["lora_target_modules"][0] == "all-linear"
    assert got["padding"][0] == "max_length"
    assert "mixed_precision" not in got  # bf16: auto is decided at run time
    assert reading.unknown_keys == []


def test_llama_factory(fixture_path):
    reading, got = read(fixture_path("config/llama_factory.yaml"))
    assert reading.kind == "llama_factory"
    assert got["max_length"] == (2048, 15)
    assert got["finetune_method"][0] == "qlora"
    assert got["gradient_checkpointing"][0] is True  # on by default in LLaMA-Factory
    assert got["zero_stage"][0] == 3  # from ds_z3_config.json
    assert got["lora_target_modules"][0] == "all-linear"


def test_peft_adapter_model_config_deepspeed_accelerate(fixture_path):
    reading, got = read(fixture_path("config/adapter_config.json"))
    assert reading.kind == "peft_adapter" and got["lora_r"] == (64, 18)
    assert got["modules_to_save"][0] == "embed_tokens,lm_head"
    assert "finetune_method" not in got  # LoRA and QLoRA adapters look the same
    reading, got = read(fixture_path("config/model_config.json"))
    assert reading.kind == "model_config"
    assert got["num_kv_heads"][0] == 8 and got["num_layers"][0] == 32 and got["vocab_size"][0] == 128256
    assert "use_cache" not in got
    reading, got = read(fixture_path("config/ds_z3.json"))
    assert got["zero_stage"][0] == 3 and got["offload"][0] is True and "batch_size" not in got
    reading, got = read(fixture_path("config/accelerate_config.yaml"))
    assert got["distributed"][0] == "fsdp" and got["offload"][0] is True


def test_bad_configs_raise_one_line(fixture_path):
    with pytest.raises(IngestError, match="not valid YAML") as info:
        read(fixture_path("config/broken.yaml"))
    assert "\n" not in str(info.value)
    with pytest.raises(IngestError, match="mapping"):
        read_config("- a\n- b\n", "list.yaml")
    with pytest.raises(IngestError, match="JSON"):
        read_config('{"a": ', "x.json")


def test_yaml_is_loaded_safely():
    with pytest.raises(IngestError):
        read_config("a: !!python/object/apply:os.system ['echo hi']\n", "evil.yaml")


scalars = st.none() | st.booleans() | st.integers(-5, 100_000) | st.text(max_size=12) | st.floats(allow_nan=False)
configs = st.dictionaries(
    st.sampled_from(
        [
            "per_device_train_batch_size",
            "bf16",
            "deepspeed",
            "lora_r",
            "stage",
            "zero_optimization",
            "quantization_config",
            "target_modules",
            "x",
            "r",
            "peft_type",
            "finetuning_type",
            "cutoff_len",
            "fsdp",
            "adapter",
        ]
    ),
    scalars | st.lists(scalars, max_size=3) | st.dictionaries(st.text(max_size=8), scalars),
)


@settings(max_examples=200, deadline=None)
@given(configs, st.booleans())
def test_arbitrary_configs_never_raise_unexpectedly(data, as_yaml):
    text = yaml.safe_dump(data) if as_yaml else json.dumps(data)
    try:
        a = read_config(text, "c")
    except IngestError:
        return
    assert a == read_config(text, "c")


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_raises_only_ingest_error(text):
    with contextlib.suppress(IngestError):
        read_config(text, "c")


def test_eval_accumulation_steps_null_means_never_offloaded():
    from triage.ingest.config import read_config

    reading = read_config('{"per_device_eval_batch_size": 8, "eval_accumulation_steps": null}', "args.json")
    assert ("eval_accumulation_steps", 0) in [(f.name, f.raw) for f in reading.found]


# -- hostile configs: depth, aliases, size ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000 + "]" * 10_000,
        '{"a":' * 10_000 + "1" + "}" * 10_000,
        "a: " + "[" * 10_000 + "]" * 10_000,
        "a: " + "{b: " * 10_000 + "1" + "}" * 10_000,
        "[" * 10_000,
        "".join(" " * i + f"k{i}:\n" for i in range(200)) + " " * 200 + "x: 1\n",
    ],
    ids=["json-list", "json-map", "yaml-flow", "yaml-flow-map", "json-unclosed", "yaml-block"],
)
def test_deep_configs_are_refused_in_one_line_quickly(text):
    start = time.perf_counter()
    with pytest.raises(IngestError, match="nested more than 64 levels") as info:
        read_config(text, "deep.json")
    assert time.perf_counter() - start < 2
    assert "\n" not in str(info.value)


def test_sixty_four_levels_are_fine():
    text = '{"a":' * 64 + "1" + "}" * 64
    assert read_config(text, "ok.json").kind == "generic"


def test_alias_bombs_and_recursive_aliases_are_refused():
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [{', '.join(['*' + a] * 9)}]\n" for a, b in zip("abcdef", "bcdefg", strict=True)
    )
    start = time.perf_counter()
    with pytest.raises(IngestError, match="expands to more than"):
        read_config(laughs, "laughs.yaml")
    assert time.perf_counter() - start < 2
    with pytest.raises(IngestError, match="contains itself"):
        read_config("lora_target_modules: &loop [q_proj, *loop]\n", "loop.yaml")


def test_brackets_inside_strings_do_not_count():
    deep_text = "[" * 200
    data = parse_config_text(f'{{"note": "{deep_text}", "x": \'{deep_text}\'}}', "s.json")
    assert data["note"] == deep_text
    assert parse_config_text(f"note: it's fine\nx: '{deep_text}'\n", "s.yaml")["x"] == deep_text


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
        max_leaves=30,
    )
)
def test_shape_check_accepts_every_ordinary_value(value):
    text = json.dumps({"x": value})
    assert parse_config_text(text, "v.json") == json.loads(text)


def test_trl_model_init_kwargs_are_read(fixture_path):
    """SFTConfig's model_init_kwargs (the from_pretrained arguments) say the dtype and the attention."""
    reading, got = read(fixture_path("config/sft_config_model_init_kwargs.json"))
    assert reading.kind == "trl"
    assert got["attn_implementation"] == ("eager", 13)
    assert got["torch_dtype"] == ("bf16", 12)
    assert reading.unknown_keys == []


def test_trl_model_config_fields(fixture_path):
    """TRL's ModelConfig in a CLI recipe: use_peft, lora_dropout, 4-bit with nested (double) quantization."""
    reading, got = read(fixture_path("config/trl_model_config.yaml"))
    assert reading.kind == "trl"
    assert got["finetune_method"][0] == "qlora" and got["quantization"][0] == "4bit"  # LoRA over a 4-bit base
    assert got["double_quant"] == (True, 16)
    assert got["lora_dropout"] == (0.05, 13)
    _, full = read_data({"use_peft": False, "per_device_train_batch_size": 1, "output_dir": "o"})
    assert full["finetune_method"][0] == "full"  # TRL trains every parameter without use_peft


def read_data(data: dict):
    reading = read_config(json.dumps(data, indent=1), "args.json")
    return reading, {f.name: (f.raw, f.line) for f in reading.found}


def test_saved_quantized_model_config_gives_quantization_and_double_quant(fixture_path):
    reading, got = read(fixture_path("config/qlora_saved_model_config.json"))
    assert reading.kind == "model_config"
    assert got["quantization"][0] == "4bit" and got["double_quant"][0] is True
    assert got["torch_dtype"][0] == "bf16"


def test_adapter_dropout_and_framework_double_quant_defaults(fixture_path):
    _, got = read(fixture_path("config/adapter_config.json"))
    assert got["lora_dropout"] == (0.05, 13)
    _, got = read(fixture_path("config/llama_factory.yaml"))
    assert got["double_quant"][0] is True  # LLaMA-Factory's double_quantization defaults to True
    _, got = read(fixture_path("config/axolotl.yaml"))
    assert got["double_quant"][0] is True and got["lora_dropout"][0] == 0.05
    _, got = read_data(
        {
            "adapter": "qlora",
            "base_model": "x",
            "datasets": [],
            "bnb_config_kwargs": {"bnb_4bit_use_double_quant": False},
        }
    )
    assert got["double_quant"][0] is False
    _, got = read_data({"quantization_bit": 4, "cutoff_len": 512, "double_quantization": False})
    assert got["double_quant"][0] is False


def test_unknown_keys_inside_model_init_kwargs_are_listed():
    reading, _ = read_data({"dataset_text_field": "t", "model_init_kwargs": {"torch_dtype": "auto", "rope_magic": 3}})
    assert reading.unknown_keys == ["model_init_kwargs.rope_magic"]


def test_a_plain_batch_size_beside_a_per_device_one_is_the_global_batch():
    # lit-gpt style hyperparameters: batch_size is the global batch, micro_batch_size what one device holds
    got = {f.name: f.raw for f in read_config("batch_size: 128\nmicro_batch_size: 4\n", "hparams.yaml").found}
    assert got["batch_size"] == 4
    alone = {f.name: f.raw for f in read_config("batch_size: 16\n", "args.yaml").found}
    assert alone["batch_size"] == 16


@pytest.mark.parametrize(
    ("quantization_config", "bits", "method"),
    [
        ({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False}, "4bit", "gptq"),
        ({"quant_method": "awq", "bits": 4, "version": "gemm", "zero_point": True}, "4bit", "awq"),
        ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}, "4bit", "bitsandbytes"),
        ({"load_in_8bit": True}, "8bit", "bitsandbytes"),
        ({"quant_method": "compressed-tensors", "format": "int-quantized"}, None, "other"),
    ],
    ids=["gptq", "awq", "bnb-4bit", "bnb-8bit-without-method", "another-method"],
)
def test_a_saved_models_quantization_method_is_read(quantization_config, bits, method):
    """A saved model's config.json names how its weights were quantized; bitsandbytes causes need bitsandbytes."""
    _, got = read_data({"model_type": "llama", "quantization_config": quantization_config})
    assert got.get("quantization", (None,))[0] == bits
    assert got["quant_method"][0] == method


def test_a_model_configs_expert_count_says_whether_it_is_a_mixture_of_experts():
    mixtral = read_config(
        '{"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "num_local_experts": 8}', "config.json"
    )
    assert {f.name: f.raw for f in mixtral.found}["moe"] is True
    deepseek = read_config('{"model_type": "deepseek_v3", "hidden_size": 7168, "n_routed_experts": 256}', "config.json")
    assert {f.name: f.raw for f in deepseek.found}["moe"] is True
    dense = read_config('{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32}', "config.json")
    assert "moe" not in {f.name for f in dense.found}
