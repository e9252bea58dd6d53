"""Coded checks over the whole knowledge base; one run reports every problem.

Codes (each message says how to fix it):

========  =====================================================================
KB000     invalid YAML or schema (reported by the loader)
KB001     id (or a cases file's ``cause``) is not the file stem
KB002     duplicate id or case name
KB003     unknown fact in a condition, case, remedy change or prerequisite
KB004     operator or value not allowed for the fact's type
KB005     invalid regular expression
KB006     unknown category (reported by the loader)
KB007     dangling reference to another entity
KB008     no references
KB009     cause without a cases file
KB010     cases file without a case that must fire
KB011     cases file without a case that must stay silent
KB012     invalid PEP 440 version or specifier
========  =====================================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from triage.facts import FactError, coerce
from triage.kb.loader import KnowledgeBase, load_knowledge
from triage.kb.models import OPERATORS, Cause, Evidence, FactType, Leaf, Myth, Remedy, Signal
from triage.kb.problems import Problem
from triage.kb.walk import leaves
from triage.kb.yamlio import line_of

CODES: dict[str, str] = {
    "KB000": "invalid YAML or schema",
    "KB001": "id is not the file stem",
    "KB002": "duplicate id or case name",
    "KB003": "unknown fact",
    "KB004": "operator or value not allowed for the fact's type",
    "KB005": "invalid regular expression",
    "KB006": "unknown category",
    "KB007": "dangling reference to another entity",
    "KB008": "no references",
    "KB009": "cause without a cases file",
    "KB010": "no case that must fire",
    "KB011": "no case that must stay silent",
    "KB012": "invalid PEP 440 version or specifier",
}


class _Checker:
    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self.problems: list[Problem] = []

    def add(self, key: str, loc: tuple[int | str, ...], code: str, message: str, hint: str) -> None:
        path = self.kb.paths[key]
        text = self.kb.texts.get(path, "")
        self.problems.append(Problem(self.kb.rel(path), line_of(text, loc) if text else None, code, message, hint))

    # ------------------------------------------------------------------ pieces

    def leaf(self, key: str, loc: tuple[int | str, ...], leaf: Leaf) -> None:
        spec = self.kb.facts.get(leaf.fact)
        if spec is None:
            self.add(key, loc, "KB003", f"unknown fact {leaf.fact!r}",
                     "use a fact from knowledge/facts/ or add knowledge/facts/<name>.yaml")
            return
        if leaf.op not in OPERATORS[spec.type]:
            allowed = ", ".join(sorted(OPERATORS[spec.type]))
            self.add(key, loc, "KB004", f"operator {leaf.op!r} is not allowed for {spec.type.value} fact {leaf.fact!r}",
                     f"use one of: {allowed}")
            return
        if leaf.op == "regex":
            self.regex(key, loc, str(leaf.value))
        elif leaf.op == "version":
            self.specifier(key, loc, str(leaf.value))
        elif leaf.op in {"in", "not_in", "between"}:
            if not isinstance(leaf.value, list) or (leaf.op == "between" and len(leaf.value) != 2):
                shape = "[low, high]" if leaf.op == "between" else "a list"
                self.add(key, loc, "KB004", f"{leaf.op} needs {shape}; got {leaf.value!r}", f"write value: {shape}")
                return
            for v in leaf.value:
                self.value(key, loc, spec.id, v)
        else:
            self.value(key, loc, spec.id, leaf.value)

    def value(self, key: str, loc: tuple[int | str, ...], fact: str, value: Any) -> None:
        spec = self.kb.facts[fact]
        if spec.type is FactType.text and not isinstance(value, str):
            self.add(key, loc, "KB004", f"{fact} is text; {value!r} is not", "quote the value")
            return
        if spec.type is FactType.bool and not isinstance(value, bool):
            self.add(key, loc, "KB004", f"{fact} is bool; {value!r} is not", "write true or false")
            return
        try:
            coerce(spec, value)
        except FactError as exc:
            self.add(key, loc, "KB004", str(exc), "use a value of the fact's type (see knowledge/facts/)")

    def regex(self, key: str, loc: tuple[int | str, ...], pattern: str) -> None:
        try:
            re.compile(pattern)
        except re.error as exc:
            self.add(key, loc, "KB005", f"invalid regex {pattern!r}: {exc}", "fix the pattern; test it with python -c 'import re; re.compile(...)'")

    def specifier(self, key: str, loc: tuple[int | str, ...], text: str) -> None:
        try:
            SpecifierSet(text)
        except InvalidSpecifier:
            self.add(key, loc, "KB012", f"invalid PEP 440 specifier {text!r}", "write e.g. '>=4.38.0,<4.39.0'")

    def evidence(self, key: str, base: tuple[int | str, ...], items: list[Evidence]) -> None:
        for i, ev in enumerate(items):
            for leaf in leaves(ev.test):
                self.leaf(key, (*base, i, "test"), leaf)

    def signals(self, key: str, signals: list[Signal]) -> None:
        for i, sig in enumerate(signals):
            if sig.type == "regex":
                for j, pattern in enumerate(sig.patterns):
                    self.regex(key, ("signals", i, "patterns", j), pattern)

    def refs(self, key: str, entity: Cause | Remedy | Myth) -> None:
        if not entity.references:
            self.add(key, ("id",), "KB008", "no references", "cite docs, release notes, a PR or an issue under references:")
        for i, rel in enumerate(entity.related):
            if self.kb.entity(rel.id) is None:
                self.add(key, ("related", i, "id"), "KB007", f"related id {rel.id!r} does not exist", "fix the id or remove the link")

    # ------------------------------------------------------------------ kinds

    def cause(self, cause: Cause) -> None:
        key = f"cause:{cause.id}"
        self.evidence(key, ("when",), cause.when)
        for i, aff in enumerate(cause.affects):
            self.specifier(key, ("affects", i, "specifier"), aff.specifier)
            if aff.fixed_in is not None:
                try:
                    Version(aff.fixed_in)
                except InvalidVersion:
                    self.add(key, ("affects", i, "fixed_in"), "KB012", f"invalid version {aff.fixed_in!r}", "write e.g. 4.39.0")
            fact = aff.package.lower().replace("-", "_") + "_version"
            if fact not in self.kb.facts:
                self.add(key, ("affects", i, "package"), "KB003", f"no version fact {fact!r} for package {aff.package!r}",
                         f"add knowledge/facts/{fact}.yaml (type: version)")
        self.signals(key, cause.signals)
        for i, rid in enumerate(cause.remedies):
            if rid not in self.kb.remedies:
                self.add(key, ("remedies", i), "KB007", f"remedy {rid!r} does not exist", f"add knowledge/remedies/{rid}.yaml or fix the id")
        self.refs(key, cause)
        cases = self.kb.cases.get(cause.id)
        if cases is None:
            self.add(key, ("id",), "KB009", "no cases file", f"add {cause.id}.cases.yaml beside it (triage kb new writes one)")
            return
        ckey = f"cases:{cause.id}"
        expects = {c.expect for c in cases.cases}
        if "fire" not in expects:
            self.add(ckey, ("cases",), "KB010", "no case that must fire", "add a case with expect: fire")
        if "silent" not in expects:
            self.add(ckey, ("cases",), "KB011", "no case that must stay silent", "add a case with expect: silent")
        for i, case in enumerate(cases.cases):
            for name, value in case.facts.items():
                if name not in self.kb.facts:
                    self.add(ckey, ("cases", i, "facts", name), "KB003", f"unknown fact {name!r}", "use a fact from knowledge/facts/")
                else:
                    self.value(ckey, ("cases", i, "facts", name), name, value)

    def remedy(self, remedy: Remedy) -> None:
        key = f"remedy:{remedy.id}"
        for name, value in remedy.changes.items():
            if name not in self.kb.facts:
                self.add(key, ("changes", name), "KB003", f"unknown fact {name!r} in changes", "use a fact from knowledge/facts/")
            else:
                self.value(key, ("changes", name), name, value)
        self.evidence(key, ("prerequisites",), remedy.prerequisites)
        for i, req in enumerate(remedy.requires):
            self.specifier(key, ("requires", i, "specifier"), req.specifier)
        for i, other in enumerate(remedy.conflicts):
            if other not in self.kb.remedies:
                self.add(key, ("conflicts", i), "KB007", f"conflicting remedy {other!r} does not exist", "fix the id")
        self.refs(key, remedy)

    def myth(self, myth: Myth) -> None:
        key = f"myth:{myth.id}"
        self.signals(key, myth.signals)
        self.refs(key, myth)

    def orphan_cases(self) -> None:
        for cause_id in self.kb.cases:
            if cause_id not in self.kb.causes:
                self.add(f"cases:{cause_id}", ("cause",), "KB007", f"cases for unknown cause {cause_id!r}",
                         "rename the file to match its cause, or delete it")


def lint(kb: KnowledgeBase) -> list[Problem]:
    """Every coded problem in an already-loaded knowledge base."""
    checker = _Checker(kb)
    for cause in kb.causes.values():
        checker.cause(cause)
    for remedy in kb.remedies.values():
        checker.remedy(remedy)
    for myth in kb.myths.values():
        checker.myth(myth)
    checker.orphan_cases()
    return sorted(checker.problems)


def lint_dir(root: Path | None = None) -> tuple[KnowledgeBase, list[Problem]]:
    """Load and lint: loader problems (KB000-KB002, KB006) plus every coded check."""
    kb, problems = load_knowledge(root)
    return kb, sorted(problems) + lint(kb)


def codes_of(problems: list[Problem]) -> Iterator[str]:
    """The codes present, for tests and summaries."""
    return iter(sorted({p.code for p in problems}))
