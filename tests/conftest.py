"""Shared fixtures: the shipped knowledge base, loaded once per test session."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from triage.kb.loader import KnowledgeBase, load_checked

# CI (CI=true in .ci/run and the workflow) runs the property tests with a fixed seed and no
# deadline, so a build is reproducible and a slow shared runner cannot fail it; locally each
# run explores new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    return load_checked()


@pytest.fixture
def lint_kb(tmp_path: Path):
    """Build a small knowledge dir: the valid base fixture with one code's overlay on top."""

    def build(code: str | None = None) -> Path:
        root = tmp_path / f"knowledge-{code or 'base'}"
        shutil.copytree(FIXTURES / "lint" / "base", root)
        if code is not None:
            shutil.copytree(FIXTURES / "lint" / code, root, dirs_exist_ok=True)
        return root

    return build
