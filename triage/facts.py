"""Typed facts with provenance: the one currency between stages.

A :class:`Fact` is a named, typed value together with the :class:`Source` that
said it (the symptom text, line 812 of train.log, args.json, an interview
answer, ``--fact``). Values are coerced according to the fact's
:class:`~triage.kb.models.FactSpec`, so ``"24GiB"`` becomes a number of bytes
and ``"4.31"`` a normalised version string.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from packaging.version import InvalidVersion, Version

from triage.kb.models import FactSpec, FactType

Value = bool | int | float | str


@dataclass(frozen=True)
class Source:
    """Where a fact came from."""

    kind: str
    """symptom, log, config, env, cli, answer, derived or case."""
    path: str | None = None
    """The file it was read from, if any."""
    line: int | None = None
    """The 1-based line in that file or text, if known."""
    excerpt: str | None = None
    """The words that said it, quoted back to the user."""

    def describe(self) -> str:
        """A short human description: ``train.log:812``, ``--fact``, ``symptom``."""
        where = self.path or self.kind
        if self.line is not None:
            where = f"{where}:{self.line}"
        return where


@dataclass(frozen=True)
class Fact:
    """A typed value and its provenance."""

    name: str
    value: Value
    source: Source

    def to_json(self) -> dict[str, object]:
        """The JSON form used in the ``facts`` object of the output contract."""
        out: dict[str, object] = {"value": self.value, "source": self.source.kind}
        if self.source.path:
            out["path"] = self.source.path
        if self.source.line is not None:
            out["line"] = self.source.line
        if self.source.excerpt:
            out["excerpt"] = self.source.excerpt
        return out


class FactError(ValueError):
    """A value that cannot be read as its fact's type, or an unknown fact name."""


_TRUE = {"true", "yes", "y", "1", "on", "是", "开", "开启", "有"}
_FALSE = {"false", "no", "n", "0", "off", "否", "关", "关闭", "没有", "无"}

_BYTE_UNITS = {
    "": 1,
    "b": 1,
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


def parse_bytes(text: str) -> int:
    """``"2.00 GiB"`` -> 2147483648. GB/MB are SI (1000-based); G/GiB are binary."""
    m = _BYTES_RE.match(text)
    if not m or m.group(2).lower() not in _BYTE_UNITS:
        raise FactError(f"cannot read {text!r} as a size; write e.g. 24GiB, 512MiB or 2.5e9")
    return int(float(m.group(1)) * _BYTE_UNITS[m.group(2).lower()])


def coerce(spec: FactSpec, raw: object) -> Value:
    """Convert ``raw`` (a string from the CLI or a YAML scalar) to the fact's type.

    Numbers are counts, sizes, ratios or capabilities, so a negative one is refused.
    """
    value = _coerce(spec, raw)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise FactError(f"{spec.id} cannot be negative; got {raw!r}")
    return value


def _coerce(spec: FactSpec, raw: object) -> Value:
    text = str(raw).strip()
    kind = spec.type
    try:
        if kind is FactType.bool:
            if isinstance(raw, bool):
                return raw
            low = text.lower()
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            raise FactError(f"{spec.id} is yes/no; got {text!r} (use true or false)")
        if kind is FactType.int:
            if isinstance(raw, bool):
                raise FactError(f"{spec.id} is a whole number; got {text!r}")
            return int(float(text.replace(",", "").replace("_", "")))
        if kind is FactType.float:
            return float(text)
        if kind is FactType.bytes:
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                return int(raw)
            try:
                return int(float(text))
            except ValueError:
                return parse_bytes(text)
        if kind is FactType.version:
            return str(Version(text.lstrip("vV")))
        if kind is FactType.enum:
            allowed = spec.values or []
            for value in allowed:
                if value.lower() == text.lower():
                    return value
            raise FactError(f"{spec.id} must be one of {', '.join(allowed)}; got {text!r}")
        return text
    except (ValueError, InvalidVersion) as exc:
        if isinstance(exc, FactError):
            raise
        raise FactError(f"{spec.id} is of type {kind.value}; cannot read {text!r}") from None


@dataclass(frozen=True)
class FactSet(Mapping[str, Fact]):
    """An immutable collection of facts, at most one per name.

    Later sources override earlier ones when merged with :meth:`with_facts`,
    so an explicit ``--fact`` or interview answer beats a value read from text.
    """

    facts: Mapping[str, Fact] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Fact:
        return self.facts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)

    def value(self, name: str) -> Value | None:
        """The value of ``name``, or None when it is unknown."""
        fact = self.facts.get(name)
        return None if fact is None else fact.value

    def with_facts(self, new: Iterable[Fact]) -> FactSet:
        """A new set where ``new`` overrides facts of the same name."""
        merged = dict(self.facts)
        for fact in new:
            merged[fact.name] = fact
        return replace(self, facts=merged)

    def without(self, name: str) -> FactSet:
        """A new set with ``name`` forgotten (e.g. an answer taken back)."""
        return replace(self, facts={k: v for k, v in self.facts.items() if k != name})


def make_fact(specs: Mapping[str, FactSpec], name: str, raw: object, source: Source) -> Fact:
    """Build a typed fact, raising :class:`FactError` on an unknown name or a bad value."""
    spec = specs.get(name)
    if spec is None:
        raise FactError(f"unknown fact {name!r}; `triage explain --facts` lists them")
    return Fact(name, coerce(spec, raw), source)


def parse_assignment(specs: Mapping[str, FactSpec], text: str, source: Source) -> Fact:
    """Parse ``NAME=VALUE`` as given to ``--fact``."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise FactError(f"--fact expects NAME=VALUE; got {text!r}")
    return make_fact(specs, name.strip(), raw.strip(), source)
