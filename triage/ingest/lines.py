"""Read text line by line in bounded memory, whatever the bytes are.

Every reader gets its lines from here: files or standard input are streamed,
the encoding is guessed from a sample (BOMs, UTF-8, GB18030, else UTF-8 with
replacement characters), ANSI colour codes and control characters are
removed, ``[rank0]:`` prefixes are dropped, and tqdm's carriage-return updates
are split into segments that keep the physical line number an editor shows.
A physical line longer than :data:`MAX_LINE` characters keeps its head and
its tail (where tqdm's last update is), never its whole body. A file's lines
also come a chunk at a time (:meth:`FileLines.blocks`), for readers that can
skip most of a chunk without looking at each segment.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import select
import stat
import sys
from collections.abc import Iterator
from typing import BinaryIO

from triage.ingest.errors import IngestError

#: Characters of one physical line kept from its head (and again from its tail).
MAX_LINE = 16_384
_SAMPLE = 1 << 16

#: A run of spaces and tabs longer than this is cut to this many spaces: no reader needs more to tell
#: columns apart, and patterns with several ``\s*`` in a row then cannot take time that grows with
#: the run (a 16,000-space line was cubic in the memory-figure pattern).
MAX_BLANKS = 16
_LONG_BLANKS = re.compile(rf"[ \t]{{{MAX_BLANKS + 1},}}")
_BLANKS = " " * MAX_BLANKS
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_RANK_PREFIX = re.compile(r"^\[(?:rank|default)\d+\]:\s?")


def clean(segment: str) -> str:
    """One segment without colour codes, control characters or a rank prefix."""
    if "\x1b" in segment:
        segment = _ANSI.sub("", segment)
    segment = _CONTROL.sub("", segment)
    segment = _LONG_BLANKS.sub(_BLANKS, segment)
    if segment.startswith("["):
        segment = _RANK_PREFIX.sub("", segment)
    return segment.rstrip()


def split_segments(line: str) -> list[str]:
    """A physical line split at carriage returns (tqdm redraws), cleaned; empty segments dropped."""
    if "\r" not in line:
        text = clean(line)
        return [text] if text else []
    out = []
    for part in line.split("\r"):
        text = clean(part)
        if text:
            out.append(text)
    return out


def guess_encoding(sample: bytes) -> str:
    """The encoding of a file, judged from its first bytes."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    for encoding in ("utf-8", "gb18030"):
        try:
            codecs.getincrementaldecoder(encoding)().decode(sample, final=False)
        except UnicodeDecodeError:
            continue
        return encoding
    return "utf-8"


def iter_text_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, segment) for an in-memory text, e.g. the symptom the user pasted."""
    for number, line in enumerate(text.split("\n"), start=1):
        if len(line) > 2 * MAX_LINE:
            line = line[:MAX_LINE] + "\r" + line[-MAX_LINE:]
        for segment in split_segments(line):
            yield number, segment


_CHUNK = 1 << 20
#: Colour codes of a whole physical line: an OSC sequence stops at a carriage return, as it does
#: when each tqdm segment is cleaned on its own.
_ANSI_LINES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\r\n]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")


def _iter_stream(binary: BinaryIO, encoding: str) -> Iterator[tuple[int, str]]:
    """Physical lines from large binary chunks, decoded incrementally and split here."""
    for block in _iter_blocks(binary, encoding):
        yield from block


def _iter_blocks(binary: BinaryIO, encoding: str) -> Iterator[list[tuple[int, str]]]:
    """The (line number, segment) pairs of each chunk read, as one list per chunk.

    Colour codes and control characters are removed from whole chunks at once (a single regex
    pass in C instead of one per segment); a line of :data:`MAX_LINE` characters or more keeps its
    head and its tail exactly as :func:`_overlong` says, and only that line is cleaned on its own.
    A list holds at most one chunk's segments, so memory stays bounded.
    """
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    number = 0
    carry = ""
    long_head: str | None = None  # an overlong line in progress: its head ...
    long_tail = ""  # ... and the last characters read of it
    while True:
        out: list[tuple[int, str]] = []
        data = binary.read(_CHUNK)
        text = decoder.decode(data, final=not data)
        if long_head is not None:
            cut = text.find("\n")
            if cut < 0:
                long_tail = (long_tail + text)[-MAX_LINE:]
                if data:
                    continue
                text, cut = "", -1
                number += 1
                out.extend(_segments(number, _overlong(long_head, long_tail, newline=False)))
                yield out
                return
            number += 1
            out.extend(_segments(number, _overlong(long_head, long_tail + text[:cut], newline=True)))
            long_head, long_tail = None, ""
            text = text[cut + 1 :]
        text = carry + text
        cut = text.rfind("\n")
        if cut < 0:
            complete, carry = None, text
        else:
            complete, carry = text[:cut], text[cut + 1 :]
        if complete is not None:
            lines = complete.split("\n")
            if max(map(len, lines)) < MAX_LINE:
                if "\x1b" in complete:
                    complete = _ANSI_LINES.sub("", complete)
                lines = _LONG_BLANKS.sub(_BLANKS, _CONTROL.sub("", complete)).split("\n")
                append = out.append
                for line in lines:
                    number += 1
                    if "\r" not in line:
                        if line.startswith("["):
                            line = _RANK_PREFIX.sub("", line)
                        line = line.rstrip()
                        if line:
                            append((number, line))
                        continue
                    for part in line.split("\r"):
                        if part.startswith("["):
                            part = _RANK_PREFIX.sub("", part)
                        part = part.rstrip()
                        if part:
                            append((number, part))
            else:
                for line in lines:
                    number += 1
                    if len(line) >= MAX_LINE:
                        out.extend(_segments(number, _overlong(line[:MAX_LINE], line[MAX_LINE:], newline=True)))
                    else:
                        out.extend(_segments(number, line))
        if len(carry) >= MAX_LINE:
            long_head, long_tail, carry = carry[:MAX_LINE], carry[MAX_LINE:][-MAX_LINE:], ""
        if not data:
            if carry:
                number += 1
                if long_head is None:
                    out.extend(_segments(number, carry))
            if long_head is not None:
                number += 1
                out.extend(_segments(number, _overlong(long_head, long_tail, newline=False)))
            if out:
                yield out
            return
        if out:
            yield out


def _overlong(head: str, rest: str, newline: bool) -> str:
    """An overlong physical line: its first MAX_LINE characters, a segment break, its last ones."""
    tail = (rest + ("\n" if newline else ""))[-MAX_LINE:]
    return (head + "\r" + tail).rstrip("\n") if tail else head


def _segments(number: int, line: str) -> Iterator[tuple[int, str]]:
    for segment in split_segments(line):
        yield number, segment


#: How long a named pipe may stay silent before anything arrives on it.
PIPE_WAIT_SECONDS = 30.0


def _open_pipe(path: str) -> BinaryIO:
    """A named pipe (or ``<(command)``), opened without blocking, once something arrives on it.

    Opening a FIFO for reading blocks until a writer opens it, for ever if none does; here the
    open returns at once and the first byte (or the writer's end) is awaited for at most
    :data:`PIPE_WAIT_SECONDS`. After that the pipe is read like a file, to its end.
    """
    if not hasattr(select, "poll") or not hasattr(os, "O_NONBLOCK"):  # pragma: no cover - not POSIX
        return open(path, "rb", buffering=_SAMPLE)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        if not poller.poll(int(PIPE_WAIT_SECONDS * 1000)):
            raise IngestError(
                f"cannot read {path}: nothing arrived on this named pipe in {PIPE_WAIT_SECONDS:g} s "
                "(is anything writing to it?)"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=_SAMPLE)
    except BaseException:
        os.close(fd)
        raise


def open_binary(path: str) -> BinaryIO:
    """Open ``path`` ('-' is standard input) for reading bytes, or raise :class:`IngestError`.

    Only regular files, named pipes and ``/dev/null`` are read: a device (``/dev/zero``, a
    terminal) would never end, a directory or a socket is not text. A pipe is awaited for at
    most :data:`PIPE_WAIT_SECONDS`.
    """
    if path == "-":
        return sys.stdin.buffer
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise IngestError(f"cannot read {path}: it is a directory")
        if stat.S_ISFIFO(mode):
            return _open_pipe(path)
        if not stat.S_ISREG(mode) and not _is_devnull(path):
            what = "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"
            raise IngestError(f"cannot read {path}: it is {what}; give a file, or pipe the text to `-`")
        return open(path, "rb", buffering=_SAMPLE)
    except IsADirectoryError:
        raise IngestError(f"cannot read {path}: it is a directory") from None
    except OSError as exc:
        raise IngestError(f"cannot read {path}: {exc.strerror or exc}") from None


def _is_devnull(path: str) -> bool:
    try:
        return os.path.samefile(path, os.devnull)
    except OSError:
        return False


class _Rejoined(io.RawIOBase):
    """Bytes already read from a stream, then the rest of the stream: a pipe read once, sniffed first."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._rest.close()
        super().close()


def open_sample(path: str, size: int) -> tuple[bytes, BinaryIO | None]:
    """The first ``size`` bytes of ``path`` to tell its kind, and, for a pipe, the stream to read it from.

    A regular file is sampled and closed (its reader opens it again); a named pipe can be read
    only once, so its stream comes back with the sample put in front of the rest.
    """
    binary = open_binary(path)
    try:
        sample = binary.read(size)
    except OSError as exc:
        binary.close()
        raise IngestError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        regular = stat.S_ISREG(os.fstat(binary.fileno()).st_mode)
    except (OSError, ValueError):
        regular = False
    if regular:
        binary.close()
        return sample, None
    return sample, io.BufferedReader(_Rejoined(sample, binary), buffer_size=_SAMPLE)


class FileLines(Iterator[tuple[int, str]]):
    """(line number, segment) for a file or '-', streamed; :meth:`blocks` gives them a chunk at a time.

    Iterating yields one pair at a time; a reader that can use whole chunks (the log scanner)
    calls :meth:`blocks` instead. Either way the file is read once and closed at the end.
    """

    def __init__(self, path: str, binary: BinaryIO | None = None) -> None:
        self.path = path
        self._blocks = _iter_file_blocks(path, binary)
        self._pairs: Iterator[tuple[int, str]] | None = None

    def blocks(self) -> Iterator[list[tuple[int, str]]]:
        """The remaining pairs, one list per chunk read."""
        return self._blocks

    def __iter__(self) -> FileLines:
        return self

    def __next__(self) -> tuple[int, str]:
        if self._pairs is None:
            self._pairs = (pair for block in self._blocks for pair in block)
        return next(self._pairs)


def _iter_file_blocks(path: str, opened: BinaryIO | None = None) -> Iterator[list[tuple[int, str]]]:
    binary = opened if opened is not None else open_binary(path)
    try:
        try:
            peek = getattr(binary, "peek", None)
            sample = peek(_SAMPLE)[:_SAMPLE] if peek is not None else b""
        except OSError as exc:
            raise IngestError(f"cannot read {path}: {exc.strerror or exc}") from None
        encoding = guess_encoding(sample)
        try:
            yield from _iter_blocks(binary, encoding)
        except OSError as exc:
            raise IngestError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        if path != "-":
            binary.close()


def iter_file_lines(path: str, binary: BinaryIO | None = None) -> FileLines:
    """(line number, segment) for a file or '-' (standard input), streamed in bounded memory.

    ``binary`` is a stream already opened on ``path`` (a pipe that was sniffed, see :func:`open_sample`).
    """
    return FileLines(path, binary)


def read_small(path: str, limit: int = 8 * 1024 * 1024, binary: BinaryIO | None = None) -> str:
    """The whole text of a small file (a config), decoded like the logs; too big -> IngestError."""
    binary = binary if binary is not None else open_binary(path)
    try:
        try:
            data = binary.read(limit + 1)
        except OSError as exc:
            raise IngestError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        if path != "-":
            binary.close()
    if len(data) > limit:
        raise IngestError(f"{path} is larger than {limit // (1024 * 1024)} MiB; that is not a config file")
    return data.decode(guess_encoding(data[:_SAMPLE]), errors="replace")
