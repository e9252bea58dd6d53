"""Evaluate condition trees over facts in three-valued logic.

``True`` and ``False`` mean what they say; ``None`` means unknown: a fact the
condition needs is missing. ``all`` is false as soon as one member is false
(even if others are unknown); ``any`` is true as soon as one member is true.
"""

from __future__ import annotations

import re
from functools import lru_cache

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from triage.facts import FactError, FactSet, Value, parse_bytes
from triage.kb.models import AllOf, AnyOf, Condition, Leaf, NotOf
from triage.kb.walk import leaves

__all__ = ["describe", "evaluate", "leaves", "specifier", "version_in"]

Tri = bool | None


@lru_cache(maxsize=512)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@lru_cache(maxsize=512)
def specifier(text: str) -> SpecifierSet:
    """A PEP 440 specifier set (cached); pre-releases count as inside the range."""
    return SpecifierSet(text, prereleases=True)


def version_in(version: str, spec: str) -> bool:
    """Whether ``version`` satisfies the PEP 440 specifier ``spec``."""
    try:
        return specifier(spec).contains(Version(version), prereleases=True)
    except (InvalidVersion, InvalidSpecifier):
        return False


def _number(value: object) -> float:
    """A number from a condition value: 1024, 0.5, or a size such as "1GiB" for bytes facts."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return float(parse_bytes(value))
    return float(value)  # type: ignore[arg-type]


def _compare(op: str, actual: Value, expected: object) -> bool:
    if op == "eq":
        return bool(actual == expected)
    if op == "ne":
        return bool(actual != expected)
    if op == "in":
        return actual in expected  # type: ignore[operator]
    if op == "not_in":
        return actual not in expected  # type: ignore[operator]
    if op == "contains":
        return str(expected).lower() in str(actual).lower()
    if op == "regex":
        return _regex(str(expected)).search(str(actual)) is not None
    if op == "version":
        return version_in(str(actual), str(expected))
    number = _number(actual)
    if op == "between":
        bounds = list(expected)  # type: ignore[call-overload]
        return _number(bounds[0]) <= number <= _number(bounds[1])
    target = _number(expected)
    return {"lt": number < target, "le": number <= target, "gt": number > target, "ge": number >= target}[op]


def evaluate(cond: Condition, facts: FactSet) -> Tri:
    """The three-valued truth of ``cond`` given ``facts``."""
    if isinstance(cond, Leaf):
        actual = facts.value(cond.fact)
        if actual is None:
            return None
        try:
            possible = facts.possible(cond.fact)
            if possible:
                # a coarse value ("training"): known only when every value it stands for agrees
                agree = {_compare(cond.op, finer, cond.value) for finer in possible}
                return agree.pop() if len(agree) == 1 else None
            return _compare(cond.op, actual, cond.value)
        except (TypeError, ValueError, FactError):
            return None
    if isinstance(cond, AllOf):
        results = [evaluate(c, facts) for c in cond.all]
        if any(r is False for r in results):
            return False
        return True if all(r is True for r in results) else None
    if isinstance(cond, AnyOf):
        results = [evaluate(c, facts) for c in cond.any]
        if any(r is True for r in results):
            return True
        return False if all(r is False for r in results) else None
    assert isinstance(cond, NotOf)
    inner = evaluate(cond.not_, facts)
    return None if inner is None else not inner


def describe(cond: Condition) -> str:
    """A compact human form: ``gradient_checkpointing = false``, ``phase is one of loading, saving``,
    ``host_ram_bytes ≤ 64 GiB``."""
    if isinstance(cond, Leaf):
        if cond.op in ("in", "not_in") and isinstance(cond.value, list):
            which = "one" if cond.op == "in" else "none"
            return f"{cond.fact} is {which} of {', '.join(_shown(cond.fact, v) for v in cond.value)}"
        symbol = {"eq": "=", "ne": "≠", "lt": "<", "le": "≤", "gt": ">", "ge": "≥"}.get(cond.op, cond.op)
        return f"{cond.fact} {symbol} {_shown(cond.fact, cond.value)}"
    if isinstance(cond, AllOf):
        return " and ".join(_group(c) for c in cond.all)
    if isinstance(cond, AnyOf):
        return " or ".join(_group(c) for c in cond.any)
    return f"not {_group(cond.not_)}"


def _shown(fact: str, value: object) -> str:
    """A value as people write it: booleans in lower case, a byte count of a ``*_bytes`` fact in GiB or MiB."""
    if isinstance(value, bool):
        return str(value).lower()
    if fact.endswith("_bytes") and isinstance(value, int) and value >= 2**20:
        gib = value / 2**30
        return f"{gib:g} GiB" if gib >= 1 else f"{value / 2**20:g} MiB"
    return str(value)


#: Each comparison and its opposite, for :func:`describe_negated`.
_OPPOSITE = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le", "in": "not_in", "not_in": "in"}


def describe_negated(cond: Condition) -> str:
    """What holds when ``cond`` is false, compactly: ``model_params_b < 13`` for ``model_params_b ≥ 13``."""
    if isinstance(cond, Leaf) and cond.op in ("eq", "ne") and isinstance(cond.value, bool):
        return describe(cond.model_copy(update={"op": "eq", "value": (cond.op == "ne") == cond.value}))
    if isinstance(cond, Leaf) and cond.op in _OPPOSITE:
        return describe(cond.model_copy(update={"op": _OPPOSITE[cond.op]}))
    if isinstance(cond, NotOf):
        return describe(cond.not_)
    return f"not {_group(cond)}"


def _group(cond: Condition) -> str:
    text = describe(cond)
    return text if isinstance(cond, Leaf) else f"({text})"
