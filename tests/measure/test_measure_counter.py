"""The live-bytes counter: CUDA-allocator rounding, frees, peaks and categories."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from triage.measure.result import BLOCK, round_block


@given(st.integers(min_value=1, max_value=1 << 40))
def test_round_block_is_the_smallest_multiple_of_512_not_below_the_request(n: int) -> None:
    r = round_block(n)
    assert r % BLOCK == 0
    assert n <= r < n + BLOCK


def test_round_block_examples() -> None:
    assert round_block(0) == 0  # the CUDA allocator hands out nothing for a 0-byte request
    assert round_block(1) == 512
    assert round_block(512) == 512
    assert round_block(513) == 1024


def test_counter_counts_rounded_storages_and_frees_them() -> None:
    torch = pytest.importorskip("torch")
    from triage.measure.counter import LiveBytes

    counter = LiveBytes()
    with counter:
        a = torch.empty(10, dtype=torch.float32)  # 40 B -> one 512-B block
        b = torch.empty(1000, dtype=torch.bfloat16)  # 2000 B -> 2048
        view = a[2:5]  # a view allocates nothing
        assert counter.current == 512 + 2048
        del b
        assert counter.current == 512
        c = a * 2  # a new 40-B storage
        assert counter.current == 1024
        del view, c
    assert counter.peak == 512 + 2048
    assert counter.peak_totals == {"weights": 512 + 2048}  # setup phase tags weights
    del a


def test_counter_tags_by_phase_and_retags() -> None:
    torch = pytest.importorskip("torch")
    from triage.measure.counter import LiveBytes

    counter = LiveBytes()
    with counter:
        with counter.in_phase("forward"):
            x = torch.ones(256, dtype=torch.float32)  # 1024 B
        with counter.in_phase("backward"):
            g = torch.ones(128, dtype=torch.float32)  # 512 B
        counter.retag(g, "grads")
        assert counter.totals["activations"] == 1024
        assert counter.totals["grads"] == 512
        assert counter.totals["backward_temps"] == 0
        assert counter.category_of(x) == "activations"
    assert counter.peak_phase == "backward"


def test_counter_works_on_fake_tensors_without_allocating() -> None:
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode

    from triage.measure.counter import LiveBytes

    counter = LiveBytes()
    with FakeTensorMode(), counter:
        big = torch.empty((1 << 20, 1024), dtype=torch.bfloat16)  # 2 GiB, shapes only
        assert counter.current == 2 * 1024**3
        del big
        assert counter.current == 0
