"""Wrap text to a terminal width, counting East Asian wide characters as two columns."""

from __future__ import annotations

import re
import unicodedata

_WIDE = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_TOKEN = re.compile(rf"\s+|[{_WIDE}]|[^\s{_WIDE}]+")


def width(text: str) -> int:
    """Display columns of ``text``: wide and full-width characters count two."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def wrap(text: str, columns: int, first: str = "", rest: str | None = None) -> list[str]:
    """Greedy wrap: ASCII words stay whole (split only when longer than a line), CJK breaks anywhere."""
    rest = first if rest is None else rest
    lines: list[str] = []
    line, used = first, width(first)
    pending_space = False
    for token in _TOKEN.findall(" ".join(text.split())):
        if token.isspace():
            pending_space = True
            continue
        gap = 1 if pending_space and line.strip() else 0
        pending_space = False
        w = width(token)
        if used + gap + w <= columns:
            line += " " * gap + token
            used += gap + w
            continue
        if line.strip():
            lines.append(line)
        line, used = rest, width(rest)
        while used + w > columns and len(token) > 1:  # a word longer than a whole line
            cut = 1
            while cut < len(token) and used + width(token[: cut + 1]) <= columns:
                cut += 1
            lines.append(line + token[:cut])
            token, w = token[cut:], width(token[cut:])
            line, used = rest, width(rest)
        line += token
        used += w
    if line.strip() or not lines:
        lines.append(line.rstrip() if line.strip() else first.rstrip())
    return lines
