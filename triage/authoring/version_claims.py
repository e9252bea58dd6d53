"""Version statements in prose, for cross-checking against the ``affects`` ranges (lint KB024).

A myth's correction or a remedy's text that tells the user to move to a release, says a
release fixed something or says a release is unchanged, must not name a release that a
cause it is linked to lists as affected. This module finds such statements; the lint
decides which causes they are checked against.

Only assertive statements are read: "upgrade to 4.40", ">= 4.40", "4.40 or later",
"a release from 4.40 on", "pick 4.36.2 or 4.37.x", "fixed in 0.39.1", "0.39.1 fixes",
"unchanged in 4.36", and their Chinese forms ("升级到 4.40", "4.40 及以上", "4.36.2 修复",
"4.36 未变"). A negation just before ("do not pin 4.38", "不要锁定 4.38", "skipping 4.38")
turns a statement off, and so does a narrative ("from 4.37.2 to 4.38.2"). Which package a
number belongs to is taken from a package name just before it, else from the one linked
package whose versions share its major number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

#: A release number as people write it: 4.40, 4.40.0, 4.36.x, v0.16.8 (the x counts as .0).
VERSION = r"v?(?P<v>\d+\.\d+(?:\.(?:\d+|x))?)(?![\d.]*\d)"

#: Names people use for the packages the knowledge base tracks, by distribution name.
ALIASES: dict[str, tuple[str, ...]] = {
    "transformers": ("transformers",),
    "bitsandbytes": ("bitsandbytes", "bnb"),
    "deepspeed": ("deepspeed",),
    "peft": ("peft",),
    "trl": ("trl",),
    "torch": ("torch", "pytorch"),
    "accelerate": ("accelerate",),
    "flash-attn": ("flash-attn", "flash_attn", "flash attention", "flashattention"),
    "vllm": ("vllm",),
    "liger-kernel": ("liger-kernel", "liger_kernel", "liger"),
    "unsloth": ("unsloth",),
}

_RECOMMEND_BEFORE = re.compile(
    r"(?:\b(?:upgrad\w*|updat\w*|bump\w*|mov\w*|switch\w*|pin\w*|pick\w*|prefer\w*|install\w*|go)\b"
    r"|>=|≥|升级|升到|换到|换成|固定|锁定|选|改用)"
    r"[^.;。；\n]{0,40}$",
    re.IGNORECASE,
)
_RECOMMEND_AFTER = re.compile(
    r"^\s*(?:\+|or (?:later|newer|above|higher|a current release)|and (?:later|newer|above)|on\b|onwards|"
    r"及以上|以上|或更高|或更新|之后的版本|及以后)",
    re.IGNORECASE,
)
_FROM_BEFORE = re.compile(r"\bat least\s+(?:transformers\s+|release\s+)?$", re.IGNORECASE)
#: "from 4.37.2 to 4.38.2", "从 4.37.2 升到 4.38.2": what happened, not what to do.
_NARRATIVE = re.compile(
    r"(?:\bfrom|从)\s*(?:\w+\s*)?v?\d+\.\d+(?:\.(?:\d+|x))?\s*(?:升级?到|升至|换到|to|->|→)\s*$", re.IGNORECASE
)
_FIXED_BEFORE = re.compile(
    r"(?:\bfixed in|\bfix (?:first )?(?:shipped|landed|arrived|is) in|\bfirst shipped in|修复于|修复版本(?:是|为)?)\s*"
    r"(?:release\s+|version\s+)?$",
    re.IGNORECASE,
)
_FIXED_AFTER = re.compile(r"^\s*(?:fixes|fixed|restores|removes|修复|恢复|去掉)", re.IGNORECASE)
_UNCHANGED_BEFORE = re.compile(r"\bunchanged in\b[^.;。；\n]{0,30}$", re.IGNORECASE)
_UNCHANGED_AFTER = re.compile(r"^[^。；.;\n]{0,12}(?:未变|没变|不变)")
_UNIT_AFTER = re.compile(
    r"^\s*(?:GB|GiB|MB|MiB|KB|TB|B\b|%|×|x\b|k\b|倍|万|亿|tokens?\b|bytes?\b|s\b|ms\b|秒|字节)", re.IGNORECASE
)
_NEGATION = re.compile(
    r"(?:\bnot\b|n't\b|\bnever\b|\bavoid\w*|\bskip\w*|\bexcept\b|\brather than\b|\binstead of\b|\bnor\b"
    r"|不要|别|跳过|避免|不是|不能|除了)[^.;。；\n]{0,30}$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Statement:
    """One version statement found in a text."""

    kind: str
    """recommends, fixed or unchanged."""
    version: Version
    """The release named (4.36.x is read as 4.36.0)."""
    written: str
    """The release as written."""
    package: str | None
    """The package named just before it, if any (distribution name)."""
    excerpt: str
    """The words around it, for the message."""


def parse_version(text: str) -> Version | None:
    """A written release as a Version (4.36.x -> 4.36.0), or None."""
    try:
        return Version(text.removeprefix("v").replace(".x", ".0"))
    except InvalidVersion:
        return None


def _package_before(before: str) -> str | None:
    tail = before[-40:].lower()
    best: tuple[int, str] | None = None
    for package, names in ALIASES.items():
        for name in names:
            at = tail.rfind(name)
            if at >= 0 and (best is None or at > best[0]):
                best = (at, package)
    return None if best is None else best[1]


def statements(text: str) -> list[Statement]:
    """Every recommending, fixing or unchanged statement about a release in ``text``."""
    out: list[Statement] = []
    for m in re.finditer(VERSION, text):
        version = parse_version(m.group("v"))
        if version is None:
            continue
        before, after = text[: m.start()], text[m.end() :]
        if _UNIT_AFTER.search(after):
            continue
        # a list of releases ("4.36.2 or 4.37.x", "4.36 and 4.38") shares the verb of its first member
        head = re.sub(rf"(?:{VERSION}\s*(?:,|/|or|and|或|和|、)\s*)+$", "", before, flags=re.IGNORECASE)
        kind = None
        if _FIXED_BEFORE.search(head) or _FIXED_AFTER.search(after):
            kind = "fixed"
        elif _UNCHANGED_BEFORE.search(head) or _UNCHANGED_AFTER.search(after):
            kind = "unchanged"
        elif _RECOMMEND_BEFORE.search(head) or _RECOMMEND_AFTER.search(after) or _FROM_BEFORE.search(head):
            kind = "recommends"
        if kind is None:
            continue
        clause = re.split(r"[.;。；\n]", head)[-1]
        if _NEGATION.search(clause) or _NARRATIVE.search(head):
            continue
        excerpt = " ".join(text[max(0, m.start() - 40) : m.end() + 20].split())
        out.append(Statement(kind, version, m.group("v"), _package_before(head), excerpt))
    return out


def affected(specifier: str, version: Version) -> bool:
    """Whether ``version`` lies in the PEP 440 range (False for an invalid range)."""
    try:
        return SpecifierSet(specifier).contains(version, prereleases=True)
    except InvalidSpecifier:
        return False
