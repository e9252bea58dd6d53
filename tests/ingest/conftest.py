from __future__ import annotations

from pathlib import Path

import pytest

from triage.kb.loader import load_knowledge

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ingest"


@pytest.fixture(scope="session")
def specs():
    kb, _ = load_knowledge()
    return kb.facts


@pytest.fixture
def fixture_path():
    def path(name: str) -> str:
        return str(FIXTURES / name)

    return path
