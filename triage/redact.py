"""Remove secrets from text before it leaves the machine (exported reports).

Pasted env reports, configs and shell histories often carry credentials. Each
rule below replaces the secret itself with ``[REDACTED:<kind>]`` and keeps the
words around it, so the report still reads (``HF_TOKEN=[REDACTED:hf-token]``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

#: Tokens with a recognisable shape, redacted wherever they appear.
_SHAPED: list[tuple[str, re.Pattern[str]]] = [
    ("hf-token", re.compile(r"\bhf_[A-Za-z0-9]{20,}\b")),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
]
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)([A-Za-z0-9._~+/\-]{8,}=*)")
#: ``name = value`` / ``name: value`` / ``--name value`` where the name says it is a secret.
_ASSIGNED = re.compile(
    r"""(?ix)
    (?P<name>(?<![\w-])[\w.-]*?(?:api[_-]?key|apikey|secret(?:[_-]access)?[_-]?key|secret|password|passwd|token))
    (?P<sep>["']?\s*[:=]\s*|\s+(?=["']?\S{12,}))
    (?P<quote>["']?)
    (?P<value>[^\s"',;}]+)
    """
)
#: Names ending in "token" that hold a vocabulary token, not a credential.
_NOT_SECRET_NAMES = re.compile(
    r"(?i)(pad|eos|bos|unk|sep|cls|mask|special|start|end|image|chat|split|num|max|min)[_-]?token$"
)
_NOT_SECRET_VALUES = re.compile(r"(?i)^(none|null|true|false|\d+|<[^>]*>|\[REDACTED:[\w-]+\]|\*+|x+|\.\.\.)$")


@dataclass(frozen=True)
class Redacted:
    """Redacted text and what was removed."""

    text: str
    found: dict[str, int]
    """How many secrets of each kind were replaced."""

    @property
    def count(self) -> int:
        return sum(self.found.values())


def _mark(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def redact_text(text: str) -> Redacted:
    """``text`` with every recognised secret replaced."""
    found: Counter[str] = Counter()

    def shaped(kind: str) -> Callable[[re.Match[str]], str]:
        def sub(m: re.Match[str]) -> str:
            found[kind] += 1
            return _mark(kind)

        return sub

    for kind, pattern in _SHAPED:
        text = pattern.sub(shaped(kind), text)

    def bearer(m: re.Match[str]) -> str:
        if m.group(3).startswith("[REDACTED"):
            return m.group(0)
        found["bearer-token"] += 1
        return f"{m.group(1)}{m.group(2)}{_mark('bearer-token')}"

    text = _BEARER.sub(bearer, text)

    def assigned(m: re.Match[str]) -> str:
        name, value = m.group("name"), m.group("value")
        if _NOT_SECRET_NAMES.search(name) or _NOT_SECRET_VALUES.match(value) or value.startswith("[REDACTED"):
            return m.group(0)
        if not m.group("sep").strip() and len(value) < 12:
            return m.group(0)
        found["secret"] += 1
        return f"{name}{m.group('sep')}{m.group('quote')}{_mark('secret')}"

    text = _ASSIGNED.sub(assigned, text)
    return Redacted(text, dict(found))


def redact(text: str) -> str:
    """``text`` with every recognised secret replaced by ``[REDACTED:<kind>]``."""
    return redact_text(text).text
