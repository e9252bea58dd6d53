"""A fact's value from what a person or a file wrote: the one place values are parsed.

Every reader, ``--fact``, the interview and the estimator turn raw words into
typed values here, so ``"24GiB"``, ``"是"`` and ``"4.31"`` mean the same thing
whichever door they came through.
"""

from __future__ import annotations

import math
import re

from packaging.version import InvalidVersion, Version

from triage.facts.spec import FactSpec, FactType

Value = bool | int | float | str


class FactError(ValueError):
    """A value that cannot be read as its fact's type, or an unknown fact name."""


#: The yes/no vocabulary, English and Chinese, for every boolean fact and answer.
TRUE_WORDS = frozenset(
    {"true", "yes", "yep", "yeah", "y", "1", "on", "enabled", "sure", "correct", "是", "开", "开启", "有", "对"}
)
FALSE_WORDS = frozenset(
    {"false", "no", "nope", "n", "0", "off", "none", "disabled", "not", "否", "关", "关闭", "没有", "无", "不"}
)


def parse_bool(raw: object) -> bool | None:
    """``True``/``False`` for a yes/no word (either language), None when it is not one."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, (int, float)) and raw in (0, 1):
        return bool(raw)
    low = str(raw).strip().lower()
    if low in TRUE_WORDS:
        return True
    if low in FALSE_WORDS:
        return False
    return None


_BYTE_UNITS = {
    "": 1,
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "k": 1024,
    "kb": 1000,
    "kib": 1024,
    "m": 1024**2,
    "mb": 1000**2,
    "mib": 1024**2,
    "g": 1024**3,
    "gb": 1000**3,
    "gib": 1024**3,
    "t": 1024**4,
    "tb": 1000**4,
    "tib": 1024**4,
}
_BYTES_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def unit_bytes(unit: str) -> int:
    """Bytes in one ``unit`` (``"GiB"`` -> 2**30, ``"GB"`` -> 10**9); raises FactError for an unknown unit."""
    try:
        return _BYTE_UNITS[unit.strip().lower()]
    except KeyError:
        raise FactError(f"unknown size unit {unit!r}; write e.g. GiB, MiB, GB or MB") from None


def parse_bytes(text: str) -> int:
    """``"2.00 GiB"`` -> 2147483648. GB/MB are SI (1000-based); G/GiB are binary."""
    m = _BYTES_RE.match(text)
    if not m or m.group(2).lower() not in _BYTE_UNITS:
        raise FactError(f"cannot read {text!r} as a size; write e.g. 24GiB, 512MiB or 2.5e9")
    return int(float(m.group(1)) * _BYTE_UNITS[m.group(2).lower()])


#: No fact of a real run is this large (2**53: the last integer a float holds exactly).
LARGEST = float(2**53)


def coerce(spec: FactSpec, raw: object) -> Value:
    """Convert ``raw`` (a string from the CLI or a YAML scalar) to the fact's type.

    Numbers are counts, sizes, ratios or capabilities: a negative, infinite or
    NaN one is refused, and so is one above the fact's ``maximum`` (2**53 when
    it names none), so ``lora_r=1e308`` is an error message, not a crash later,
    and one below its ``minimum`` (``gpu_count=0``, ``batch_size=0``).
    """
    value = _coerce(spec, raw)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            raise FactError(f"{spec.id} must be a finite number; got {raw!r}")
        if value < 0:
            raise FactError(f"{spec.id} cannot be negative; got {raw!r}")
        limit = spec.maximum if spec.maximum is not None else LARGEST
        if value > limit:
            raise FactError(f"{spec.id} cannot be above {limit:g}; got {raw!r}")
        if spec.minimum is not None and value < spec.minimum:
            raise FactError(f"{spec.id} must be at least {spec.minimum:g}; got {raw!r}")
    return value


def _number(text: str) -> float:
    number = float(text.replace(",", "").replace("_", ""))
    if not math.isfinite(number):
        raise FactError(f"{text!r} is not a finite number")
    return number


def _coerce(spec: FactSpec, raw: object) -> Value:
    text = str(raw).strip()
    kind = spec.type
    try:
        if kind is FactType.bool:
            flag = parse_bool(raw)
            if flag is None:
                raise FactError(f"{spec.id} is yes/no; got {text!r} (use true or false)")
            return flag
        if kind is FactType.int:
            if isinstance(raw, bool):
                raise FactError(f"{spec.id} is a whole number; got {text!r}")
            number = _number(text)
            if abs(number) > LARGEST:
                raise FactError(f"{spec.id} cannot be above {LARGEST:g}; got {text!r}")
            return int(number)
        if kind is FactType.float:
            return _number(text)
        if kind is FactType.bytes:
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                if not math.isfinite(raw) or abs(raw) > LARGEST:
                    raise FactError(f"{spec.id} must be a size below 8 PiB; got {text!r}")
                return int(raw)
            try:
                number = _number(text)
            except ValueError:
                return parse_bytes(text)
            if abs(number) > LARGEST:
                raise FactError(f"{spec.id} must be a size below 8 PiB; got {text!r}")
            return int(number)
        if kind is FactType.version:
            return str(Version(text.lstrip("vV")))
        if kind is FactType.enum:
            allowed = spec.values or []
            for value in allowed:
                if value.lower() == text.lower():
                    return value
            raise FactError(f"{spec.id} must be one of {', '.join(allowed)}; got {text!r}")
        return text
    except (ValueError, InvalidVersion, OverflowError) as exc:
        if isinstance(exc, FactError):
            raise
        raise FactError(f"{spec.id} is of type {kind.value}; cannot read {text!r}") from None
