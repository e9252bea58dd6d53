"""The chunk-at-a-time scan (LogScanner.feed_block) gives exactly what feeding each segment gives.

The reference is the per-segment path: :func:`scan` over a plain iterator of the same pairs goes
through :meth:`LogScanner.feed` one segment at a time, the implementation before the fast path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.ingest import lines, logscan
from triage.ingest.lines import iter_file_lines
from triage.ingest.log import LogReading, read_log_lines

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ingest"


def both(path: str) -> tuple[LogReading, LogReading]:
    slow = read_log_lines(iter(list(iter_file_lines(path))))  # a plain iterator: one segment at a time
    fast = read_log_lines(iter_file_lines(path))  # FileLines: whole chunks
    return slow, fast


def assert_same(slow: LogReading, fast: LogReading) -> None:
    assert fast.found == slow.found
    assert fast.excerpt == slow.excerpt
    assert fast.digest.windows == slow.digest.windows
    assert fast.digest == slow.digest
    assert fast.reports == slow.reports


@pytest.mark.parametrize("chunk", [64, 1 << 20])
@pytest.mark.parametrize("name", sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.is_file()))
def test_every_fixture_reads_the_same(monkeypatch, name, chunk):
    monkeypatch.setattr(lines, "_CHUNK", chunk)
    monkeypatch.setattr(logscan, "HEAD_LINES", 3)  # reach the fast path early in small files
    assert_same(*both(str(FIXTURES / name)))


def _redraw(desc: str, n: int, total: int, colour: bool) -> str:
    pct = f"{100 * n // max(total, 1):3d}%"
    if colour:
        pct = f"\x1b[32m{pct}\x1b[0m"
    return f"\r{desc}{pct}|██▌   | {n}/{total} [00:0{n % 10}<00:10,  1.23it/s]"


_DESC = st.sampled_from(["", "Epoch 1: ", "epoch 1:", "  ", "Eval", "9 ", "Map: ", "Step 3:"])
_BAR = st.builds(
    _redraw,
    _DESC,
    st.integers(0, 120),
    st.sampled_from([100, 120, 1000]),
    st.booleans(),
)
_TEXT = st.sampled_from(
    [
        "\n",
        "\r\n",
        "\r",
        "\n{'loss': 0.51, 'grad_norm': 0.41, 'learning_rate': 1.9e-05, 'epoch': 0.1}\n",
        "\nstep 12: max_memory_allocated=12.03 GiB\n",
        "\n{'memory/max_mem_allocated(gib)': 13.5, 'step': 40}\n",
        "\n显存占用: 20.5 GB\n",
        "\nTraceback (most recent call last):\n",
        '\n  File "train.py", line 10, in <module>\n',
        "\n    loss.backward()\n",
        "\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 23.64 GiB of which 1.12 GiB is free.\n",
        "\nValueError: transient\n",
        "\nKilled\n",
        "\n[rank0]: RuntimeError: CUDA error: out of memory\n",
        "\n***** Running Evaluation *****\n",
        "\nSaving model checkpoint to out/checkpoint-500\n",
        "\nPYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n",
        "\n[WARNING|modeling_utils.py:1234] `use_cache=True` is incompatible.\n",
        "\x1b[31m",
        "\x1b]0;title\x07",
        "FooException: x",
        " Killed process 42 (python)",
        "\t",
    ]
)
_JUNK = st.binary(min_size=1, max_size=6)
#: Redraws of one bar, as tqdm writes them between two newlines (or across many).
_RUN = st.builds(
    lambda desc, total, colour, ns, sep: sep.join(_redraw(desc, n, total, colour) for n in ns),
    _DESC,
    st.sampled_from([100, 1000]),
    st.booleans(),
    st.lists(st.integers(0, 1000), min_size=1, max_size=60),
    st.sampled_from(["", "", "\n", "\r\n"]),
)


def _log(parts: list[object]) -> bytes:
    out = []
    for part in parts:
        out.append(part if isinstance(part, bytes) else str(part).encode())
    return b"".join(out)


_LOGS = st.lists(
    st.one_of(_RUN, _RUN, _BAR, _TEXT, _TEXT, _JUNK, st.lists(_BAR, max_size=30).map("".join)), max_size=60
).map(_log)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_LOGS, chunk=st.sampled_from([16, 97, 512, 4096, 1 << 20]), head=st.sampled_from([0, 2, 200]))
def test_generated_logs_read_the_same(tmp_path_factory, monkeypatch, data, chunk, head):
    path = tmp_path_factory.mktemp("log") / "train.log"
    path.write_bytes(data)
    monkeypatch.setattr(lines, "_CHUNK", chunk)
    monkeypatch.setattr(logscan, "HEAD_LINES", head)
    monkeypatch.setattr(logscan, "AFTER_LINES", 4)
    assert_same(*both(str(path)))


def test_a_long_log_reads_the_same_and_keeps_the_last_redraws(tmp_path):
    path = tmp_path / "long.log"
    body = "".join(
        _redraw("", i % 1000, 1000, True)
        + ("\n{'loss': 0.5}\n" if i % 4 == 0 else "")
        + (f"\nstep {i}: max_memory_allocated={i % 13}.00 GiB\n" if i % 10 == 0 else "")
        for i in range(60_000)
    )
    path.write_text(body + "\nTraceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory.\n")
    slow, fast = both(str(path))
    assert_same(slow, fast)
    assert fast.digest.bars[-1].n == 59_999 % 1000
    assert {f.name: f.raw for f in fast.found}["error_kind"] == "cuda_oom"


@pytest.mark.parametrize("desc", ["", "Epoch 1: "])
def test_two_bars_with_one_description_stay_two_bars(tmp_path, monkeypatch, desc):
    # the same text before the bar but another total is another bar: its last redraw must survive
    monkeypatch.setattr(logscan, "HEAD_LINES", 2)
    path = tmp_path / "two.log"
    redraws = [_redraw(desc, n, 100, False) for n in range(20)]
    redraws.insert(5, _redraw(desc, 7, 1000, False))
    path.write_text("banner\nbanner\n" + "".join(redraws) + "\n")
    slow, fast = both(str(path))
    assert_same(slow, fast)
    assert [(bar.n, bar.total) for bar in fast.digest.bars] == [(7, 1000), (19, 100)]
