"""Chinese equals English: every text of every entity names the same identifiers, numbers and versions in zh.

For each bilingual text (titles, summaries, explanation sections, labels, cost notes, claims,
corrections, fact questions and help) the Chinese must contain:

- every identifier of the English: backticked names, snake_case names (``padding_side``, not
  ``pad_side``) and CamelCase names (``DynamicCache``);
- every number and version of the English, compared by value, so that a thousands separator,
  a magnitude written the Chinese way and a superscript do not count as differences:
  ``128,256`` = ``128256``, ``4.2M`` = ``420 万``, ``262M`` = ``2.62 亿``, ``100k`` = ``10 万``,
  ``L^2`` = ``L²``. Versions (two dots or more) are compared as written.

A myth's ``claim`` is the community's own words in Chinese with an English rendering, so only
its identifiers are compared (the English may round or add context such as "LoRA"); its
``correction`` is held to the full rule.

The rule is one-way (English -> Chinese): the Chinese may say more. Exceptions live in
``EXCEPTIONS`` with a reason; an exception that no longer matches anything fails the test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from triage.kb.loader import load_knowledge
from triage.kb.models import Text

#: (entity id, field path) -> why the Chinese may lack something the English has.
EXCEPTIONS: dict[tuple[str, str], str] = {}

_MAGNITUDE = {"k": 10**3, "K": 10**3, "M": 10**6, "B": 10**9, "万": 10**4, "亿": 10**8}
_SUFFIXED = re.compile(r"(?<![0-9.])(\d+(?:\.\d+)?)([kKMB])(?![A-Za-z])")
_NUMBER = re.compile(r"(?<![0-9.])(\d+(?:\.\d+)*)(?![0-9])\s?(万|亿)?")
_TICKED = re.compile(r"`([^`\n]+)`")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")


def _normalise(text: str) -> str:
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    return text.replace("²", "^2").replace("³", "^3")


def numbers(text: str) -> set[object]:
    """The numbers and versions in ``text``, as values (versions as written)."""
    text = _normalise(text)
    found: set[object] = set()
    for m in _SUFFIXED.finditer(text):
        found.add(round(float(m.group(1)) * _MAGNITUDE[m.group(2)]))
    for m in _NUMBER.finditer(_SUFFIXED.sub(" ", text)):
        value, magnitude = m.group(1), m.group(2)
        if magnitude:
            found.add(round(float(value) * _MAGNITUDE[magnitude]))
        elif value.count(".") >= 2:
            found.add(value)
        else:
            found.add(float(value))
    return found


def identifiers(text: str, *, camel: bool = True) -> set[str]:
    """Backticked, snake_case and (optionally) CamelCase names in ``text``."""
    text = _normalise(text)
    found = set(_TICKED.findall(text)) | set(_SNAKE.findall(text))
    if camel:
        found |= set(_CAMEL.findall(text))
    return found


def missing_in_chinese(text: Text, *, claim: bool = False) -> list[str]:
    """What the English of ``text`` names that its Chinese does not."""
    zh = _normalise(text.zh)
    missing = sorted(i for i in identifiers(text.en, camel=not claim) if i not in zh)
    if not claim:
        missing += sorted(str(n) for n in numbers(text.en) - numbers(text.zh))
    return missing


def _texts(obj: object, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Text]]:
    if isinstance(obj, Text):
        yield ".".join(path), obj
    elif isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            yield from _texts(getattr(obj, name), (*path, name))
    elif isinstance(obj, list | tuple):
        for i, item in enumerate(obj):
            yield from _texts(item, (*path, str(i)))


def _mismatches() -> dict[tuple[str, str], list[str]]:
    kb, _ = load_knowledge()
    out: dict[tuple[str, str], list[str]] = {}
    for collection in (kb.causes, kb.remedies, kb.myths, kb.facts):
        for entity_id, entity in collection.items():
            for path, text in _texts(entity):
                missing = missing_in_chinese(text, claim=path == "claim" and entity_id in kb.myths)
                if missing:
                    out[(entity_id, path)] = missing
    return out


def test_chinese_names_what_the_english_names():
    found = _mismatches()
    unexcused = {k: v for k, v in found.items() if k not in EXCEPTIONS}
    report = "\n".join(f"{eid} {path}: zh lacks {', '.join(missing)}" for (eid, path), missing in unexcused.items())
    assert not unexcused, "the Chinese text must name the same identifiers, numbers and versions:\n" + report


def test_every_exception_is_still_needed_and_explained():
    found = _mismatches()
    for key, reason in EXCEPTIONS.items():
        assert reason.strip(), f"exception {key} needs a reason"
        assert key in found, f"exception {key} no longer matches anything; remove it"


@pytest.mark.parametrize(
    ("en", "zh", "missing"),
    [
        ("The attribute is padding_side.", "属性名是 pad_side。", ["padding_side"]),
        ("Llama-3 has 128,256 tokens.", "Llama-3 有 128256 个词。", []),
        ("4.2M parameters", "420 万参数", []),
        ("262M trainable parameters", "2.62 亿可训练参数", []),
        ("100k tokens or more", "不少于 10 万", []),
        ("O(L^2) scores", "O(L²) 分数", []),
        ("fixed in 4.36.2", "4.36.2 修复", []),
        ("fixed in 4.36.2", "4.36 修复", ["4.36.2"]),
        ("DynamicCache is built", "会创建缓存", ["DynamicCache"]),
        ("about 3x the memory", "约 3 倍显存", []),
        ("batch 16 x 4,096 tokens is 32 GB", "batch 16 × 4096 token 就是 32 GB", []),
    ],
)
def test_the_comparison(en, zh, missing):
    assert missing_in_chinese(Text(en=en, zh=zh)) == missing


def test_a_claim_is_compared_by_identifiers_only():
    claim = Text(
        en="8-bit AdamW frees another 1-3 GB with pad_side=left", zh="8bit 优化器能再挤出 2G，加 pad_side=left"
    )
    assert missing_in_chinese(claim, claim=True) == []
    assert missing_in_chinese(Text(en="set padding_side", zh="设 pad_side"), claim=True) == ["padding_side"]
