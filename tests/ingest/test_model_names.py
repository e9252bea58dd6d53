"""The model a line names, and its size in billions of parameters."""

from __future__ import annotations

import pytest

from triage.ingest.model_names import model_in_line


@pytest.mark.parametrize(
    ("line", "name", "size"),
    [
        ("fine-tuning Qwen/Qwen2.5-7B-Instruct on one card", "Qwen/Qwen2.5-7B-Instruct", 7.0),
        ("mistralai/Mixtral-8x7B-v0.1 OOM", "mistralai/Mixtral-8x7B-v0.1", 46.7),  # experts share attention layers
        ("llama 65b on 8 A100", "llama-65b", 65.0),
        ("百川13B爆显存", "baichuan-13b", 13.0),
        ("Qwen2.5vl32B merge", "qwen2.5vl-32b", 32.0),
        ("internlm2_7b_chat 训练", "internlm2-7b", 7.0),
        ("chatglm2就爆显存", "chatglm2", 6.0),
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
