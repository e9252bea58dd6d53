"""Run ``triage run`` as a user does (``python -m triage run ...``) against small scripts written here."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "fixtures"
TRIAGE = [sys.executable, "-m", "triage"]


@pytest.fixture
def run_env(tmp_path: Path) -> dict[str, str]:
    """An environment where the default log copy goes to a private temp dir and no cgroup is consulted."""
    env = dict(os.environ)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env["TMPDIR"] = str(tmp)
    env["TRIAGE_MEMORY_EVENTS"] = str(tmp_path / "no-memory-events")  # not there: no cgroup v2 here
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p)
    env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    return env


@pytest.fixture
def script(tmp_path: Path):
    """Write a Python script into tmp_path; returns its path."""

    def write(name: str, body: str) -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(body))
        return str(path)

    return write


def triage_run(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*TRIAGE, "run", *args], env=env, cwd=cwd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
