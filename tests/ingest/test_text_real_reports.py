"""Readings added for real reports, each tested on words from the corpus' development split.

The phrases below are (parts of) first posts of public threads in ``corpus/records``
whose URL hashes into the development split; the held-out split is never used here.
"""

from __future__ import annotations

import pytest

from triage.corpus import load_corpus
from triage.ingest.text import read_text


def facts(text: str) -> dict[str, object]:
    return {f.name: f.raw for f in read_text(text)}


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # the phase in plain words
        ("每次对话显存占用都会增加几百Mb，请问除了重启程序有别的解决办法吗？", "phase", "generation"),
        ("我这边报内存不够，应该是显存不够的意思吧。目前测试的是推理。", "phase", "generation"),
        ("I just try to load the 7B model to make CLI inference, but I got OOM Error", "phase", "generation"),
        ("训练时显存还是够用的，但是一到eval_step设置的步数就爆OOM了", "phase", "evaluation"),
        ("Got an OOM error after the training finished, not sure why.", "phase", "saving"),
        ("合并 llama 和 lora 模型的时候，加载模型过程中就断开了", "phase", "merging"),
        ("Generate.py fails on `Loading checkpoint shards: 52%` with message `killed`.", "phase", "loading"),
        # host RAM, said in words
        ("进行chatglm2 ptuning时，sh train.sh超内存", "error_kind", "host_oom"),
        ("Generate.py fails on `Loading checkpoint shards: 52%` with message `killed`.", "error_kind", "host_oom"),
        ("使用lora方式微调，利用zero2时会卡住，内存一直升高直到崩溃", "error_kind", "host_oom"),
        # memory that grows
        ("运行chat.sh启动服务之后，在生成结果的时候，显存使用会持续增加，直至最后显存溢出", "memory_growth", "growing"),
        ("其中一张显卡的显存会无限增加直到out of memory", "memory_growth", "growing"),
        # the run trained for a while first
        ("用的是40g A100，总是跑了不到10个steps之后就报显存溢出的错误", "trained_before_oom", True),
        ("单卡（32G），chatglm2微调，微调了几个小时，OOM", "trained_before_oom", True),
        ("我用了4张A10显卡，总是训练一会显存就崩", "trained_before_oom", True),
        # the method, as configs and people say it
        ('"train_mode": "full",', "finetune_method", "full"),
        ("I want to continue pretraining Yi-34 with my domain dataset but I get OOM error", "finetune_method", "full"),
        ("I try to train a full 7B model with the DPO script on 4x4096", "finetune_method", "full"),
    ],
)
def test_reads_what_real_reports_say(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize(
    ("said", "fixed", "not_read"),
    [
        ("It works once I pass torch_dtype=torch.float16", "torch_dtype", "torch_dtype"),
        ("switching to load_in_4bit made it fit", "quantization", "quantization"),
        ("setting gradient_checkpointing=True solved it", "gradient_checkpointing", "gradient_checkpointing"),
        ("改成 batch size 1 就可以了", "batch_size", "batch_size"),
    ],
)
def test_what_fixed_the_run_is_evidence_not_the_failing_setting(said: str, fixed: str, not_read: str) -> None:
    got = facts(said)
    assert fixed in str(got.get("resolved_by", "")).split(",")
    assert not_read not in got


def test_a_setting_that_worked_is_not_the_failing_one() -> None:
    got = facts("Works fine with max_seq_length=2048 but I need long documents, so I set max_seq_length=8192")
    assert got["max_length"] == 8192


def test_a_pretrained_model_is_not_pretraining() -> None:
    assert "finetune_method" not in facts("用预训练模型推理")
    assert "finetune_method" not in facts("we use a pretrained model")


def test_gpu_memory_in_chinese_is_not_host_ram() -> None:
    assert facts("随着提问的问题的增多，GPU内存占用也会增加，内存会溢出").get("error_kind") != "host_oom"


def test_the_phrases_above_come_from_the_development_split() -> None:
    """Guard: every report quoted in this file is a development record (the held-out split stays unread)."""
    dev = "\n".join(r.report for r in load_corpus() if r.split == "dev")
    for said in ("每次对话显存占用都会增加几百Mb", "跑了不到10个steps之后", "I want to continue pretraining Yi-34"):
        assert said in dev


@pytest.mark.parametrize(
    "said",
    [
        "memory in nvidia-smi keeps growing every step until it dies at step 1200",
        "显存一点点涨上去，最后 OOM",
    ],
)
def test_memory_growth_in_the_review_s_words(said: str) -> None:
    """Phrasings from the outside review of the first version (../shared/reviews), not from the corpus."""
    assert facts(said).get("memory_growth") == "growing"


def test_evaluation_starting_is_the_evaluation_phase() -> None:
    said = "training runs fine for the whole epoch but as soon as evaluation starts I get CUDA out of memory"
    assert facts(said).get("phase") == "evaluation"


@pytest.mark.parametrize(
    ("said", "count"),
    [
        ("training on 4xA100s", 4),  # the example
        ("My hardware is 8 * A100 80GB and I used flash_attn", 8),
        ("i only have 4 x 4090 cards, but i can not run internvl-v1-5", 4),
        ("目前机器是有四张A100 40G显卡", 4),
        ("V100-32G * 8", 8),
        ("4块A100，160G的显存", 4),
        ("I have two Tesla T4 GPUs, 16 GB / pic.", 2),
    ],
)
def test_gpu_counts_beside_gpu_names(said: str, count: int) -> None:
    assert facts(said).get("gpu_count") == count


@pytest.mark.parametrize("said", ["on a single T4 with 16 GB", "a 3090 at step 4090", "batch 3090/10000"])
def test_a_model_number_is_never_a_gpu_count(said: str) -> None:
    assert facts(said).get("gpu_count") in (None, 1)
