"""Stream a log once and keep only the windows that matter, in bounded memory.

What is kept: the first lines (where launchers print versions and arguments),
every error window (a traceback or an OOM signature with the lines before
and after it; the first few and the last few windows), the progress bars and
step counters, memory figures, lines that mark a phase (``***** Running
Evaluation *****``, ``Saving model checkpoint``...), and lines that set
``PYTORCH_CUDA_ALLOC_CONF``. Everything else is read and forgotten, so a
multi-gigabyte log costs a few megabytes at most.
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass

from triage.facts import parse_bytes

HEAD_LINES = 200
BEFORE_LINES = 12
AFTER_LINES = 25
WINDOW_HEAD = 200
WINDOW_TAIL = 400
FIRST_WINDOWS = 2
LAST_WINDOWS = 6
KEPT_CHARS = 4000
MEMORY_POINTS = 512
MEMORY_METRICS = 16
BARS = 64


@dataclass(frozen=True)
class Line:
    """One kept segment and its 1-based physical line number."""

    number: int
    text: str


@dataclass(frozen=True)
class Progress:
    """A progress update: a tqdm bar ``desc: 35/1000 [...]`` or a logged ``step 35``."""

    line: int
    desc: str
    n: int
    total: int | None
    text: str


@dataclass(frozen=True)
class MemorySample:
    """A memory figure logged during the run."""

    line: int
    metric: str
    value: int
    text: str


@dataclass(frozen=True)
class LogDigest:
    """What one pass over a log kept."""

    head: tuple[Line, ...]
    windows: tuple[tuple[Line, ...], ...]
    bars: tuple[Progress, ...]
    """The last update of every distinct progress bar, in order of last update."""
    steps: tuple[Progress, ...]
    """The last logged ``step N`` mentions."""
    progress_lines: tuple[Line, ...]
    """The last few progress lines, for the text excerpt."""
    memory: dict[str, tuple[MemorySample, ...]]
    clues: tuple[Line, ...]
    """Recent lines that mark a phase of the run."""
    alloc_conf: tuple[Line, ...]
    """Lines that set or print PYTORCH_CUDA_ALLOC_CONF (not the OOM message's own hint)."""
    lines_read: int


_TRIGGER_WORDS = ("rror", "emory", "Killed", "xit", "SIG", "raceback", "kill", "ALLOC", "batch size", "eturn", "OOM")
TRIGGER = re.compile(
    r"Traceback \(most recent call last\)|(?:CUDA|HIP|XPU|MPS backend) out of memory|OutOfMemoryError"
    r"|CUBLAS_STATUS_ALLOC_FAILED|DefaultCPUAllocator|No executable batch size|oom[-_]kill|OOMKilled"
    r"|Out of memory|out of memory|^\s*Killed\b|\bKilled\s+(?:process|python)|\d+\s+Killed\b"
    r"|exit\s?code\s*[:=]?\s*-?(?:9|137)\b|exit status:?\s*(?:-9|137)\b|return\s?code\s*[:=]?\s*-9\b"
    r"|SIGKILL|MemoryError|^\w*(?:Error|Exception)\b"
)
_FRAME = re.compile(
    r'^\s+File "|^\s*File \S+:\d+|^\s*│|^\s+\S|^\s*\^+\s*$|^\s*-->|^During handling|^The above exception'
)

TQDM = re.compile(r"(\d{1,3})%\|[^|]*\|\s*(\d+)/(\d+)\s*\[")
STEP = re.compile(
    r"\b(?:global[_ ])?[Ss]tep\b\s*[:=#]?\s*(\d+)(?:\s*/\s*(\d+))?|\bSTEP\s*[:=]?\s*(\d+)|第\s*(\d+)\s*步"
)
_SIZE = r"([0-9]+(?:\.[0-9]+)?)"
MEMORY = (
    re.compile(r"'memory/([\w.]+)\((gib|mib|gb|mb)\)'\s*:\s*" + _SIZE, re.IGNORECASE),
    re.compile(
        r"\b(max_memory_allocated|memory_allocated|max_memory_reserved|memory_reserved"
        r"|mem(?:ory)?[ _]?(?:allocated|reserved|used|usage|active)|gpu[ _]?mem(?:ory)?|vram|peak[ _]mem(?:ory)?"
        r"|cuda[ _]mem(?:ory)?)\s*(?:\(([GM]i?B)\))?\s*[:=]?\s*" + _SIZE + r"\s*([GM]i?B|[GM]\b)?",
        re.IGNORECASE,
    ),
    re.compile(r"(显存(?:占用|使用)?)\s*[:：=]?\s*" + _SIZE + r"\s*([GM]i?B|[GM])", re.IGNORECASE),
)
CLUE = re.compile(
    r"\*{3,}\s*Running (?:Evaluation|Prediction|training)\s*\*{3,}|Saving model checkpoint|Saving checkpoint"
    r"|Loading checkpoint shards|merge_and_unload|Merging (?:LoRA|lora|adapter)|Loading (?:model|base model|weights)"
    r"|\bEvaluating\b|\bevaluation\b|\bGenerating\b",
    re.IGNORECASE,
)
_CLUE_WORDS = ("*****", "aving", "oading", "erg", "valuat", "enerat")
#: Every literal that one of the rarer checks (error trigger, step, memory, phase clue, allocator
#: setting) needs; a segment without any of them skips those checks.
_RARE = re.compile(
    "|".join(
        re.escape(w)
        for w in (
            *_TRIGGER_WORDS,
            "tep",
            "STEP",
            "步",
            "em",
            "EM",
            "VRAM",
            "vram",
            "显存",
            *_CLUE_WORDS,
            "ALLOC_CONF",
            "expandable_segments",
        )
    )
)
_HINT = re.compile(r"try setting (?:PYTORCH_CUDA_ALLOC_CONF=)?expandable_segments", re.IGNORECASE)


def _unit_bytes(value: str, unit: str | None) -> int | None:
    if not unit:
        return None
    unit = unit.strip()
    if unit.upper() in ("G", "M"):
        unit = unit.upper() + "iB"
    try:
        return parse_bytes(f"{value}{unit}")
    except ValueError:
        return None


class LogScanner:
    """Feed it (line number, segment) pairs; :meth:`digest` returns what was kept."""

    def __init__(self) -> None:
        # Kept as (line number, text) pairs on the hot path; Line and Progress objects are built
        # only for what is kept (a window, the head, the digest).
        self._head: list[Line] = []
        self._before: deque[tuple[int, str]] = deque(maxlen=BEFORE_LINES)
        self._current: list[Line] | None = None
        self._current_tail: deque[Line] = deque(maxlen=WINDOW_TAIL)
        self._remaining = 0
        self._first: list[tuple[Line, ...]] = []
        self._last: deque[tuple[Line, ...]] = deque(maxlen=LAST_WINDOWS)
        self._bars: OrderedDict[tuple[str, int], tuple[int, str, re.Match[str]]] = OrderedDict()
        self._last_bar: tuple[str, int] | None = None
        self._steps: deque[Progress] = deque(maxlen=8)
        self._progress_lines: deque[tuple[int, str]] = deque(maxlen=6)
        self._memory: dict[str, deque[MemorySample]] = {}
        self._clues: deque[Line] = deque(maxlen=16)
        self._alloc_conf: deque[Line] = deque(maxlen=4)
        self._count = 0

    def feed(self, number: int, text: str) -> None:
        """Look at one segment."""
        self._count += 1
        kept = text if len(text) <= KEPT_CHARS else text[:KEPT_CHARS]
        if len(self._head) < HEAD_LINES:
            self._head.append(Line(number, kept))
        rare = _RARE.search(text) is not None
        triggered = rare and any(word in text for word in _TRIGGER_WORDS) and TRIGGER.search(text) is not None
        if self._current is None and not triggered:
            self._before.append((number, kept))
        else:
            self._window(Line(number, kept), triggered)
        if "%|" in kept:  # TQDM needs it
            self._tqdm(number, kept)
        if not rare:
            return
        line = Line(number, kept)
        if "tep" in text or "STEP" in text or "步" in text:
            self._step(line)
        if "em" in text or "EM" in text or "VRAM" in text or "vram" in text or "显存" in text:
            self._memory_figures(line)
        if any(word in text for word in _CLUE_WORDS) and CLUE.search(text):
            self._clues.append(line)
        if ("ALLOC_CONF" in text or "expandable_segments" in text) and not _HINT.search(text):
            self._alloc_conf.append(line)

    def _window(self, line: Line, triggered: bool) -> None:
        if self._current is not None:
            if len(self._current) < WINDOW_HEAD:
                self._current.append(line)
            else:
                self._current_tail.append(line)
            if triggered or (_FRAME.match(line.text) and not TQDM.search(line.text)):
                self._remaining = AFTER_LINES
            else:
                self._remaining -= 1
                if self._remaining <= 0:
                    self._close()
        elif triggered:
            self._current = [*(Line(n, t) for n, t in self._before), line]
            self._before.clear()
            self._remaining = AFTER_LINES

    def _close(self) -> None:
        if self._current is None:
            return
        window = (*self._current, *self._current_tail)
        if len(self._first) < FIRST_WINDOWS:
            self._first.append(window)
        else:
            self._last.append(window)
        self._current = None
        self._current_tail.clear()

    def _tqdm(self, number: int, text: str) -> None:
        m = TQDM.search(text)
        if not m:
            return
        start = m.start()
        desc = text[:start].strip(" :\t") if start else ""
        key = (desc.lower(), int(m.group(3)))
        if key == self._last_bar:  # the same bar redrawn: it stays the most recent one
            self._bars[key] = (number, desc, m)
        else:
            self._bars.pop(key, None)
            self._bars[key] = (number, desc, m)
            self._last_bar = key
            while len(self._bars) > BARS:
                self._bars.popitem(last=False)
        self._progress_lines.append((number, text))

    def _step(self, line: Line) -> None:
        if TQDM.search(line.text):
            return
        m = STEP.search(line.text)
        if not m:
            return
        n = m.group(1) or m.group(3) or m.group(4)
        total = int(m.group(2)) if m.group(2) else None
        self._steps.append(Progress(line.number, "step", int(n), total, line.text))
        self._progress_lines.append((line.number, line.text))

    def _memory_figures(self, line: Line) -> None:
        for pattern in MEMORY:
            for m in pattern.finditer(line.text):
                groups = m.groups()
                if len(groups) == 3 and pattern is MEMORY[0]:
                    metric, unit, value = groups
                elif len(groups) == 4:
                    metric, unit_before, value, unit_after = groups
                    unit = unit_before or unit_after
                else:
                    metric, value, unit = groups
                size = _unit_bytes(value, unit)
                if size is None:
                    continue
                key = metric.lower().replace(" ", "_")
                if key not in self._memory:
                    if len(self._memory) >= MEMORY_METRICS:
                        continue
                    self._memory[key] = deque(maxlen=MEMORY_POINTS)
                self._memory[key].append(MemorySample(line.number, key, size, line.text))

    def digest(self) -> LogDigest:
        """Close any open window and return what was kept."""
        self._close()
        return LogDigest(
            head=tuple(self._head),
            windows=(*self._first, *self._last),
            bars=tuple(
                Progress(number, desc, int(m.group(2)), int(m.group(3)), m.string)
                for number, desc, m in self._bars.values()
            ),
            steps=tuple(self._steps),
            progress_lines=tuple(Line(n, t) for n, t in self._progress_lines),
            memory={k: tuple(v) for k, v in self._memory.items()},
            clues=tuple(self._clues),
            alloc_conf=tuple(self._alloc_conf),
            lines_read=self._count,
        )


def scan(lines: Iterable[tuple[int, str]]) -> LogDigest:
    """One pass over ``lines`` (from :mod:`triage.ingest.lines`)."""
    scanner = LogScanner()
    for number, text in lines:
        scanner.feed(number, text)
    return scanner.digest()
