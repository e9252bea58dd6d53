"""The one door out: everything triage prints or writes passes here, redacted and made safe.

Reports go to public issue trackers and outputs to terminals, so every path out
(text, markdown, JSON, ``triage ask --report``, the TUI export) goes through
:func:`for_terminal`, :func:`for_file` or :func:`json_text`:

- secrets and personal paths are replaced (:func:`triage.redact.redact`);
- escape sequences and control characters that came from the input are removed or shown
  (:func:`triage.render.sanitize.clean_terminal`), so a shared config cannot retitle the
  window, clear the screen or set the clipboard;
- JSON is strict (no NaN or Infinity) and its strings are redacted, keys and excerpts included.
"""

from __future__ import annotations

import json
import math
from typing import Any

from triage.redact import redact, redact_data
from triage.render.sanitize import clean_terminal


def for_terminal(text: str) -> str:
    """Text for a terminal: redacted, no escape sequences, controls made visible (newlines and tabs kept)."""
    return clean_terminal(redact(text))


def for_file(text: str) -> str:
    """Text for a file a person will post or open (markdown): the same rules as the terminal."""
    return clean_terminal(redact(text))


def finite(data: Any) -> Any:
    """``data`` with every NaN or infinity replaced by None: JSON has no such numbers."""
    if isinstance(data, float) and not math.isfinite(data):
        return None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    return data


def json_text(data: Any) -> str:
    """Strict JSON of ``data`` with every string redacted; control characters are escaped by JSON itself."""
    return json.dumps(finite(redact_data(data)), ensure_ascii=False, indent=2, allow_nan=False)
