"""The model a line names, and its size in billions of parameters."""

from __future__ import annotations

import pytest

from triage.ingest.model_names import is_moe, model_in_line


@pytest.mark.parametrize(
    ("line", "name", "size"),
    [
        ("fine-tuning Qwen/Qwen2.5-7B-Instruct on one card", "Qwen/Qwen2.5-7B-Instruct", 7.0),
        ("mistralai/Mixtral-8x7B-v0.1 OOM", "mistralai/Mixtral-8x7B-v0.1", 46.7),  # experts share attention layers
        ("llama 65b on 8 A100", "llama-65b", 65.0),
        # the version written apart too
        ("OOM with llama 3.1 8B on one A10G", "llama3.1-8b", 8.0),
        ("qwen 2.5 7b lora 爆显存", "qwen2.5-7b", 7.0),
        ("gemma 2 9b on a 4090", "gemma2-9b", 9.0),
        ("百川13B爆显存", "baichuan-13b", 13.0),
        ("Qwen2.5vl32B merge", "qwen2.5vl-32b", 32.0),
        ("internlm2_7b_chat 训练", "internlm2-7b", 7.0),
        ("chatglm2就爆显存", "chatglm2", 6.0),
        # vision-language models whose names carry no size, as development-split threads name them
        ("--model_type minicpm-v-v2_5-chat", "minicpm-llama3-v-2.5", 8.0),
        ("openbmb/MiniCPM-Llama3-V-2_5 lora", "openbmb/MiniCPM-Llama3-V-2_5", 8.0),
        ("minicpmV2.6 微调", "minicpm-v-2.6", 8.0),
        ("CogVLM 微调需要多少显存", "cogvlm-17b", 17.0),
        ("finetune Cogagent with sat weights", "cogagent-18b", 18.0),
    ],
)
def test_a_model_and_its_size(line: str, name: str, size: float) -> None:
    pairs, _, _ = model_in_line(line)
    assert dict(pairs) == {"model_name": name, "model_params_b": size}


def test_a_model_said_to_work_is_not_the_failing_runs() -> None:
    _, _, worked = model_in_line("I was able to fine-tune llama-7b, but 13B runs out of memory")
    assert worked


def test_a_script_path_names_no_model() -> None:
    assert model_in_line("bash finetune/finetune_qwen.sh")[0] == []


@pytest.mark.parametrize("line", ["CogVLM2 推理", "MiniCPM-V 微调", "MiniCPM-V-2 lora"])
def test_a_family_released_in_several_sizes_gets_none(line: str) -> None:
    # CogVLM2 and the MiniCPM-V versions other than 2.5 and 2.6 are not the sizes the table knows
    assert "model_params_b" not in dict(model_in_line(line)[0])


@pytest.mark.parametrize(
    "name",
    [
        "mistralai/Mixtral-8x7B-v0.1",
        "Qwen/Qwen3-30B-A3B",
        "Qwen/Qwen2-57B-A14B-Instruct",
        "Qwen/Qwen1.5-MoE-A2.7B",
        "zai-org/GLM-4.5-Air",
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct",
        "openai/gpt-oss-20b",
        "allenai/OLMoE-1B-7B-0924",
        "meta-llama/Llama-4-Scout-17B-16E",
        "jetmoe/jetmoe-8b",
    ],
)
def test_a_mixture_of_experts_is_known_by_its_name(name):
    assert is_moe(name)


@pytest.mark.parametrize(
    "name",
    [
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",  # distilled into a dense Qwen
        "Qwen/Qwen3-8B",
        "THUDM/glm-4-9b",
        "meta-llama/Llama-2-7b-hf",
        "deepseek-ai/deepseek-llm-7b-base",
        "mistralai/Mistral-7B-v0.1",
    ],
)
def test_a_dense_model_is_not_taken_for_one(name):
    assert not is_moe(name)
