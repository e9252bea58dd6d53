from __future__ import annotations

import io
import os
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.ingest import lines
from triage.ingest.errors import IngestError
from triage.ingest.lines import iter_text_lines

_PIECES = st.sampled_from(
    [
        "a",
        "中",
        " ",
        "\r",
        "\n",
        "\r\n",
        "\t",
        "\x00",
        "\x07",
        "\x1b[32m",
        "\x1b[0m",
        "\x1b]0;t\x07",
        "\x1b]0;open",
        "[rank0]: ",
        "[default1]:x",
        " 35%|███▌ | 35/100 [",
        "Traceback",
    ]
)


def stream(data: bytes, encoding: str = "utf-8") -> list[tuple[int, str]]:
    return list(lines._iter_stream(io.BytesIO(data), encoding))


@pytest.mark.parametrize("chunk", [1, 2, 7, 4096])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(_PIECES, max_size=80))
def test_chunked_reading_splits_and_cleans_like_one_line_at_a_time(monkeypatch, chunk, parts):
    # whole chunks are cleaned at once: the result must be what cleaning each segment on its own gives
    # (the tail of an overlong line keeps MAX_LINE characters including its newline)
    text = "".join(parts)
    monkeypatch.setattr(lines, "_CHUNK", chunk)
    assert stream(text.encode("utf-8")) == list(iter_text_lines(text))
    assert stream(text.encode("gb18030"), "gb18030") == list(iter_text_lines(text))


@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_overlong_lines_across_chunks(monkeypatch, chunk):
    monkeypatch.setattr(lines, "MAX_LINE", 8)
    monkeypatch.setattr(lines, "_CHUNK", chunk)
    data = b"short\n" + b"H" * 8 + b"middle" + b"T" * 8 + b"\nnext\n" + b"x" * 20
    assert stream(data) == [
        (1, "short"),
        (2, "HHHHHHHH"),
        (2, "TTTTTTT"),
        (3, "next"),
        (4, "xxxxxxxx"),
        (4, "xxxxxxxx"),
    ]


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(_PIECES, max_size=80))
def test_file_blocks_hold_the_same_pairs_as_iterating(tmp_path_factory, monkeypatch, chunk, parts):
    path = tmp_path_factory.mktemp("f") / "x.log"
    path.write_bytes("".join(parts).encode("utf-8"))
    monkeypatch.setattr(lines, "_CHUNK", chunk)
    pairs = list(lines.iter_file_lines(str(path)))
    blocks = list(lines.iter_file_lines(str(path)).blocks())
    assert [pair for block in blocks for pair in block] == pairs
    assert all(blocks)  # no empty chunk lists


# -- hostile inputs: blank runs, pipes and devices ------------------------------------------------------------


def test_long_blank_runs_are_cut_to_max_blanks_in_both_readers():
    text = "memory_allocated" + " \t" * 500 + "3.2 GiB\nok  two spaces stay"
    want = [(1, "memory_allocated" + " " * lines.MAX_BLANKS + "3.2 GiB"), (2, "ok  two spaces stay")]
    assert list(iter_text_lines(text)) == want
    assert stream(text.encode()) == want


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_with_a_writer_is_read_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(b"CUDA out of memory\nline 2\n"))
    writer.start()
    sample, rest = lines.open_sample(str(fifo), 8)
    assert sample == b"CUDA out"
    assert rest is not None
    assert [text for _, text in lines.iter_file_lines(str(fifo), rest)] == ["CUDA out of memory", "line 2"]
    writer.join(5)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_nobody_writes_to_is_refused_in_bounded_time(tmp_path, monkeypatch):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    monkeypatch.setattr(lines, "PIPE_WAIT_SECONDS", 0.3)
    start = time.monotonic()
    with pytest.raises(IngestError, match="nothing arrived on this named pipe") as info:
        lines.read_small(str(fifo))
    assert time.monotonic() - start < 5
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/tty"])
def test_devices_are_refused(device):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    with pytest.raises(IngestError, match=r"it is a device|cannot read"):
        list(lines.iter_file_lines(device))


def test_dev_null_reads_as_empty():
    if not os.path.exists(os.devnull):
        pytest.skip("no null device")
    assert list(lines.iter_file_lines(os.devnull)) == []


def test_a_regular_file_sample_leaves_no_stream_open(tmp_path):
    path = tmp_path / "x.log"
    path.write_bytes(b"hello\n")
    assert lines.open_sample(str(path), 100) == (b"hello\n", None)
