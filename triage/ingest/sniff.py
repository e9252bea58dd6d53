"""Tell what kind of file ``--input FILE`` is: a log, an environment report, a config, or a watcher report."""

from __future__ import annotations

import re

from triage.ingest.config import ConfigShapeError, detect_kind, parse_config_text
from triage.ingest.errors import IngestError

_ENV_MARKERS = re.compile(
    r"Copy-and-paste the text below in your GitHub issue|^- `?transformers`? version:|^- `Accelerate` version:"
    r"|^PyTorch version: |^Is debug build: |^GPU models and configuration:|NVIDIA-SMI \d|^Package\s+Version\s*$"
    r"|^Versions of relevant libraries:",
    re.MULTILINE | re.IGNORECASE,
)
#: ``name==1.2`` or ``name  1.2`` (pip freeze, pip list); possessive, so a long blank run is read once.
_PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*+(?:\s*+==|\s{2,}+)[0-9]\S*+\s*$", re.MULTILINE)
_LOG_MARKERS = re.compile(
    r"Traceback \(most recent call last\)|out of memory|OutOfMemoryError|(?<!\d)\d+%\|[^|\n]*\|\s*\d+/\d+"
    r"|\bINFO\b|\bWARNING\b",
)


_REPORT = re.compile(r'^\s*\{\s*"format"\s*:\s*"triage-report"')


def sniff(sample: str, name: str = "") -> str:
    """'report', 'log', 'env' or 'config' for the first part of a file (and its name as a hint)."""
    low_name = name.lower()
    if _REPORT.match(sample):
        return "report"  # the watcher writes "format" first; its exception message would read as a log
    if _LOG_MARKERS.search(sample):
        return "log"
    if _ENV_MARKERS.search(sample):
        return "env"
    lines = [line for line in sample.splitlines() if line.strip()]
    if lines and sum(1 for line in lines if _PIN.match(line)) >= max(3, int(0.8 * len(lines))):
        return "env"
    if low_name.endswith((".json", ".yaml", ".yml")) or sample.lstrip().startswith(("{", "---")):
        try:
            data = parse_config_text(sample, name or "input")
        except ConfigShapeError:
            raise  # a config, but a hostile one: the same one-line refusal as --config gives
        except IngestError:
            return "log"
        if isinstance(data, dict):
            return "config"
    if re.match(r"^\s*[A-Za-z_][\w.-]*\s*:\s*\S", sample) and not low_name.endswith((".log", ".txt", ".out", ".err")):
        try:
            data = parse_config_text(sample, name or "input")
        except ConfigShapeError:
            raise
        except IngestError:
            return "log"
        if isinstance(data, dict) and detect_kind(data) != "generic":
            return "config"
    return "log"
