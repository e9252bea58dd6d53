from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.hardware.gpus import (
    USABLE_RATIO,
    find_gpu,
    find_mention,
    gpu_presets,
    mentions,
    usable_bytes,
)

GiB = 1024**3
MiB = 1024**2


@pytest.mark.parametrize(
    ("typed", "gpu_id", "bf16", "fa2"),
    [
        ("NVIDIA GeForce RTX 3090", "rtx-3090", True, True),
        ("T4", "t4", False, False),
        ("Tesla V100-SXM2-32GB", "v100-32gb", False, False),
        ("A100-SXM4-80GB", "a100-80gb", True, True),
        ("A10G", "a10g", True, True),
        ("2080 Ti", "rtx-2080-ti", False, False),
        ("RTX 3060", "rtx-3060-12gb", True, True),
        ("4090", "rtx-4090", True, True),
        ("L4", "l4", True, True),
        ("H100 80GB HBM3", "h100-80gb", True, True),
        ("H200", "h200", True, True),
        ("a100 40g", "a100-40gb", True, True),
    ],
)
def test_gpu_presets(typed, gpu_id, bf16, fa2):
    gpu = find_gpu(typed)
    assert gpu is not None and gpu.id == gpu_id
    assert gpu.bf16 is bf16 and gpu.supports_fa2 is fa2


def test_every_gpu_has_sane_memory():
    for gpu in gpu_presets():
        assert 0.85 * gpu.memory_mib / 1024 < gpu.usable_gib <= gpu.memory_mib / 1024
        # nvidia-smi's total is within a few percent of the size the card is sold as
        assert 0.9 * gpu.nominal_gb * 1024 < gpu.memory_mib <= 1.03 * gpu.nominal_gb * 1024, gpu.id


@pytest.mark.parametrize(
    ("printed", "gpu_id"),
    [
        # what nvidia-smi / torch.cuda.get_device_name print
        ("NVIDIA GeForce RTX 4090 D", "rtx-4090-d"),
        ("NVIDIA H100 NVL", "h100-nvl"),
        ("NVIDIA A100-PCIE-40GB", "a100-40gb"),
        ("NVIDIA GeForce RTX 3090 Ti", "rtx-3090-ti"),
        ("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"),
        ("NVIDIA RTX A6000", "rtx-a6000"),
        ("NVIDIA GeForce RTX 4060 Ti", "rtx-4060-ti-16gb"),
        ("NVIDIA A800-SXM4-80GB", "a800-80gb"),
        ("NVIDIA H800", "h800"),
        ("NVIDIA L40", "l40"),
        ("NVIDIA L40S", "l40s"),
        ("Tesla V100-PCIE-16GB", "v100-16gb"),
        ("NVIDIA GeForce RTX 3080 Ti", "rtx-3080-ti"),
        ("NVIDIA GeForce GTX 1080 Ti", "gtx-1080-ti"),
        ("AMD Instinct MI300X", "mi300x"),
    ],
)
def test_names_nvidia_smi_prints(printed, gpu_id):
    gpu = find_gpu(printed)
    assert gpu is not None and gpu.id == gpu_id


def test_every_id_name_and_alias_finds_its_own_card():
    for gpu in gpu_presets():
        for typed in (gpu.id, gpu.name, *gpu.aliases):
            found = find_gpu(typed)
            assert found is not None and found.id == gpu.id, (typed, found and found.id)


def test_no_two_models_claim_the_same_words():
    for gpu in gpu_presets():
        for typed in (gpu.name, *gpu.aliases):
            models = {m.model for m in mentions(typed)}
            assert models <= {gpu.model}, (typed, models)


def test_a_size_is_settled_only_by_the_text_or_the_model():
    a100 = find_mention("fine-tuning on an A100")
    assert a100 is not None and a100.model == "A100" and a100.gpu is None  # sold as 40 and 80 GB
    assert a100.capability == 8.0
    assert find_gpu("A100").id == "a100-40gb"  # the estimator's default size
    stated = find_mention("an A100 (80GB) and nothing else")
    assert stated is not None and stated.stated_gb == 80 and stated.gpu.id == "a100-80gb"
    single = find_mention("one RTX 3090")
    assert single is not None and single.gpu.id == "rtx-3090"
    assert find_gpu("A100 48GB") is None  # not a size the A100 is sold with


def test_each_model_with_several_sizes_has_one_default():
    models: dict[str, list] = {}
    for gpu in gpu_presets():
        models.setdefault(gpu.model, []).append(gpu)
    for model, variants in models.items():
        assert len({(g.match, g.capability, g.arch) for g in variants}) == 1, model
        if len(variants) > 1:
            assert sum(g.default for g in variants) == 1, model
        assert len({g.nominal_gb for g in variants}) == len(variants), model


def test_suffixes_are_other_models():
    for text, model in (
        ("3090 Ti", "RTX 3090 Ti"),
        ("4090D", "RTX 4090 D"),
        ("4080 SUPER", "RTX 4080 SUPER"),
        ("4070 Ti SUPER", "RTX 4070 Ti SUPER"),
        ("4070 Ti", "RTX 4070 Ti"),
        ("3060 Ti", "RTX 3060 Ti"),
        ("H100 NVL", "H100 NVL"),
        ("A10G", "A10G"),
        ("L40S", "L40S"),
        ("用的4090显卡", "RTX 4090"),
    ):
        found = mentions(text)
        assert [m.model for m in found] == [model], text


def test_typos_never_change_the_digits():
    assert find_gpu("rtx 3900") is None
    assert find_gpu("geforce rtx 3909") is None
    assert find_gpu("totally unknown card") is None
    assert find_gpu("") is None


def test_total_and_capacity_are_different_figures():
    gpu = find_gpu("3090")
    assert gpu is not None
    assert gpu.total_bytes == 24576 * MiB  # nvidia-smi
    assert gpu.capacity_bytes == int(23.69 * GiB)  # PyTorch's OOM message
    t4 = find_gpu("T4")
    assert t4 is not None and t4.nominal_gb == 16 and t4.total_bytes == 15360 * MiB


def test_unmeasured_capacity_is_the_stated_ratio():
    unmeasured = [g for g in gpu_presets() if not g.usable_measured]
    assert unmeasured, "the catalogue has cards without a measured capacity"
    for gpu in unmeasured:
        assert gpu.usable_gib == pytest.approx(USABLE_RATIO * gpu.memory_mib / 1024, abs=0.01)


def test_usable_bytes_converts_a_total_into_pytorchs_capacity():
    gpu = find_gpu("3090")
    assert gpu is not None
    assert usable_bytes(24576 * MiB, gpu) == gpu.capacity_bytes  # nvidia-smi's figure
    assert usable_bytes(24 * GiB, gpu) == gpu.capacity_bytes  # "24G"
    assert usable_bytes(int(23.69 * GiB), gpu) == int(23.69 * GiB)  # already PyTorch's (an OOM message)
    assert usable_bytes(48 * GiB, gpu) == int(48 * GiB * USABLE_RATIO)  # another card's total
    assert usable_bytes(24 * GiB) == 24 * GiB  # no card known: used as given


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises_and_is_deterministic(text):
    assert mentions(text) == mentions(text)
    assert find_gpu(text) == find_gpu(text)
    for m in mentions(text):
        assert re.search(m.variants[0].match, text[m.start : m.end], re.IGNORECASE | re.ASCII)


@pytest.mark.parametrize(
    ("said", "size"),
    [("RTX 3060 Laptop 6GB", 6), ("RTX 4090 laptop", None), ("4090笔记本 16G", 16), ("RTX 3080 Mobile", None)],
)
def test_a_laptop_chip_is_not_the_desktop_card(said, size):
    # the laptop RTX 3060 has 6 GB where the desktop card has 12 (a corpus report, zai-org/ChatGLM-6B#39)
    mention = mentions(said)[0]
    assert mention.gpu is None
    assert mention.stated_gb == size


def test_a_desktop_card_keeps_its_preset():
    assert mentions("RTX 3060 12GB")[0].gpu is not None
