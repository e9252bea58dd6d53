"""Hostile inputs through the CLI, as a user would hit them: a one-line error or a normal answer, never a
traceback, never a hang.

Each file under tests/fixtures/hostile/ once gave a traceback, a hang or a run of seconds to minutes
(the numbers are in the comments). Files there whose names start with ``fuzz-`` belong to the fuzz
bench (bench/fuzz.py) and are tested by it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

HOSTILE = Path(__file__).parent / "fixtures" / "hostile"

#: (file, option, expected exit code, what stderr must say when the code is 3)
CASES = [
    ("nested-10k.json", "--config", 3, "nested more than 64 levels"),  # RecursionError traceback
    ("nested-10k.json", "--input", 3, "nested more than 64 levels"),  # RecursionError traceback
    ("nested-map-10k.json", "--config", 3, "nested more than 64 levels"),
    ("nested-10k.yaml", "--config", 3, "nested more than 64 levels"),  # 4 s in PyYAML's scanner, then a traceback
    ("billion-laughs.yaml", "--config", 3, "expands to more than"),
    ("recursive-alias.yaml", "--config", 3, "contains itself"),
    ("digits-16k.txt", "--symptom-file", 0, None),  # 11 s (the GPU-count pattern); 32k digits: 45 s
    ("digits-16k.txt", "--input", 0, None),
    ("gpus-after-digits.txt", "--symptom-file", 0, None),
    ("oom-digits.log", "--log", 0, None),  # the OOM message's size pattern rescanned the digits from each one
    ("killed-after-digits.log", "--log", 0, None),  # "<pid> Killed" rescanned the digits
    ("memory-then-spaces.log", "--log", 0, None),  # cubic in the blank run: 4,000 spaces took 17 minutes
    ("memory-then-spaces.log", "--input", 0, None),  # the sniffer's pip-pin pattern was quadratic in blanks
    ("platform-after-tabs.txt", "--env", 0, None),
    ("smi-digits.txt", "--env", 0, None),  # nvidia-smi's "MiB / MiB" pattern rescanned the digits
    ("stars-running.log", "--log", 0, None),  # "***** Running" rescanned the stars
    ("progress-bars.log", "--input", 0, None),  # the sniffer's progress-bar pattern ran to the line's end each time
]


def run(*args: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "COLUMNS": "80"}
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "triage", "diagnose", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    return done, time.monotonic() - start


@pytest.fixture(scope="module")
def startup() -> float:
    """How long a trivial run takes on this machine (the bound below is on top of it)."""
    done, seconds = run("--symptom", "CUDA out of memory")
    assert done.returncode == 0, done.stderr
    return seconds


def assert_clean(done: subprocess.CompletedProcess[str], code: int, says: str | None) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == code, done.stderr
    if code == 3:
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("triage: "), done.stderr
        assert says is not None and says in done.stderr
    else:
        assert done.stdout.strip()


@pytest.mark.parametrize(("name", "option", "code", "says"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_hostile_file_gives_one_line_or_an_answer_quickly(startup, name, option, code, says):
    done, seconds = run(option, str(HOSTILE / name))
    assert_clean(done, code, says)
    assert seconds < startup + 6, f"{seconds:.1f} s"


def test_every_hostile_fixture_is_exercised():
    tested = {name for name, *_ in CASES}
    present = {p.name for p in HOSTILE.iterdir() if not p.name.startswith("fuzz-")}
    assert present <= tested, present - tested


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_input_on_a_named_pipe_does_not_hang(tmp_path, startup):
    """L7: ``--input FIFO`` with a writer that writes once used to block for ever."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = (HOSTILE.parent / "ingest" / "oom" / "torch20_backward.log").read_bytes()
    writer = threading.Thread(target=lambda: fifo.write_bytes(text), daemon=True)
    writer.start()
    done, seconds = run("--input", str(fifo), "--format", "json", timeout=60)
    assert_clean(done, 0, None)
    assert '"oom_requested_bytes"' in done.stdout
    assert seconds < startup + 6


@pytest.mark.parametrize("option", ["--log", "--input", "--config", "--env"])
def test_a_device_is_refused_in_one_line(option):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    done, _ = run(option, "/dev/zero", timeout=60)
    assert_clean(done, 3, "it is a device")
