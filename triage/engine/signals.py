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


#: Spaces and tabs between a Chinese character and a Latin letter or digit (either way round).
_CJK_SPACING = re.compile(
    r"(?<=[\u4e00-\u9fff\uff0c\u3002\uff1a\uff1b])[ \t]+(?=[A-Za-z0-9_(])"
    r"|(?<=[A-Za-z0-9_)%])[ \t]+(?=[\u4e00-\u9fff])"
)


def unspaced(text: str) -> str:
    """``text`` without the spaces many Chinese writers put around English words and numbers.

    "保存 checkpoint 的时候就爆显存", "zero3 还是 OOM", "batch 调小就能跑" read as "保存checkpoint的时候就爆显存",
    "zero3还是OOM", "batch调小就能跑", the way the knowledge base's Chinese patterns are written.
    """
    return _CJK_SPACING.sub("", text)


@lru_cache(maxsize=4)
def _forms(text: str) -> tuple[str, str, str]:
    """``text`` lowered, :func:`unspaced`, and that lowered ("" when unspacing changed nothing): worked out once
    per text, not once per cause (a diagnosis matches the same text for every cause and myth)."""
    tight = unspaced(text)
    return text.lower(), tight, tight.lower() if tight != text else ""


def match_all(signals: list[Signal], text: str, anchors: Anchors | None = None) -> list[Match]:
    """Every signal of the list that matches ``text``, or failing that the same text :func:`unspaced`
    (a match is only ever added: a pattern written for the spaced form still matches it)."""
    if not text:
        return []
    lowered, tight, tight_lowered = _forms(text)
    found = []
    for s in signals:
        m = match_signal(s, text, lowered, anchors)
        if m is None and tight_lowered:
            m = match_signal(s, tight, tight_lowered, anchors)
        if m is None and s.type == "keyword":
            m = _match_without_particles(s, tight)
        if m is not None:
            found.append(m)
    return found


#: Chinese particles and adverbs that sit between the words of a phrase without changing it: "显存也一直在涨" says
#: "显存一直涨", "padding到了max_length" says "padding到max_length". Negations (不, 没) are never among them.
_PARTICLES = re.compile(r"[了都也还的在就着]")
_CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _match_without_particles(signal: Signal, text: str) -> Match | None:
    """A Chinese keyword found once both it and ``text`` are read without :data:`_PARTICLES`; the excerpt is the
    user's own words, particles and all. Only keywords with Chinese in them: English ones never span particles."""
    if not _PARTICLES.search(text):
        return None
    bare, where = _bare(text)
    for pattern in signal.patterns:
        want = _PARTICLES.sub("", pattern.lower())
        at = bare.find(want) if len(want) >= 3 and _CHINESE.search(want) else -1
        if at >= 0:
            return Match(signal, _excerpt(text, where[at], where[at + len(want) - 1] + 1))
    return None


@lru_cache(maxsize=4)
def _bare(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` lowered without :data:`_PARTICLES`, and where each character kept stands in ``text``."""
    where = tuple(i for i, ch in enumerate(text) if not _PARTICLES.match(ch))
    # one character for one: "İ".lower() is two, which would shift every position after it
    return "".join(low if len(low := text[i].lower()) == 1 else text[i] for i in where), where
