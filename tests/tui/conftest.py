"""Fixtures for the TUI tests: a frozen knowledge base, an app factory, a steady estimator for snapshots.

The Pilot tests run the real estimator; only the snapshots that show memory
numbers size runs with :func:`round_numbers`, so they do not move each time
the estimator's formulas are tuned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import triage.estimate.estimator as estimator
from triage.api import read as read_inputs
from triage.estimate import Band, BandItem, Component, Estimate, Phase, Run
from triage.interview import Interview
from triage.kb.loader import KnowledgeBase, load_checked
from triage.tui.app import TriageApp, make_app

FIXTURE_KB = Path(__file__).parent.parent / "fixtures" / "tui" / "knowledge"
SYMPTOM = "LLaMA-7B LoRA on a 3090, CUDA out of memory at step 0"
GIB = 1024**3


@pytest.fixture(scope="session")
def fkb() -> KnowledgeBase:
    return load_checked(FIXTURE_KB)


@pytest.fixture(autouse=True)
def no_similar_reports(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The TUI tests drive the interview on a small fixture knowledge base: no corpus votes (or shows) in them."""
    monkeypatch.setenv("TRIAGE_CORPUS", str(tmp_path_factory.mktemp("empty-corpus")))


@pytest.fixture
def build(fkb: KnowledgeBase, tmp_path: Path) -> Callable[..., TriageApp]:
    def factory(symptom: str | None = SYMPTOM, lang: str = "en") -> TriageApp:
        start = read_inputs(fkb, symptoms=[symptom] if symptom else [])
        interview = Interview(fkb, start=start, lang=lang)
        return make_app(interview, export_dir=tmp_path)

    return factory


def _drive(app: TriageApp, steps: Callable[[Any], Awaitable[None]], size: tuple[int, int] = (80, 24)) -> None:
    """Run ``steps(pilot)`` against ``app`` headless."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await steps(pilot)

    asyncio.run(main())


@pytest.fixture
def drive() -> Callable[..., None]:
    return _drive


def round_numbers(run: Run) -> Estimate:
    """A stand-in for the estimator's sizing with round numbers, for the snapshots only.

    The run is still read from the facts by the real estimator (and derived
    facts, savings and the plan go through the real code); only the bytes are
    fixed: 2 B per parameter rounded to whole billions (0.5 B in 4-bit), 14 GiB
    of activations without gradient checkpointing and 2 GiB with it, 1 GiB of
    CUDA context. Formula changes in the estimator then leave the SVGs alone.
    """
    params = round(run.arch.total_params() / 1e9)
    weights = int(params * (0.5 if run.quantization == "4bit" else 2) * GIB)
    components = {"weights": weights, "activations": (2 if run.gc else 14) * GIB}
    peak = Phase("backward", "stand-in", components)
    total = sum(components.values()) + GIB
    band = Band(total, total, total, (BandItem("cuda_context", GIB, GIB, GIB, "stand-in"),))
    sizes = {k: Component(k, v, "stand-in") for k, v in components.items()}
    fits = None if run.capacity_bytes is None else total <= run.capacity_bytes
    return Estimate(replace(run, assumptions=()), sizes, (peak,), peak, band, run.capacity_bytes, fits)


@pytest.fixture
def steady_estimator(monkeypatch: pytest.MonkeyPatch) -> None:
    """Size runs with :func:`round_numbers` (every estimator entry point goes through ``estimate_run``)."""
    monkeypatch.setattr(estimator, "estimate_run", round_numbers)
