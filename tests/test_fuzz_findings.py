"""Inputs that bench/fuzz.py found to break a promise: no traceback, no hang, one-line errors.

Each hostile input goes through the real CLI in a fresh process. The answer must be normal
(exit 0) or a one-line refusal (exit 3), never a traceback, and it must come within a time
bound: the time a trivial diagnosis takes on this machine (imports, the knowledge cache,
the analysis) plus what the fuzz bench allows for reading, 2 s per 100 KB (at least 2 s).

A finding that is not fixed yet is marked ``xfail(strict=True)``: the test passes while the
bug is there and fails once it is fixed, so whoever fixes it removes the mark.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HOSTILE = Path(__file__).parent / "fixtures" / "hostile"
#: Seconds of reading allowed per 100 KB of input (bench/fuzz.py's --bound).
BOUND_PER_100KB = 2.0


def _run(args: list[str], env: dict[str, str], timeout: float) -> tuple[int | None, str, float]:
    """Exit code (None on timeout), stderr and elapsed seconds of ``python -m triage ARGS``."""
    t0 = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "triage", *args],
            capture_output=True,
            text=True,
            errors="replace",
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None, "", time.monotonic() - t0
    return proc.returncode, proc.stderr, time.monotonic() - t0


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory):
    """A runner with its own warmed knowledge cache, and the time a trivial diagnosis takes."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path_factory.mktemp("cache")), COLUMNS="100")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    _run(["diagnose", "--symptom", "CUDA out of memory"], env, 300)  # builds the cache
    code, err, baseline = _run(["diagnose", "--symptom", "CUDA out of memory"], env, 300)
    assert code == 0, err

    def run(option: str, path: Path, slack: float = 1.0) -> tuple[int | None, str, float, float]:
        per = BOUND_PER_100KB * slack
        bound = baseline + max(per, per * path.stat().st_size / 100_000)
        code, err, elapsed = _run(["diagnose", option, str(path)], env, timeout=bound)
        return code, err, elapsed, bound

    return run


def _check(result: tuple[int | None, str, float, float]) -> None:
    code, err, elapsed, bound = result
    assert code is not None and elapsed <= bound, f"no answer within {bound:.1f} s (a hang, or a slow path)"
    assert "Traceback" not in err, err
    assert code in (0, 3), f"exit {code}: {err}"
    if code == 3:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("triage: "), err


# fixed: describes_a_fix looks at most CLAUSE_REACH characters each way (was quadratic in a line's length)
@pytest.mark.parametrize("name", ["fuzz-inline-quadratic.txt", "fuzz-inline-quadratic-gpu.txt"])
def test_a_long_line_of_settings_is_read_in_linear_time(cli, name):
    # linear now (~1.5 s for 32 KB on a busy 2-core machine); the quadratic path took 19-60 s
    _check(cli("--symptom-file", HOSTILE / name, slack=4.0))


# fixed: @cache is back on gpus._models (c1a012d had moved it onto _plural)
def test_many_short_lines_are_read_quickly(cli):
    _check(cli("--symptom-file", HOSTILE / "fuzz-many-short-lines.txt", slack=4.0))


# was ~25-45 us per character; the possessive blank runs of 020d830 bring it to ~10 us (4.8 s for 480 KB)
def test_long_digit_runs_are_read_quickly(cli):
    _check(cli("--symptom-file", HOSTILE / "fuzz-digit-lines.txt", slack=2.0))
