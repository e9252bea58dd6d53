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
from bisect import bisect_left
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, pairwise
from operator import add

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
PROGRESS_LINES = 6


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
    r"|CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED|DefaultCPUAllocator|No executable batch size"
    r"|oom[-_]kill|OOMKilled"
    r"|Out of memory|out of memory|^\s*Killed\b|\bKilled\s+(?:process|python)|(?<!\d)\d+\s+Killed\b|\]\+?\s*Killed\b"
    r"|exit\s?code\s*+[:=]?\s*+-?(?:9|137)\b|exit status:?\s*(?:-9|137)\b|return\s?code\s*+[:=]?\s*+-9\b"
    r"|SIGKILL|MemoryError|^\w*(?:Error|Exception)\b|OOM when allocating tensor|RESOURCE_EXHAUSTED: Out of memory"
    r"|\[\d+\]\s+\d+\s+killed\s|WinError 1455|paging file is too small"
)
#: A segment without any of these cannot be a trigger (every trigger also needs one of the words).
_TRIGGER_WORD = re.compile("|".join(re.escape(w) for w in _TRIGGER_WORDS))
_FRAME = re.compile(
    r'^\s+File "|^\s*File \S+:\d+|^\s*│|^\s+\S|^\s*\^+\s*$|^\s*-->|^During handling|^The above exception'
)

TQDM = re.compile(r"(\d{1,3})%\|[^|]*\|\s*(\d+)/(\d+)\s*\[")
STEP = re.compile(
    # not DeepSpeed-Chat's pipeline stage ("RuntimeError: Step 1 exited with non-zero status 1", "---=== Running Step 1
    # ===---", "Finished Step 1 in 0:00:09", "Step 1 model has not been trained", "train.py --step 1")
    r"(?<!-)(?<![Rr]unning\s)(?<![Ff]inished\s)"
    r"\b(?:global[_ ])?[Ss]tep\b\s*+[:=#]?\s*+(\d++)(?:\s*+/\s*+(\d+))?"
    r"(?!\s*+exited\b|\s++model\b|\s++in\s++\d|\s*+===)|"
    r"\bSTEP\s*+[:=]?\s*+(\d+)|第\s*+(\d+)\s*+步"
)
#: Right before a step's number, the words of a person naming the step it failed at ("OOM at step 1").
_AT_OR_ON = re.compile(r"\b(?:at|on)\s+(?:the\s+)?$", re.IGNORECASE)
_SIZE = r"([0-9]+(?:\.[0-9]+)?)"
MEMORY = (
    re.compile(r"'memory/([\w.]+)\((gib|mib|gb|mb)\)'\s*+:\s*+" + _SIZE, re.IGNORECASE),
    re.compile(
        r"\b(max_memory_allocated|memory_allocated|max_memory_reserved|memory_reserved"
        r"|mem(?:ory)?[ _]?(?:allocated|reserved|used|usage|active)|gpu[ _]?mem(?:ory)?|vram|peak[ _]mem(?:ory)?"
        r"|cuda[ _]mem(?:ory)?)\s*+(?:\(([GM]i?B)\))?\s*+[:=]?\s*+" + _SIZE + r"\s*+([GM]i?B|[GM]\b)?",
        re.IGNORECASE,
    ),
    re.compile(r"(显存(?:占用|使用)?)\s*+[:：=]?\s*+" + _SIZE + r"\s*+([GM]i?B|[GM])", re.IGNORECASE),
)
CLUE = re.compile(
    r"(?<!\*)\*{3,}\s*Running (?:Evaluation|Prediction|training)\s*\*{3,}|Saving model checkpoint|Saving checkpoint"
    r"|Loading checkpoint shards|merge_and_unload|Merging (?:LoRA|lora|adapter)|Loading (?:model|base model|weights)"
    r"|\bEvaluating\b|\bevaluation\b|\bGenerating\b",
    re.IGNORECASE,
)
_CLUE_WORDS = ("*****", "aving", "oading", "erg", "valuat", "enerat")
#: Every literal that one of the rarer checks (error trigger, step, memory, phase clue, allocator
#: setting) needs; a segment without any of them skips those checks.
_CLUE_WORD = re.compile("|".join(re.escape(w) for w in _CLUE_WORDS))
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
#: A trigger word (or a rarer literal) and the rest of its segment: one match per segment of a
#: block joined with newlines, starting at the first such word in it.
_TRIGGER_WORD_SEGMENT = re.compile("(?:" + _TRIGGER_WORD.pattern + ")[^\n]*")
_RARE_SEGMENT = re.compile("(?:" + _RARE.pattern + ")[^\n]*")


@lru_cache(maxsize=64)
def _bar_pattern(prefix: str, total: str) -> re.Pattern[str]:
    """A segment whose first TQDM match has the bar key of ``prefix`` (no digits) and ``total``.

    The text before the match is ``prefix`` without its outer spaces and colons, with any of those
    around it: :meth:`LogScanner._tqdm` strips them, so the key is the same. Without digits no
    match can start inside it; within one segment (no newline) \\d{1,3}, [^|]* and the digit
    runs leave the regex no choice, so it matches exactly when TQDM.search gives that key.
    """
    return re.compile(
        "\n[ :\t]*"
        + re.escape(prefix.strip(" :\t"))
        + r"[ :\t]*\d{1,3}%\|[^|\n]*\|[^\S\n]*\d+/"
        + total
        + r"[^\S\n]*\[",
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


@dataclass(frozen=True)
class _Block:
    """One chunk's segments for :meth:`LogScanner.feed_block`, and where they are when joined."""

    pairs: Sequence[tuple[int, str]]
    texts: list[str]
    joined: str
    """A newline, then the segments joined with newlines."""
    ends: list[int]
    """Where each segment ends in ``joined``."""
    rare: list[int]
    """The segments with a rarer literal, in order."""


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
        self._progress_lines: deque[tuple[int, str]] = deque(maxlen=PROGRESS_LINES)
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
        triggered = rare and _TRIGGER_WORD.search(text) is not None and TRIGGER.search(text) is not None
        if self._current is None and not triggered:
            self._before.append((number, kept))
        else:
            self._window(Line(number, kept), triggered)
        self._figures(number, text, kept, rare)

    def feed_block(self, pairs: Sequence[tuple[int, str]]) -> None:
        """Look at many segments at once: the same result as :meth:`feed` on each, in order.

        Between error windows (once the head is full) most segments change nothing that
        :meth:`digest` returns: a tqdm redraw superseded by the next redraw of the same bar, a
        ``{'loss': ...}`` line, a warning. Those are counted, and the last :data:`BEFORE_LINES` of
        them are remembered for the next window, but nothing else is done with them; every trigger
        (and the window after it), every segment with a rarer literal (step, memory, phase,
        allocator) and the last redraws of each bar go through the same checks as :meth:`feed`.
        Found by a few regex passes over the whole chunk joined with newlines, not a Python loop
        over its segments.
        """
        n = len(pairs)
        texts = [t for _, t in pairs]
        if not texts or max(map(len, texts)) > KEPT_CHARS:
            for number, text in pairs:  # not the shape the fast path assumes: one at a time
                self.feed(number, text)
            return
        joined = "\n" + "\n".join(texts)  # every segment follows a newline
        ends = list(map(add, accumulate(map(len, texts)), range(1, n + 1)))  # where each segment ends
        # every segment with a rarer literal (trigger words are among them), in order
        rare = sorted({bisect_left(ends, m.start()) for m in _RARE_SEGMENT.finditer(joined)})
        # the triggers (what :meth:`feed` calls triggered): no other segment opens a window
        stops = [k for k in rare if _TRIGGER_WORD.search(texts[k]) is not None and TRIGGER.search(texts[k]) is not None]
        stops.append(n)
        block = _Block(pairs, texts, joined, ends, rare)
        at = 0
        i = 0
        while i < n:
            if self._current is not None or len(self._head) < HEAD_LINES:
                self.feed(*pairs[i])
                i += 1
                continue
            while stops[at] < i:
                at += 1
            j = stops[at]
            if j > i:
                self._quiet(block, i, j)
            if j < n:
                self.feed(*pairs[j])
            i = j + 1

    def _quiet(self, block: _Block, start: int, end: int) -> None:
        """Segments ``start:end``: no trigger among them, no window open, the head full.

        Such a segment goes to the digest only through the bars, the progress lines and the
        rarer checks (steps, memory, phase clues, allocator settings). Every segment with a rarer
        literal is checked as :meth:`feed` does. Of the tqdm redraws, when all of them are redraws
        of one bar (proved by counting: as many ``%|`` as lines that are a redraw of that bar),
        only the last few matter: each earlier one is overwritten in place by the next and pushed
        out of the last progress lines. Otherwise each redraw's bar is worked out on its own.
        """
        self._count += end - start
        keep = set(block.rare[bisect_left(block.rare, start) : bisect_left(block.rare, end)])
        # the stretch in the joined text: from the newline before its first segment to its end
        pos, endpos = block.ends[start] - len(block.texts[start]) - 1, block.ends[end - 1]
        redraws = block.joined.count("%|", pos, endpos)
        if redraws:
            bars = self._one_bar(block, pos, endpos, redraws)
            keep.update(bars if bars is not None else self._bar_changes(block.texts, start, end))
        pairs = block.pairs
        for k in sorted(keep):
            number, text = pairs[k]
            self._figures(number, text, text, _RARE.search(text) is not None)
        self._before.extend(pairs[max(start, end - BEFORE_LINES) : end])

    @staticmethod
    def _one_bar(block: _Block, pos: int, endpos: int, redraws: int) -> list[int] | None:
        """The last redraws, if every ``%|`` in ``pos:endpos`` is the redraw of one bar; else None."""
        joined, ends = block.joined, block.ends
        last = joined.rfind("%|", pos, endpos)
        k = bisect_left(ends, last)
        text = block.texts[k]
        m = TQDM.search(text)
        if m is None:
            return None
        prefix = text[: m.start()]
        if any(c.isdigit() for c in prefix):  # a match could start inside it elsewhere
            return None
        same = _bar_pattern(prefix, m.group(3))
        if len(same.findall(joined, pos, endpos)) != redraws:
            return None
        found = [k]
        while len(found) < PROGRESS_LINES:
            last = joined.rfind("%|", pos, last)
            if last < 0:
                break
            found.append(bisect_left(ends, last))
        return found

    @staticmethod
    def _bar_changes(texts: list[str], start: int, end: int) -> list[int]:
        """Redraws whose bar differs from the next redraw's, and the last few redraws."""
        bars: list[tuple[int, tuple[str, int]]] = []
        for k in range(start, end):
            text = texts[k]
            if "%|" in text:
                m = TQDM.search(text)
                if m is not None:
                    at = m.start()
                    desc = text[:at].strip(" :\t") if at else ""
                    bars.append((k, (desc.lower(), int(m.group(3)))))
        keep = [k for (k, key), (_, after) in pairwise(bars) if key != after]
        keep += [k for k, _ in bars[-PROGRESS_LINES:]]
        return keep

    def _figures(self, number: int, text: str, kept: str, rare: bool) -> None:
        """Progress, steps, memory, phase clues and allocator settings in one segment."""
        if "%|" in kept:  # TQDM needs it
            self._tqdm(number, kept)
        if not rare:
            return
        line = Line(number, kept)
        if "tep" in text or "STEP" in text or "步" in text:
            self._step(line)
        if "em" in text or "EM" in text or "VRAM" in text or "vram" in text or "显存" in text:
            self._memory_figures(line)
        if _CLUE_WORD.search(text) is not None and CLUE.search(text):
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
        if "%|" in line.text and TQDM.search(line.text):
            return
        m = STEP.search(line.text)
        if not m:
            return
        n = m.group(1) or m.group(3) or m.group(4)
        said = m.group(4) or (m.group(1) if _AT_OR_ON.search(line.text, 0, m.start()) else None)
        if said == "1":
            n = "0"  # "第1步", "it fails at step 1": a person counts from one; oom_step counts the steps done
        total = int(m.group(2)) if m.group(2) else None
        self._steps.append(Progress(line.number, "step", int(n), total, line.text))
        self._progress_lines.append((line.number, line.text))

    def _memory_figures(self, line: Line) -> None:
        text = line.text
        for pattern in MEMORY:
            # literals each pattern needs: most memory lines only need one of the three searches
            if pattern is MEMORY[0] and ("'" not in text or "/" not in text):
                continue
            if pattern is MEMORY[2] and "显存" not in text:
                continue
            for m in pattern.finditer(text):
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
    blocks = getattr(lines, "blocks", None)
    if callable(blocks):  # triage.ingest.lines.FileLines: a chunk of segments at a time
        for block in blocks():
            scanner.feed_block(block)
    else:
        for number, text in lines:
            scanner.feed(number, text)
    return scanner.digest()
