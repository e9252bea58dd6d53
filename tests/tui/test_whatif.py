"""The memory panel's model: the real estimate, what-if with remedies, the bar's cells and the capacity mark."""

from __future__ import annotations

import pytest

from triage.api import read as read_inputs
from triage.estimate import estimate, saving
from triage.interview import Interview
from triage.kb.loader import KnowledgeBase
from triage.tui.whatif import (
    OVERHEAD,
    bar_cells,
    capacity_cell,
    memory_view,
    merged_changes,
    saving_label,
)

GIB = 1024**3


def over_full(fkb: KnowledgeBase) -> Interview:
    iv = Interview(fkb, start=read_inputs(fkb, symptoms=["LLaMA-7B LoRA on a 3090, CUDA out of memory at step 0"]))
    iv.answer(False)  # gradient checkpointing off
    assert iv.facts.value("gradient_checkpointing") is False
    return iv


def test_the_view_is_the_estimators_estimate(fkb):
    iv = over_full(fkb)
    facts = iv.diagnosis.session.facts
    view = memory_view(iv.memory, facts)
    est = estimate(facts)
    assert (view.low, view.expected, view.high) == (
        est.device_total.low,
        est.device_total.expected,
        est.device_total.high,
    )
    assert view.capacity == est.capacity_bytes and view.fits is est.fits is False
    assert sum(s.bytes for s in view.segments) == est.device_total.expected
    assert view.segments[-1].name == OVERHEAD
    assert view.segments[0].name == est.largest_component
    assert view.plan == ("enable-gradient-checkpointing",) and view.plan_fits


def test_what_if_applies_the_remedies_changes(fkb):
    iv = over_full(fkb)
    facts = iv.diagnosis.session.facts
    remedy = fkb.remedies["enable-gradient-checkpointing"]
    view = memory_view(iv.memory, facts, [remedy])
    assert view.applied == (remedy.id,)
    assert view.saved == saving(facts, remedy.changes)
    assert view.expected == memory_view(iv.memory, facts).expected - view.saved
    assert view.fits is True
    # the remedies together: a later one wins where two set the same fact
    four, eight = fkb.remedies["load-in-4bit"], fkb.remedies["load-in-8bit"]
    assert merged_changes([four, eight])["quantization"] == "8bit"


def test_the_bar_marks_the_capacity_inside_an_over_full_bar(fkb):
    iv = over_full(fkb)
    view = memory_view(iv.memory, iv.diagnosis.session.facts)
    for width in (10, 37, 80):
        cells = bar_cells(view, width)
        assert sum(n for _, n in cells) <= width
        at = capacity_cell(view, width)
        assert at is not None
        # the capacity is about where capacity / scale puts it, well inside the bar
        assert abs(at - view.capacity / max(view.high, view.capacity) * width) <= 1.5
        assert 0 <= at < width - 1


def test_a_run_that_fits_leaves_the_free_part_up_to_the_capacity(fkb):
    iv = over_full(fkb)
    facts = iv.diagnosis.session.facts
    view = memory_view(iv.memory, facts, [fkb.remedies["enable-gradient-checkpointing"]])
    assert view.capacity is not None and view.high < view.capacity  # even the high estimate fits
    cells = bar_cells(view, 40)
    assert cells[-1][0] == "free" and sum(n for _, n in cells) == 40  # the bar ends at the capacity
    assert capacity_cell(view, 40) == 39


def test_without_a_model_it_says_what_it_needs(fkb):
    iv = Interview(fkb, start=read_inputs(fkb, symptoms=["CUDA out of memory"]))
    view = memory_view(iv.memory, iv.diagnosis.session.facts)
    assert not view.available
    assert view.needs == ("model_name or model_params_b", "gpu_name or gpu_memory_bytes")
    assert "model" in view.reason
    assert bar_cells(view, 40) == [] and capacity_cell(view, 40) is None


@pytest.mark.parametrize(
    ("saved", "en", "zh"),
    [
        (int(11.3 * GIB), "saves 11.3 GiB", "节省 11.3 GiB"),
        (-GIB, "costs 1.0 GiB", "多用 1.0 GiB"),
        (0, "saves ~0 on this run", "对本次训练几乎无节省"),
    ],
)
def test_saving_labels(saved, en, zh):
    assert saving_label(saved, "en") == en
    assert saving_label(saved, "zh") == zh
    assert saving_label(None, "en") is None
