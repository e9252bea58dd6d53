"""The phase of the run said in words."""

from __future__ import annotations

import pytest

from triage.ingest.phase_words import ASKS_IF_SUPPORTED, fails_while_loading, loads_for_inference, phases_in_order


@pytest.mark.parametrize(
    ("line", "first"),
    [
        ("评估时爆显存", "evaluation"),
        ("OOM while loading the model", "loading"),
        ("merge_and_unload 的时候显存不够", "merging"),
        # a line that names a part of the run and says it was training means that part
        ("during training the evaluation step runs out of memory", "evaluation"),
        # the phase as the subject of the failure
        ("Evaluation OOMs after the first epoch", "evaluation"),
        ("evaluate() runs out of GPU memory on the 3000-row eval set", "evaluation"),
        ("一到验证就爆显存", "evaluation"),
        ("generation OOMs on long prompts", "generation"),
        ("it OOMs every time it starts generating completions", "generation"),
        ("OOM during deepspeed initialization, before the first step", "loading"),
        ("with ZeRO-3 it OOMs in accelerator.prepare()", "loading"),
        # rounds of a chat counted after the verb: a demo that ran and then failed while answering
        ("web_demo.py 对话几轮后 OOM", "generation"),
        ("聊了十几轮就爆显存", "generation"),
    ],
)
def test_the_first_phase_a_line_names(line: str, first: str) -> None:
    assert phases_in_order(line)[0][0] == first


@pytest.mark.parametrize(
    ("line", "failed"),
    [
        ("CUDA out of memory while loading the model", True),
        ("after loading the model successfully, training OOMs at step 3", False),
        ("加载模型完成后，训练时爆显存", False),
        # a progress bar at its end: the load finished before whatever failed next
        ("Loading checkpoint shards: 100%|██████████| 10/10 [00:02<00:00, 3.40it/s]", False),
        ("Loading checkpoint shards: 4/4 [00:10<00:00]", False),
        ("Loading checkpoint shards:  67%|██████▋   | 2/3 [00:41<00:20]", True),
    ],
)
def test_loading_is_what_failed_only_when_it_did_not_go_fine(line: str, failed: bool) -> None:
    assert fails_while_loading(line) is failed


def test_a_question_whether_something_is_supported_is_found() -> None:
    assert ASKS_IF_SUPPORTED.search("export 能够支持多张卡加载模型吗？") is not None
    assert ASKS_IF_SUPPORTED.search("加载模型时爆显存") is None


@pytest.mark.parametrize(
    ("line", "load"),
    [
        ("How to load such a big model into 40Gb of A100 ram (just for inference)?", True),
        ("Loading Llama-2-13b for inference only, nvidia-smi shows 52GB", True),
        ("加载模型用于推理，显存不足", True),
        ("I just try to load the 7B model to make CLI inference, but I got OOM Error", True),  # LLaVA#228
        ("I load the model for inference and it OOMs during generation", False),  # generation named
        ("OOM when running inference", False),  # nothing about loading
    ],
)
def test_loading_a_model_meant_for_inference_is_the_load(line: str, load: bool) -> None:
    assert loads_for_inference(line) is load
