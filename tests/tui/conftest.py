"""Fixtures for the TUI tests: a frozen knowledge base, a fake estimator, an app factory."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from triage.facts import FactSet
from triage.interview import Interview, read_inputs
from triage.kb.loader import KnowledgeBase, load_checked
from triage.tui.app import TriageApp, make_app
from triage.tui.whatif import GIB, Band, Breakdown

FIXTURE_KB = Path(__file__).parent.parent / "fixtures" / "tui" / "knowledge"
SYMPTOM = "LLaMA-7B LoRA on a 3090, CUDA out of memory at step 0"


@pytest.fixture(scope="session")
def fkb() -> KnowledgeBase:
    return load_checked(FIXTURE_KB)


def fake_estimator(facts: FactSet) -> Breakdown:
    """A stand-in estimator with round numbers: weights by size and quantization, activations by checkpointing."""
    params = float(facts.value("model_params_b") or 7)
    per_param = {"4bit": 0.5, "8bit": 1.0}.get(str(facts.value("quantization")), 2.0)
    activations = 2 if facts.value("gradient_checkpointing") is True else 14
    return Breakdown(
        (
            Band("weights", int(params * per_param * GIB)),
            Band("activations", activations * GIB),
            Band("overhead", 1 * GIB),
        )
    )


@pytest.fixture
def build(fkb: KnowledgeBase, tmp_path: Path) -> Callable[..., TriageApp]:
    def factory(symptom: str | None = SYMPTOM, lang: str = "en", estimator: Any = None) -> TriageApp:
        start = read_inputs(fkb, symptoms=[symptom] if symptom else [])
        interview = Interview(fkb, start=start, lang=lang)
        return make_app(interview, estimator=estimator, use_estimator=False, export_dir=tmp_path)

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


@pytest.fixture
def estimator() -> Callable[[FactSet], Breakdown]:
    return fake_estimator
