"""Typed facts with provenance: the one currency between stages.

A :class:`Fact` is a named, typed value together with the :class:`Source` that
said it (the symptom text, line 812 of train.log, args.json, an interview
answer, ``--fact``). Values are coerced according to the fact's
:class:`~triage.kb.models.FactSpec`, so ``"24GiB"`` becomes a number of bytes
and ``"4.31"`` a normalised version string.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from triage.facts.spec import FactSpec
from triage.facts.values import FactError, Value, coerce


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


@dataclass(frozen=True)
class FactSet(Mapping[str, Fact]):
    """An immutable collection of facts, at most one per name.

    Later sources override earlier ones when merged with :meth:`with_facts`,
    so an explicit ``--fact`` or interview answer beats a value read from text.
    """

    facts: Mapping[str, Fact] = field(default_factory=dict)
    coarse: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    """Per fact, the coarse values and the finer values each stands for (from :attr:`FactSpec.implies`)."""

    def __getitem__(self, name: str) -> Fact:
        return self.facts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)

    def possible(self, name: str) -> frozenset[str] | None:
        """The finer values a coarse value of ``name`` stands for, or None when its value is exact."""
        value = self.value(name)
        return None if value is None else self.coarse.get(name, {}).get(str(value))

    def with_coarse(self, specs: Mapping[str, FactSpec]) -> FactSet:
        """This set, knowing which values of ``specs`` are coarse."""
        table = {
            name: {k: frozenset(v) for k, v in spec.implies.items()} for name, spec in specs.items() if spec.implies
        }
        return replace(self, coarse=table)

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
