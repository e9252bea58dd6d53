"""Progress while big inputs are read: on a terminal only, after a delay, never in JSON; cleaned up after."""

from __future__ import annotations

import io
import sys
import time

import pytest

from triage.cli import progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fdinfo")
def test_progress_shows_bytes_rate_and_time_left_then_clears(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "TICK", 0.05)
    log = tmp_path / "train.log"
    log.write_bytes(b"x" * 3_000_000)
    out = Terminal()
    with progress.reading([str(log)], enabled=True, stream=out), log.open("rb") as fh:
        fh.read(1_000_000)  # a third read, the reader "busy" for a while
        time.sleep(0.4)
    text = out.getvalue()
    assert "reading train.log: 1.0 MB of 3.0 MB" in text and "/s" in text and "s left" in text
    assert text.endswith("\r")  # the line is cleared when reading ends


def test_nothing_is_shown_when_not_a_terminal_or_for_json(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "TICK", 0.05)
    log = tmp_path / "train.log"
    log.write_bytes(b"x" * 1000)
    for stream, enabled in ((io.StringIO(), True), (Terminal(), False)):
        with progress.reading([str(log)], enabled=enabled, stream=stream), log.open("rb") as fh:
            fh.read(500)
            time.sleep(0.2)
        assert stream.getvalue() == ""
