"""Run the user's command unchanged: output passed through, signals forwarded, output scanned as it goes.

The child's standard output and standard error go each to a pseudo-terminal when triage's own
one is a terminal (so tqdm, colours and ``isatty()`` behave as without triage) and to a pipe
otherwise; the two stay separate. Every byte is written on to the same stream of triage as soon
as it arrives, then to the log copy, then to the log scanner
(:func:`triage.ingest.log.read_log_lines`, which keeps bounded windows of a log of any size) in a
thread of its own: a burst of output is never held back while the scanner catches up, unless
:data:`FEED_BYTES` are already waiting for it.

Signals: with a terminal on standard input the child stays in triage's process group, so it can
read the terminal (a login prompt) and a Ctrl-C from the terminal reaches it directly; triage
then only stays alive until the child has exited. Otherwise the child gets its own process group
and SIGINT, SIGTERM, SIGHUP and SIGQUIT are sent on to that group (a launcher and its workers).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import BinaryIO

from triage.capture.errors import RunError
from triage.ingest.lines import iter_file_lines
from triage.ingest.log import LogReading, read_log_lines

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
#: Signals a terminal sends to its whole foreground process group (the child gets them from it).
_FROM_TERMINAL = (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP)
#: How long output is still read after the command exited, while its children hold the stream open.
GRACE_SECONDS = 2.0
_READ = 1 << 16
_BATCH = 1 << 20
#: Output waiting for the log scanner at most; beyond it the command's output waits for the scanner.
FEED_BYTES = 4 << 20
#: The log scanner's name for the command's output in its error messages.
OUTPUT_NAME = "<command output>"


@dataclass(frozen=True)
class Finished:
    """How the command ended and what its output showed."""

    returncode: int
    """The exit status as a shell reports it: the child's code, or 128 + N after signal N."""
    signal: int | None
    """The signal that ended the child, if one did."""
    reading: LogReading
    bytes_out: int
    seconds: float
    log_problem: str | None = None
    """Why the log copy stopped early (a full disk), if it did."""
    received: tuple[int, ...] = ()
    """Signals triage received while the command ran."""


@dataclass
class _Source:
    fd: int
    out: int | None
    """triage's own stream the bytes go on to (1 or 2), or None once that stream is closed."""


class _Feed(io.RawIOBase):
    """The scanner's end: chunks handed over by the pump, at most ``limit`` bytes waiting.

    The scanner runs in its own thread, so a burst of output is passed through at once while the
    scanner catches up; only when ``limit`` bytes wait does the pump wait for it (so memory stays
    bounded and nothing is dropped). Once the scanner has stopped, chunks are no longer kept.
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self._limit = limit
        self._chunks: deque[bytes] = deque()
        self._waiting = 0
        self._ended = False
        self._stopped = False
        self._cond = threading.Condition()

    def readable(self) -> bool:
        return True

    def put(self, chunk: bytes) -> None:
        with self._cond:
            while self._waiting and self._waiting + len(chunk) > self._limit and not self._stopped:
                self._cond.wait()
            if self._stopped:
                return
            self._chunks.append(chunk)
            self._waiting += len(chunk)
            self._cond.notify_all()

    def end(self) -> None:
        """No more output: the scanner reads what waits, then the end."""
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def stop(self) -> None:
        """The scanner has stopped: the pump no longer waits for it."""
        with self._cond:
            self._stopped = True
            self._chunks.clear()
            self._cond.notify_all()

    def read(self, size: int | None = -1) -> bytes:
        with self._cond:
            while not self._chunks and not self._ended:
                self._cond.wait()
            if not self._chunks:
                return b""
            chunk = self._chunks.popleft()
            self._waiting -= len(chunk)
            self._cond.notify_all()
            return chunk

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class _Pump:
    """The command's output: passed through, copied, and handed to the log scanner, merged into one stream.

    Output is written on as soon as it arrives, whatever the scanner is doing. When bytes come from
    the other stream while a line is still open, a newline is put between them (in the copy too),
    so lines of stdout and stderr never share a line number.
    """

    def __init__(self, sources: list[_Source], log: BinaryIO | None, exited: Callable[[], bool]) -> None:
        self.sources = sources
        self.log = log
        self.exited = exited
        self.bytes_out = 0
        self.log_problem: str | None = None
        self._open_fd: int | None = None
        self._exit_seen: float | None = None

    def run(self, feed: _Feed) -> None:
        """Until every stream has ended (or stayed quiet :data:`GRACE_SECONDS` after the command exited)."""
        while self.sources:
            chunk = self._collect()
            if chunk:
                self._copy(chunk)
                feed.put(chunk)

    def _collect(self) -> bytes:
        """Whatever arrives next on any stream (up to about 1 MiB), passed through; b'' after a quiet spell."""
        fds = [s.fd for s in self.sources]
        ready, _, _ = select.select(fds, [], [], 0.2)
        if not ready:
            if self.exited():
                now = time.monotonic()
                if self._exit_seen is None:
                    self._exit_seen = now
                elif now - self._exit_seen > GRACE_SECONDS:
                    self.close_sources()
            return b""
        parts: list[bytes] = []
        total = 0
        while ready and total < _BATCH:
            for source in [s for s in self.sources if s.fd in ready]:
                data = self._read(source.fd)
                if not data:
                    self._drop(source)
                    continue
                self._pass(source, data)
                if self._open_fd is not None and self._open_fd != source.fd:
                    parts.append(b"\n")
                parts.append(data)
                total += len(data)
                self._open_fd = None if data.endswith(b"\n") else source.fd
            if not self.sources:
                break
            ready, _, _ = select.select([s.fd for s in self.sources], [], [], 0)
        if self._exit_seen is not None:
            self._exit_seen = time.monotonic()
        return b"".join(parts)

    @staticmethod
    def _read(fd: int) -> bytes:
        try:
            return os.read(fd, _READ)
        except OSError as exc:
            if exc.errno == errno.EIO:  # a pseudo-terminal whose other end is closed: the end of the output
                return b""
            raise

    def _pass(self, source: _Source, data: bytes) -> None:
        """Write ``data`` on to triage's own stream, whole; a closed stream (``| head``) closes the child's too."""
        self.bytes_out += len(data)
        if source.out is None:
            return
        view = memoryview(data)
        try:
            while view:
                try:
                    n = os.write(source.out, view)
                except BlockingIOError:
                    select.select([], [source.out], [])
                    continue
                view = view[n:]
        except BrokenPipeError:
            source.out = None
            self._drop(source)  # as without triage: the command now writes into a closed pipe

    def _copy(self, chunk: bytes) -> None:
        if self.log is None:
            return
        try:
            self.log.write(chunk)
        except OSError as exc:
            self.log_problem = exc.strerror or str(exc)
            with contextlib.suppress(OSError):
                self.log.close()
            self.log = None

    def _drop(self, source: _Source) -> None:
        if source in self.sources:
            self.sources.remove(source)
            with contextlib.suppress(OSError):
                os.close(source.fd)
        if self._open_fd == source.fd:
            self._open_fd = None

    def close_sources(self) -> None:
        for source in list(self.sources):
            self._drop(source)


def _copy_window_size(tty_fd: int, pty_fd: int) -> None:
    with contextlib.suppress(OSError):
        size = fcntl.ioctl(tty_fd, termios.TIOCGWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
        fcntl.ioctl(pty_fd, termios.TIOCSWINSZ, size)


def _open_pty(ours: int) -> tuple[int, int]:
    """A pseudo-terminal for one of the child's streams: the size of ours, output bytes untranslated."""
    master, slave = os.openpty()
    _copy_window_size(ours, slave)
    with contextlib.suppress(termios.error):
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.ONLCR  # '\n' stays '\n': triage's own terminal translates it when written there
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
    return master, slave


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _foreground() -> bool:
    """Whether triage's process group is the foreground group of its terminal (a Ctrl-C reaches the child too)."""
    for fd in (0, 1, 2):
        if _isatty(fd):
            try:
                return os.tcgetpgrp(fd) == os.getpgrp()
            except OSError:
                return False
    return False


@contextlib.contextmanager
def _signals(handler: Callable[[int, FrameType | None], None], winch: Callable[[], None] | None) -> Iterator[None]:
    previous = {}
    try:
        for signum in FORWARDED:
            previous[signum] = signal.signal(signum, handler)
        if winch is not None:
            previous[signal.SIGWINCH] = signal.signal(signal.SIGWINCH, lambda _s, _f: winch())
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def run(argv: Sequence[str], log: BinaryIO | None, *, env: dict[str, str] | None = None) -> Finished:
    """Run ``argv`` unchanged to its end; raises :class:`RunError` when it cannot be started."""
    streams = []  # (our fd, child's end, our end)
    for ours in (1, 2):
        if _isatty(ours):
            master, slave = _open_pty(ours)
            streams.append((ours, slave, master))
        else:
            read_end, write_end = os.pipe()
            streams.append((ours, write_end, read_end))
    own_group = not _isatty(0)
    received: list[int] = []
    proc: subprocess.Popen[bytes] | None = None

    def forward(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)
        if proc is None or proc.returncode is not None:
            return
        if not own_group and signum in _FROM_TERMINAL and _foreground():
            return  # the terminal sent it to the child as well
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if own_group:
                os.killpg(proc.pid, signum)
            else:
                os.kill(proc.pid, signum)

    ptys = [(ours, slave) for ours, slave, master in streams if _isatty(ours)]

    def winch() -> None:
        for ours, slave in ptys:
            _copy_window_size(ours, slave)
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGWINCH)

    started = time.monotonic()
    try:
        with _signals(forward, winch if ptys else None):
            try:
                proc = subprocess.Popen(
                    list(argv),
                    stdout=streams[0][1],
                    stderr=streams[1][1],
                    env=env,
                    process_group=0 if own_group else None,
                )
            except FileNotFoundError:
                raise RunError(f"{argv[0]}: command not found", 127, "not_found", command=argv[0]) from None
            except PermissionError:
                raise RunError(
                    f"{argv[0]}: permission denied (not executable)", 126, "not_executable", command=argv[0]
                ) from None
            except OSError as exc:
                why = exc.strerror or str(exc)
                raise RunError(f"{argv[0]}: cannot run: {why}", 126, "cannot_run", command=argv[0], why=why) from None
            finally:
                for _, child_end, _ in streams:
                    os.close(child_end)
            running = proc
            if received and own_group:  # a signal that came while the command was being started
                forward(received.pop(), None)
            pump = _Pump(
                [_Source(our_end, ours) for ours, _, our_end in streams], log, lambda: running.poll() is not None
            )
            feed = _Feed(FEED_BYTES)
            scanned: list[LogReading | BaseException] = []

            def scan() -> None:
                try:
                    scanned.append(read_log_lines(iter_file_lines(OUTPUT_NAME, feed)))  # type: ignore[arg-type]
                except BaseException as exc:  # handed to the main thread, raised there
                    scanned.append(exc)
                finally:
                    feed.stop()

            scanner = threading.Thread(target=scan, name="triage-log-scanner", daemon=True)
            scanner.start()
            try:
                pump.run(feed)
            finally:
                pump.close_sources()
                feed.end()
            while True:
                try:
                    code = running.wait()
                    break
                except KeyboardInterrupt:  # pragma: no cover - handlers are installed; belt and braces
                    continue
            scanner.join()
    except BaseException:
        for _, _, our_end in streams:
            with contextlib.suppress(OSError):
                os.close(our_end)
        raise
    if pump.log is not None:
        try:
            pump.log.flush()
        except OSError as exc:
            pump.log_problem = exc.strerror or str(exc)
    reading = scanned[0] if scanned else RuntimeError("the log scanner ended without a result")
    if isinstance(reading, BaseException):
        raise reading
    died_of = -code if code < 0 else None
    return Finished(
        returncode=128 + died_of if died_of is not None else code,
        signal=died_of,
        reading=reading,
        bytes_out=pump.bytes_out,
        seconds=time.monotonic() - started,
        log_problem=pump.log_problem,
        received=tuple(received),
    )
