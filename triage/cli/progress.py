"""Progress on stderr while big inputs are read: bytes read, rate, time left.

Shown only when stderr is a terminal, only after two seconds (a quick run prints nothing), and
never with ``--format json``. The readers stream files and know nothing of terminals, so progress
is watched from outside: a thread reads how far this process has read each input file from
``/proc/self/fdinfo`` (Linux). Where that is not available, nothing is shown and nothing breaks.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

#: Nothing is shown for work that ends sooner than this.
DELAY = 2.0
TICK = 0.5


def _position(path: str) -> int | None:
    """How far this process has read ``path`` (the offset of an open descriptor on it), if it can tell."""
    target = os.path.realpath(path)
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for fd in fds:
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != target:
                continue
            with open(f"/proc/self/fdinfo/{fd}", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("pos:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            continue
    return None


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


@contextlib.contextmanager
def reading(paths: Sequence[str], enabled: bool, stream: TextIO | None = None) -> Iterator[None]:
    """Show progress on ``stream`` (stderr) while the body reads ``paths``, when ``enabled``."""
    out = stream or sys.stderr
    files = [p for p in paths if p != "-" and Path(p).is_file()]
    if not enabled or not files or not out.isatty():
        yield
        return
    total = sum(Path(p).stat().st_size for p in files)
    done = threading.Event()
    start = time.monotonic()
    shown = [False]

    def watch() -> None:
        while not done.wait(TICK):
            elapsed = time.monotonic() - start
            if elapsed < DELAY:
                continue
            read = sum(_position(p) or 0 for p in files)
            if not read:
                continue
            rate = read / elapsed
            left = (total - read) / rate if rate > 0 else 0
            name = Path(files[0]).name if len(files) == 1 else f"{len(files)} files"
            out.write(f"\rreading {name}: {_size(read)} of {_size(total)}, {_size(rate)}/s, ~{left:.0f} s left  ")
            out.flush()
            shown[0] = True

    thread = threading.Thread(target=watch, name="triage-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=1)
        if shown[0]:
            out.write("\r" + " " * 78 + "\r")
            out.flush()
