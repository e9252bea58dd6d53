"""Typed facts: values are read as their fact's type, bad ones are refused with a clear message."""

from __future__ import annotations

import pytest

from triage.facts import FactError, coerce, parse_bytes


def test_sizes_and_versions(kb):
    assert coerce(kb.facts["gpu_memory_bytes"], "24GiB") == 24 * 1024**3
    assert coerce(kb.facts["gpu_memory_bytes"], "24 GB") == 24 * 1000**3
    assert coerce(kb.facts["transformers_version"], "v4.31") == "4.31"
    assert coerce(kb.facts["gradient_checkpointing"], "否") is False
    assert parse_bytes("512MiB") == 512 * 1024**2


@pytest.mark.parametrize(("name", "raw"), [("batch_size", "-3"), ("max_length", "-1"), ("gpu_memory_bytes", "-1")])
def test_negative_numbers_are_refused(kb, name, raw):
    with pytest.raises(FactError, match="cannot be negative"):
        coerce(kb.facts[name], raw)


@pytest.mark.parametrize(
    ("name", "raw"), [("gpu_count", "0"), ("batch_size", "0"), ("max_length", "0.4"), ("lora_r", "0")]
)
def test_counts_below_their_minimum_are_refused(kb, name, raw):
    with pytest.raises(FactError, match="must be at least 1"):
        coerce(kb.facts[name], raw)


def test_zero_stays_a_value_where_a_run_can_have_it(kb):
    assert coerce(kb.facts["oom_step"], "0") == 0
    assert coerce(kb.facts["zero_stage"], "0") == 0
    assert coerce(kb.facts["dataloader_num_workers"], "0") == 0


@pytest.mark.parametrize(
    ("name", "raw"), [("batch_size", "lots"), ("phase", "lunch"), ("gpu_memory_bytes", "24 parsecs")]
)
def test_unreadable_values_are_refused(kb, name, raw):
    with pytest.raises(FactError):
        coerce(kb.facts[name], raw)
