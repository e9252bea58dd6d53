"""Match text signals (regex, keyword, fuzzy phrase) against what the user wrote."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from triage.kb.models import Signal

#: Minimum rapidfuzz partial-ratio (0-100) for a phrase to count as present.
PHRASE_THRESHOLD = 88.0
#: Phrases shorter than this (in characters) must match exactly; fuzzy matching
#: of very short strings finds them everywhere.
MIN_FUZZY_LEN = 8


@dataclass(frozen=True)
class Match:
    """A signal that matched, and the words that matched it."""

    signal: Signal
    excerpt: str


@lru_cache(maxsize=2048)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A case-insensitive compiled regex (cached across calls).

    ``\\b``, ``\\w``, ``\\d`` and ``\\s`` are ASCII: a Chinese character counts as a word character
    in Unicode mode, so ``\\bvllm\\b`` would miss "用vllm在rollout阶段" and ``\\bsft\\b`` "做SFT时", which
    Chinese reports write without spaces. Chinese words in patterns are matched literally.
    """
    return re.compile(pattern, re.IGNORECASE | re.MULTILINE | re.ASCII)


def _excerpt(text: str, start: int, end: int) -> str:
    return " ".join(text[start:end].split())[:120]


Anchors = Mapping[str, "tuple[str, ...] | None"]


def match_signal(signal: Signal, text: str, lowered: str, anchors: Anchors | None = None) -> Match | None:
    """The first pattern of ``signal`` found in ``text`` (``lowered`` is ``text.lower()``).

    ``anchors`` maps a regex to literals one of which every match contains
    (triage/kb/anchors.py); a pattern none of whose anchors occurs is skipped
    without being compiled.
    """
    for pattern in signal.patterns:
        if signal.type == "regex":
            need = anchors.get(pattern) if anchors is not None else None
            if need is not None and not any(word in lowered for word in need):
                continue
            found = compile_pattern(pattern).search(text)
            if found:
                return Match(signal, _excerpt(text, found.start(), found.end()))
        elif signal.type == "keyword":
            at = lowered.find(pattern.lower())
            if at >= 0:
                return Match(signal, _excerpt(text, at, at + len(pattern)))
        else:
            needle = pattern.lower()
            at = lowered.find(needle)
            if at >= 0:
                return Match(signal, _excerpt(text, at, at + len(needle)))
            if len(needle) >= MIN_FUZZY_LEN and len(lowered) >= len(needle) // 2:
                found_align = fuzz.partial_ratio_alignment(needle, lowered, score_cutoff=PHRASE_THRESHOLD)
                if found_align is not None:
                    return Match(signal, _excerpt(text, found_align.dest_start, found_align.dest_end))
    return None


def match_all(signals: list[Signal], text: str, anchors: Anchors | None = None) -> list[Match]:
    """Every signal of the list that matches ``text``."""
    if not text:
        return []
    lowered = text.lower()
    return [m for s in signals if (m := match_signal(s, text, lowered, anchors)) is not None]
