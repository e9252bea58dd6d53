"""The reader-against-threads comparison (bench/bench_reader.py): what counts as reading a fact right."""

from __future__ import annotations

import pytest

from triage import api
from triage.authoring.reading import agree, compare, total
from triage.corpus import Label, Record


@pytest.mark.parametrize(
    ("name", "thread", "read", "sizes", "same"),
    [
        ("gpu_name", "A100 40GB", "A100", (None, None), True),  # the size is a fact of its own
        ("gpu_name", "RTX 4090", "V100", (None, None), False),
        ("gpu_name", "A100", "A10", (None, None), False),
        ("model_name", "llama-7b", "decapoda-research/llama-7b-hf", (7.0, 7.0), True),
        ("model_name", "Qwen-14B-Chat-Int4", "qwen-7b", (14.0, 7.0), False),
        ("model_name", "chatglm2-6b", "chatglm2", (None, None), True),
        ("torch_version", "2.5.1", "2.5.1+cu124", (None, None), True),
        ("torch_version", "1.6.0", "1.6", (None, None), True),
        ("torch_version", "2.0.1", "2.1.0", (None, None), False),
        ("phase", "loading", "generation", (None, None), False),
        ("quantization", "4bit", "4bit", (None, None), True),
    ],
)
def test_what_counts_as_the_thread_s_value(
    name: str, thread: str, read: str, sizes: tuple[float | None, float | None], same: bool
) -> None:
    assert agree(name, thread, read, *sizes) is same


def _record(report: str, **facts: object) -> Record:
    label = Label(category="batch_size")
    return Record("https://example.invalid/1", "x", "en", "OOM", report, label, facts=facts)


def test_a_misread_fact_lowers_precision_and_an_unsaid_one_only_recall() -> None:
    kb = api.knowledge()
    records = [
        _record("Fine-tuning llama-7b on an RTX 3090 with batch_size=8", gpu_name="RTX 3090", batch_size=8),
        _record("Training on my 4090 runs out of memory", gpu_name="RTX 3090"),  # the thread later says a 3090
        _record("It runs out of memory", gpu_name="A100"),  # the first post never names the card
    ]
    tallies = compare(kb, records)
    gpu = tallies["gpu_name"]
    assert (gpu.stated, gpu.read, gpu.right) == (3, 2, 1)
    assert gpu.wrong == [("https://example.invalid/1", "RTX 3090", "RTX 4090")]
    assert tallies["batch_size"].right == 1
    assert total(tallies).precision == pytest.approx(2 / 3)


def test_lora_on_a_4bit_base_is_the_thread_s_qlora() -> None:
    kb = api.knowledge()
    records = [
        _record("LoRA on llama-7b loaded with load_in_4bit=True runs out of memory", finetune_method="qlora"),
        _record("LoRA on llama-7b in fp16 runs out of memory", finetune_method="qlora"),  # no 4-bit base: not QLoRA
    ]
    method = compare(kb, records)["finetune_method"]
    assert (method.read, method.right) == (2, 1)
    assert method.wrong == [("https://example.invalid/1", "qlora", "lora")]
