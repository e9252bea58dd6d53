"""Read a training log (or a pasted traceback): one streaming pass, then the facts it shows.

Combines :mod:`logscan` (what is kept), :mod:`oom` (the error message), :mod:`phase`
(where in the run), :mod:`env` (version banners at the top of the log) and the
``PYTORCH_CUDA_ALLOC_CONF`` lines, and builds the bounded excerpt that text signals see.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from triage.ingest import oom, phase
from triage.ingest.env import read_env
from triage.ingest.fixes import describes_a_fix
from triage.ingest.found import Found, excerpt
from triage.ingest.logscan import Line, LogDigest, scan

#: Characters of one log's excerpt handed to the text signals.
EXCERPT_CHARS = 16_384
_WINDOW_LINES = 120

_ALLOC_CONF = re.compile(r"PYTORCH_CUDA_ALLOC_CONF\s*[=:]\s*['\"]?([^'\"\s]*)", re.IGNORECASE)
_EXPANDABLE = re.compile(r"expandable_segments\s*[:=]\s*(true|false|1|0)", re.IGNORECASE)
#: The line a Python traceback ends with: the exception's name ("RuntimeError: ...",
#: "torch.distributed.DistBackendError", "[rank0]: KeyError: 'x'"), or IPython's header that names it first
#: ("RuntimeError    Traceback (most recent call last)"). A traceback cut before it ("...", a closing fence) says
#: nothing about the error's kind.
_EXCEPTION_LINE = re.compile(
    r"^\s*(?:\[rank\d+\]:\s*)?(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault)\b"
    r"(?::|\s*$|\s+Traceback \(most recent call last\))"
)


@dataclass(frozen=True)
class LogReading:
    """What a log said: facts, the excerpt for text signals, and the digest behind them."""

    found: list[Found]
    excerpt: str
    digest: LogDigest
    reports: list[oom.OomReport] = field(default_factory=list)


def expandable_segments(lines: Iterable[Line]) -> Found | None:
    """Whether the run had expandable_segments on, from lines that set or print the allocator config.

    The OOM message's own hint says nothing either way: PyTorch prints it whether or not the
    option is on (pytorch#173049), so only the setting itself counts; a line that says setting it
    made the OOM go away tells the fix (the text reader's ``resolved_by``), not the failing run's setting.
    """
    result = None
    for line in lines:
        m = _EXPANDABLE.search(line.text)
        if m and describes_a_fix(line.text, m.end(), m.start()):
            continue  # "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True 之后就不爆了": the fix, not the run's
        if m:
            result = Found("expandable_segments", m.group(1).lower() in ("true", "1"), line.number, excerpt(line.text))
            continue
        conf = _ALLOC_CONF.search(line.text)
        if conf and conf.group(1) and not conf.group(1).startswith("$"):
            result = Found(
                "expandable_segments",
                False,
                line.number,
                excerpt(line.text),
                "PYTORCH_CUDA_ALLOC_CONF is set without expandable_segments",
            )
    return result


def build_excerpt(digest: LogDigest, limit: int = EXCERPT_CHARS) -> str:
    """The last error windows, progress lines and phase markers, at most ``limit`` characters."""
    parts: list[str] = []
    for window in digest.windows[-2:]:
        parts.extend(line.text for line in window[-_WINDOW_LINES:])
    parts.extend(line.text for line in digest.progress_lines[-3:])
    parts.extend(line.text for line in digest.clues[-3:])
    text = "\n".join(parts)
    return text if len(text) <= limit else text[-limit:]


def read_log_lines(lines: Iterable[tuple[int, str]]) -> LogReading:
    """Facts from a log's lines (from :func:`triage.ingest.lines.iter_file_lines` or ``iter_text_lines``)."""
    digest = scan(lines)
    reports = [r for window in digest.windows for r in oom.find_reports(window)]
    final = oom.final_report(reports)
    found: list[Found] = []
    if final is not None:
        found += oom.findings(final, reports)
        error_line = final.line
    else:
        error_line = None
        tracebacks = [w for w in digest.windows if any("Traceback (most recent call last)" in ln.text for ln in w)]
        if tracebacks:
            last = tracebacks[-1]
            error_line = last[-1].number
            raised = next((ln for ln in reversed(last) if _EXCEPTION_LINE.match(ln.text)), None)
            if raised is not None:
                found.append(
                    Found(
                        "error_kind",
                        "other",
                        raised.number,
                        excerpt(raised.text),
                        "a traceback without an out-of-memory message",
                    )
                )
    found += phase.findings(digest, error_line)
    es = expandable_segments(digest.alloc_conf)
    if es is not None:
        found.append(es)
    found += [f for f in read_env((line.number, line.text) for line in digest.head) if f.name.endswith("_version")]
    return LogReading(found, build_excerpt(digest), digest, reports)
