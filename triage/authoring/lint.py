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
KB010     cases file without a case that must fire or rank
KB011     cases file without a case that must stay silent
KB012     invalid PEP 440 version or specifier
KB013     title too long (> 60 characters) or not in house style
KB014     Chinese title or summary missing (equal to the English, or no Chinese in it)
KB015     remedy requires a package version but no reference backs it
KB016     two causes with the same conditions and signals
KB017     ``stable`` entity with fewer than two cases that must fire or rank
KB018     first line is not the yaml-language-server ``$schema`` comment
KB019     invalid or unused entry in ``lint-exceptions.yaml``
KB020     unfilled template blank (``TODO``)
KB021     a signal restates a fact its cause never tests
KB022     `` #`` in an unquoted text value starts a YAML comment (the rest is lost)
KB023     version claim not verified against the releases: a version bug, a cause with
          ``affects`` or a version range in its evidence, or a remedy with ``requires`` /
          a ``<package>_version`` change / a version range in its prerequisites has no
          ``verified`` block, or its blocks never name one of the packages, or are dated
          in the future
KB024     a version quoted in a myth's correction or a remedy's text (or a remedy's
          ``<package>_version`` change) contradicts the ``affects`` range of a cause it
          is linked to: it recommends, calls fixed or calls unchanged a release the
          cause lists as affected
KB025     a regular expression that can take exponential time (a nested quantifier or an
          ambiguous alternation under a repeat): one short input could hang every
          diagnosis
KB027     a cause's ``when`` test without a label in English and Chinese: explanations
          would show its raw form (``phase is one of loading, saving``) instead of words
KB028     a ``when`` test with ``if_false`` whose label already negates ("the model is not
          quantized") and no ``label_false``: when false it would read "not: the model is
          not quantized"
KB029     two ``affects`` ranges for one package: each vetoes the cause outside its own
          range, so together they keep only their overlap, not either range
========  =====================================================================

Per-entity exceptions live in ``knowledge/lint-exceptions.yaml`` (see
:mod:`triage.authoring.exceptions`); every exception needs a reason.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from triage.authoring.exceptions import apply_exceptions, load_exceptions
from triage.authoring.headers import COMMENT_RE, expected_header
from triage.authoring.version_claims import affected, parse_version, statements
from triage.engine.scoring import REMEDY_FACTS
from triage.facts import FactError, coerce
from triage.kb.loader import KnowledgeBase, load_knowledge
from triage.kb.models import (
    OPERATORS,
    RELATIVE_CHANGES,
    Category,
    Cause,
    Evidence,
    FactType,
    Leaf,
    Myth,
    Remedy,
    Signal,
    Status,
    Text,
)
from triage.kb.problems import Problem
from triage.kb.regex_safety import unsafe_regex_reason
from triage.kb.walk import leaves
from triage.kb.yamlio import duplicate_keys, line_of

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
    "KB010": "no case that must fire or rank",
    "KB011": "no case that must stay silent",
    "KB012": "invalid PEP 440 version or specifier",
    "KB013": "title too long or not in house style",
    "KB014": "Chinese title or summary missing",
    "KB015": "version requirement without a reference",
    "KB016": "two causes with the same conditions and signals",
    "KB017": "stable entity with fewer than two firing cases",
    "KB018": "missing yaml-language-server $schema comment",
    "KB019": "invalid or unused lint exception",
    "KB020": "unfilled template blank (TODO)",
    "KB021": "a signal restates a fact its cause never tests",
    "KB022": "' #' in an unquoted text value starts a YAML comment",
    "KB023": "version claim without a verified block",
    "KB024": "quoted version contradicts a linked cause's affects range",
    "KB025": "regex can take exponential time (catastrophic backtracking)",
    "KB026": "a key written twice in one mapping (YAML keeps only the last)",
    "KB027": "a when test without an English and Chinese label",
    "KB028": "a negative label read when false without label_false (a double negation)",
    "KB029": "two affects ranges for one package (they intersect, not add up)",
}

#: House style for titles (KB013).
TITLE_MAX = 60
#: Lower-case names that may start a title (package and tool names keep their spelling).
LOWERCASE_NAMES = frozenset(
    {
        "bitsandbytes",
        "peft",
        "trl",
        "torch",
        "torchrun",
        "accelerate",
        "transformers",
        "deepspeed",
        "axolotl",
        "vllm",
        "xformers",
        "liger",
        "bf16",
        "fp16",
        "fp32",
        "int8",
        "nf4",
    }
)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"^[A-Za-z][a-z]+$")
_TODO = re.compile(r"\bTODO\b")


#: A prose key with an unquoted one-line value containing " #": YAML reads the rest as a comment.
_PROSE_COMMENT = re.compile(
    r"^\s*(?:-\s+)?(?:en|zh|note|reason|label|title|summary|what|why|confirm|known_problems|claim|correction):"
    r"\s+[^'\"|>{\[&*!%@`#\s].*?\s#"
)


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
            self.add(
                key,
                loc,
                "KB003",
                f"unknown fact {leaf.fact!r}",
                "use a fact from knowledge/facts/ or add knowledge/facts/<name>.yaml",
            )
            return
        if leaf.op not in OPERATORS[spec.type]:
            allowed = ", ".join(sorted(OPERATORS[spec.type]))
            self.add(
                key,
                loc,
                "KB004",
                f"operator {leaf.op!r} is not allowed for {spec.type.value} fact {leaf.fact!r}",
                f"use one of: {allowed}",
            )
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
            self.add(
                key,
                loc,
                "KB005",
                f"invalid regex {pattern!r}: {exc}",
                "fix the pattern; test it with python -c 'import re; re.compile(...)'",
            )
            return
        unsafe = unsafe_regex_reason(pattern, flags=re.IGNORECASE)  # the engine matches case-insensitively
        if unsafe is not None:
            self.add(
                key,
                loc,
                "KB025",
                f"regex {pattern!r} can backtrack exponentially: {unsafe}",
                "make the repeats unambiguous: no quantifier directly inside another, no alternatives "
                "that can match the same text under a repeat (use possessive ++ or atomic (?>...) groups)",
            )

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
            if sig.restates is not None and sig.restates not in self.kb.facts:
                self.add(
                    key,
                    ("signals", i, "restates"),
                    "KB003",
                    f"unknown fact {sig.restates!r} in restates",
                    "use a fact from knowledge/facts/",
                )
            if sig.type == "regex":
                for j, pattern in enumerate(sig.patterns):
                    self.regex(key, ("signals", i, "patterns", j), pattern)

    def refs(self, key: str, entity: Cause | Remedy | Myth) -> None:
        if not entity.references:
            self.add(
                key, ("id",), "KB008", "no references", "cite docs, release notes, a PR or an issue under references:"
            )
        for i, rel in enumerate(entity.related):
            if self.kb.entity(rel.id) is None:
                self.add(
                    key,
                    ("related", i, "id"),
                    "KB007",
                    f"related id {rel.id!r} does not exist",
                    "fix the id or remove the link",
                )

    # ------------------------------------------------------------------ kinds

    def cause(self, cause: Cause) -> None:
        key = f"cause:{cause.id}"
        self.title(key, cause.title)
        self.chinese(key, {"title": cause.title, "summary": cause.summary})
        if cause.status is Status.stable and self.firing_cases(cause.id) < 2:
            self.add(
                key,
                ("status",),
                "KB017",
                f"stable cause with {self.firing_cases(cause.id)} case(s) that must fire or rank",
                "add cases with expect: fire (or rank) to the cases file, or set status: experimental",
            )
        self.evidence(key, ("when",), cause.when)
        for i, ev in enumerate(cause.when):
            if ev.label is None:
                self.add(
                    key,
                    ("when", i),
                    "KB027",
                    "a when test without a label in English and Chinese",
                    "add label: {en: <what it means for the run>, zh: <the same in Chinese>}; explanations show "
                    "the label beside the weight it adds",
                )
            elif ev.if_false and ev.label_false is None and _NEGATES.search(ev.label.en):
                self.add(
                    key,
                    ("when", i),
                    "KB028",
                    f"label {ev.label.en!r} negates, and when the test is false it reads 'not: {ev.label.en}'",
                    "add label_false: {en: <what it means when the test is false>, zh: <the same in Chinese>}",
                )
        tested = {leaf.fact for ev in cause.when for leaf in leaves(ev.test)}
        tested |= {a.package.lower().replace("-", "_") + "_version" for a in cause.affects}
        if cause.remedies:
            tested |= REMEDY_FACTS
        for i, sig in enumerate(cause.signals):
            if sig.restates is not None and sig.restates in self.kb.facts and sig.restates not in tested:
                self.add(
                    key,
                    ("signals", i, "restates"),
                    "KB021",
                    f"signal restates {sig.restates!r}, which no condition of this cause tests",
                    f"add a `when` condition on {sig.restates}, or drop `restates` (it would silence the signal "
                    "whenever the fact is known, with nothing to take its place)",
                )
        packages: set[str] = set()
        for i, aff in enumerate(cause.affects):
            self.specifier(key, ("affects", i, "specifier"), aff.specifier)
            package = aff.package.lower().replace("-", "_")
            if package in packages:
                self.add(
                    key,
                    ("affects", i, "package"),
                    "KB029",
                    f"a second affects range for {aff.package!r}: each range vetoes the cause outside it, so the "
                    "cause could only fire where both hold",
                    "write one specifier for the package and leave the good releases out with != "
                    "(e.g. '>=5.0.0,!=5.4.*,!=5.5.*,<5.23.0')",
                )
            packages.add(package)
            if aff.fixed_in is not None:
                try:
                    Version(aff.fixed_in)
                except InvalidVersion:
                    self.add(
                        key,
                        ("affects", i, "fixed_in"),
                        "KB012",
                        f"invalid version {aff.fixed_in!r}",
                        "write e.g. 4.39.0",
                    )
            fact = aff.package.lower().replace("-", "_") + "_version"
            if fact not in self.kb.facts:
                self.add(
                    key,
                    ("affects", i, "package"),
                    "KB003",
                    f"no version fact {fact!r} for package {aff.package!r}",
                    f"add knowledge/facts/{fact}.yaml (type: version)",
                )
        self.signals(key, cause.signals)
        ranged = versions_tested(cause.when)
        if cause.affects or cause.category is Category.version_bug or ranged:
            why = (
                "version bug"
                if cause.category is Category.version_bug
                else "cause with `affects`"
                if cause.affects
                else "cause whose evidence tests a version"
            )
            self.verification(key, cause, why, [a.package for a in cause.affects] + ranged)
        for i, rid in enumerate(cause.remedies):
            if rid not in self.kb.remedies:
                self.add(
                    key,
                    ("remedies", i),
                    "KB007",
                    f"remedy {rid!r} does not exist",
                    f"add knowledge/remedies/{rid}.yaml or fix the id",
                )
        self.refs(key, cause)
        cases = self.kb.cases.get(cause.id)
        if cases is None:
            self.add(
                key,
                ("id",),
                "KB009",
                "no cases file",
                f"add {cause.id}.cases.yaml beside it (triage kb new writes one)",
            )
            return
        ckey = f"cases:{cause.id}"
        expects = {c.expect for c in cases.cases}
        if not any(c.shows_cause for c in cases.cases):
            self.add(ckey, ("cases",), "KB010", "no case that must fire or rank", "add a case with expect: fire")
        if "silent" not in expects:
            self.add(ckey, ("cases",), "KB011", "no case that must stay silent", "add a case with expect: silent")
        for i, case in enumerate(cases.cases):
            for name, value in case.facts.items():
                if name not in self.kb.facts:
                    self.add(
                        ckey,
                        ("cases", i, "facts", name),
                        "KB003",
                        f"unknown fact {name!r}",
                        "use a fact from knowledge/facts/",
                    )
                else:
                    self.value(ckey, ("cases", i, "facts", name), name, value)

    def remedy(self, remedy: Remedy) -> None:
        key = f"remedy:{remedy.id}"
        self.title(key, remedy.title)
        self.chinese(key, {"title": remedy.title, "summary": remedy.summary})
        self.requirements(key, remedy)
        if remedy.status is Status.stable:
            users = sorted(c.id for c in self.kb.causes.values() if remedy.id in c.remedies)
            firing = sum(self.firing_cases(c) for c in users)
            if firing < 2:
                self.add(
                    key,
                    ("status",),
                    "KB017",
                    f"stable remedy backed by {firing} firing case(s) (listed by: {', '.join(users) or 'none'})",
                    "list it under a tested cause's remedies: (>= 2 cases that must fire), or set status: experimental",
                )
        for name, value in remedy.changes.items():
            if name not in self.kb.facts:
                self.add(
                    key,
                    ("changes", name),
                    "KB003",
                    f"unknown fact {name!r} in changes",
                    "use a fact from knowledge/facts/",
                )
            elif not (isinstance(value, str) and value in RELATIVE_CHANGES.get(name, frozenset())):
                self.value(key, ("changes", name), name, value)
        self.evidence(key, ("prerequisites",), remedy.prerequisites)
        upgraded = [package_of_version_fact(name) for name in remedy.changes if name.endswith("_version")]
        gated = versions_tested(remedy.prerequisites)
        if remedy.requires or upgraded or gated:
            why = (
                "remedy with `requires`"
                if remedy.requires
                else "remedy that changes a package version"
                if upgraded
                else "remedy whose prerequisites test a version"
            )
            self.verification(key, remedy, why, [r.package for r in remedy.requires] + upgraded + gated)
        for i, req in enumerate(remedy.requires):
            self.specifier(key, ("requires", i, "specifier"), req.specifier)
        self.remedy_versions(key, remedy)
        for i, other in enumerate(remedy.conflicts):
            if other not in self.kb.remedies:
                self.add(key, ("conflicts", i), "KB007", f"conflicting remedy {other!r} does not exist", "fix the id")
        self.refs(key, remedy)

    def myth(self, myth: Myth) -> None:
        key = f"myth:{myth.id}"
        self.chinese(key, {"claim": myth.claim, "correction": myth.correction})
        self.signals(key, myth.signals)
        self.refs(key, myth)
        linked = [self.kb.causes[r.id] for r in myth.related if r.id in self.kb.causes]
        self.version_contradictions(
            key, linked, {("correction", "en"): myth.correction.en, ("correction", "zh"): myth.correction.zh}
        )

    # ------------------------------------------------------------------ house style

    def firing_cases(self, cause_id: str) -> int:
        cases = self.kb.cases.get(cause_id)
        return 0 if cases is None else sum(1 for c in cases.cases if c.shows_cause)

    def title(self, key: str, title: Text) -> None:
        for lang, text in (("en", title.en), ("zh", title.zh)):
            loc = ("title", lang)
            if len(text) > TITLE_MAX:
                self.add(
                    key,
                    loc,
                    "KB013",
                    f"title.{lang} has {len(text)} characters (max {TITLE_MAX})",
                    "name the condition in a few words; move details to the summary",
                )
            if text.rstrip().endswith((".", "。")) and not text.rstrip().endswith("..."):
                self.add(key, loc, "KB013", f"title.{lang} ends with a period", "drop the trailing period")
        problem = title_case_problem(title.en)
        if problem:
            self.add(
                key,
                ("title", "en"),
                "KB013",
                f"title.en {title.en!r} {problem}",
                "write titles in sentence case: capitalise the first word and proper names only",
            )

    def chinese(self, key: str, fields: dict[str, Text]) -> None:
        for name, text in fields.items():
            if text.zh.strip() == text.en.strip():
                self.add(
                    key,
                    (name, "zh"),
                    "KB014",
                    f"{name}.zh is the same as {name}.en",
                    f"write {name}.zh in natural simplified Chinese",
                )
            elif not _CJK.search(text.zh):
                self.add(
                    key,
                    (name, "zh"),
                    "KB014",
                    f"{name}.zh has no Chinese in it: {text.zh[:40]!r}",
                    f"write {name}.zh in natural simplified Chinese",
                )

    def requirements(self, key: str, remedy: Remedy) -> None:
        cited = " ".join(f"{r.url} {r.title} {r.note or ''}" for r in remedy.references).lower()
        cited = cited.replace("_", "-")
        for i, req in enumerate(remedy.requires):
            if req.reason and re.search(r"https?://\S+", req.reason):
                continue
            if req.package.lower().replace("_", "-") not in cited:
                self.add(
                    key,
                    ("requires", i),
                    "KB015",
                    f"requires {req.package}{req.specifier} but no reference mentions {req.package}",
                    f"cite the {req.package} release notes, changelog or PR that introduced it (references:), "
                    "or put its URL in the requirement's reason",
                )

    def verification(self, key: str, entity: Cause | Remedy, why: str, packages: list[str]) -> None:
        """KB023: a version claim says how it was checked against the releases themselves."""
        if not entity.verified:
            self.add(
                key,
                ("id",),
                "KB023",
                f"{why} without a `verified` block",
                "check the boundary releases (pip download --no-deps <pkg>==<version> and read the code, or "
                "git tag --contains <commit>) and add verified: [{method, artifact, date}]; if it cannot be "
                "checked, add a lint exception that says why",
            )
            return
        named = " ".join(v.artifact for v in entity.verified).lower().replace("_", "-")
        for package in dict.fromkeys(packages):
            if normalise_package(package) not in named:
                self.add(
                    key,
                    ("verified",),
                    "KB023",
                    f"no verified artifact names {package}, whose versions this entity states",
                    f"verify the {package} versions too and name what you read in an artifact "
                    f'(e.g. "{package} X and Y wheels, <file>")',
                )
        today = datetime.date.today()
        for i, block in enumerate(entity.verified):
            if block.date > today:
                self.add(
                    key,
                    ("verified", i, "date"),
                    "KB023",
                    f"verified on {block.date.isoformat()}, which is in the future",
                    "write the date the check was done (YYYY-MM-DD)",
                )

    def remedy_versions(self, key: str, remedy: Remedy) -> None:
        """KB024 for a remedy that moves a package to another release (it changes ``<package>_version``):
        its texts and the change against the causes that list or link it, for the packages it moves.

        Other remedies are not read: "transformers >= 4.36" next to an API is a prerequisite, not
        advice to move into a cause's range.
        """
        moved = {package_of_version_fact(n) for n in remedy.changes if n.endswith("_version")}
        if not moved:
            return
        ids = [c.id for c in self.kb.causes.values() if remedy.id in c.remedies]
        ids += [r.id for r in remedy.related if r.id in self.kb.causes]
        linked = [self.kb.causes[i] for i in dict.fromkeys(ids)]
        linked = [c for c in linked if any(normalise_package(a.package) in moved for a in c.affects)]
        texts: dict[tuple[int | str, ...], str] = {}
        for lang in ("en", "zh"):
            texts[("title", lang)] = getattr(remedy.title, lang)
            texts[("summary", lang)] = getattr(remedy.summary, lang)
            if remedy.cost.note is not None:
                texts[("cost", "note", lang)] = getattr(remedy.cost.note, lang)
        for framework, text in remedy.steps.model_dump(exclude_none=True).items():
            texts[("steps", framework)] = text
        self.version_contradictions(key, linked, texts)
        for name, value in remedy.changes.items():
            if not name.endswith("_version"):
                continue
            version = parse_version(str(value))
            package = package_of_version_fact(name)
            if version is None:
                continue
            for cause in linked:
                for aff in cause.affects:
                    if normalise_package(aff.package) == package and affected(aff.specifier, version):
                        self.add(
                            key,
                            ("changes", name),
                            "KB024",
                            f"changes {package} to {value}, which {cause.id} lists as affected ({aff.specifier})",
                            f"move to {aff.fixed_in or 'a release outside the range'}, "
                            f"or correct the range of {cause.id}",
                        )

    def version_contradictions(self, key: str, linked: list[Cause], texts: dict[tuple[int | str, ...], str]) -> None:
        """KB024: versions a text recommends, calls fixed or unchanged vs the linked causes' affects ranges."""
        ranges = [(cause, aff) for cause in linked for aff in cause.affects]
        if not ranges:
            return
        majors: dict[str, set[int]] = {}
        for _, aff in ranges:
            named = [aff.fixed_in or "", *re.findall(r"\d+(?:\.\d+)+", aff.specifier)]
            majors.setdefault(normalise_package(aff.package), set()).update(
                v.major for v in map(parse_version, named) if v is not None
            )
        seen: set[tuple[object, ...]] = set()
        for loc, text in texts.items():
            for st in statements(text):
                package = st.package
                if package is None:
                    owners = [p for p, m in majors.items() if st.version.major in m]
                    package = owners[0] if len(owners) == 1 else None
                if package is None:
                    continue
                for cause, aff in ranges:
                    if normalise_package(aff.package) != package or not affected(aff.specifier, st.version):
                        continue
                    if (loc, st.written, cause.id) in seen:
                        continue
                    seen.add((loc, st.written, cause.id))
                    what = {"recommends": "recommends", "fixed": "calls fixed", "unchanged": "calls unchanged"}[st.kind]
                    self.add(
                        key,
                        loc,
                        "KB024",
                        f'{".".join(map(str, loc))} {what} {package} {st.written} ("{st.excerpt}"), '
                        f"which {cause.id} lists as affected ({aff.specifier})",
                        f"name a release outside the range (fixed in {aff.fixed_in or 'no release yet'}), or correct "
                        f"the range of {cause.id} if the text is right",
                    )

    def duplicates(self) -> None:
        seen: dict[str, str] = {}
        for cause in sorted(self.kb.causes.values(), key=lambda c: c.id):
            logic = logic_key(cause)
            if logic is None:
                continue
            other = seen.get(logic)
            if other is None:
                seen[logic] = cause.id
                continue
            self.add(
                f"cause:{cause.id}",
                ("when",),
                "KB016",
                f"same conditions and signals as {other!r}",
                f"merge the two causes, or make them differ in what they test (see {other})",
            )

    def headers(self) -> None:
        for path, text in self.kb.texts.items():
            want = expected_header(self.kb.root, path)
            if want is None:
                continue
            first = text.split("\n", 1)[0].rstrip("\r")
            if first == want:
                continue
            m = COMMENT_RE.match(first)
            message = (
                f"the $schema comment points at {m.group(1)}" if m else "the first line is not the $schema comment"
            )
            self.problems.append(Problem(self.kb.rel(path), 1, "KB018", message, f"make the first line `{want}`"))

    def comments_in_prose(self) -> None:
        """An unquoted prose value with " #" loses the rest of the line to a YAML comment ("PR #123")."""
        for path, text in self.kb.texts.items():
            for n, line in enumerate(text.splitlines(), 1):
                if _PROSE_COMMENT.match(line):
                    self.problems.append(
                        Problem(
                            self.kb.rel(path),
                            n,
                            "KB022",
                            "' #' in an unquoted text value starts a YAML comment: the rest of the line is lost",
                            'quote the value ("... PR #123 ...") or write the number without the space',
                        )
                    )

    def duplicate_keys(self) -> None:
        """A key written twice in one mapping: the safe loader keeps the last value without a word."""
        for path, text in self.kb.texts.items():
            for line, key in duplicate_keys(text):
                self.problems.append(
                    Problem(
                        self.kb.rel(path),
                        line,
                        "KB026",
                        f"the key {key!r} is written twice in the same mapping: only the last value is kept",
                        "merge the two into one key (or fix the indentation if one belongs to a nested mapping)",
                    )
                )

    def blanks(self) -> None:
        for path, text in self.kb.texts.items():
            for n, line in enumerate(text.splitlines(), 1):
                if _TODO.search(line):
                    self.problems.append(
                        Problem(
                            self.kb.rel(path),
                            n,
                            "KB020",
                            f"unfilled template blank: {line.strip()[:70]}",
                            "replace the TODO text with real content (CONTRIBUTING.md has a field guide)",
                        )
                    )

    def orphan_cases(self) -> None:
        for cause_id in self.kb.cases:
            if cause_id not in self.kb.causes:
                self.add(
                    f"cases:{cause_id}",
                    ("cause",),
                    "KB007",
                    f"cases for unknown cause {cause_id!r}",
                    "rename the file to match its cause, or delete it",
                )


def normalise_package(name: str) -> str:
    """A distribution name as compared in lint: lower case, ``_`` and ``.`` as ``-``."""
    return re.sub(r"[_.]+", "-", name.lower())


def package_of_version_fact(fact: str) -> str:
    """The package a ``<package>_version`` fact is about (flash_attn_version -> flash-attn)."""
    return fact.removesuffix("_version").replace("_", "-")


def versions_tested(evidence: list[Evidence]) -> list[str]:
    """The packages whose ``<package>_version`` fact a test in ``evidence`` compares with a release range."""
    return [
        package_of_version_fact(leaf.fact)
        for item in evidence
        for leaf in leaves(item.test)
        if leaf.fact.endswith("_version") and leaf.op == "version"
    ]


def title_case_problem(title: str) -> str | None:
    """Why ``title`` is not sentence case, or None when it is.

    Sentence case: the first word starts with a capital (unless it is an
    identifier such as ``device_map`` or a lower-case package name), and the
    other plain words are lower case; names and acronyms (GPU, DeepSpeed,
    LoRA) are left alone because only plain ``Word``-shaped words count.
    """
    words = [w.strip("()[]{}\"'`,.:;!?") for w in title.split()]
    words = [w for w in words if w]
    if not words:
        return "is empty"
    first = words[0]
    if first[0].islower() and first.isalpha() and first.lower() not in LOWERCASE_NAMES:
        return "does not start with a capital letter"
    plain = [w for w in words[1:] if _WORD.match(w)]
    capitals = [w for w in plain if w[0].isupper()]
    if len(capitals) >= 2 and len(capitals) * 2 > len(plain):
        return f"is in Title Case ({', '.join(capitals[:4])})"
    return None


def logic_key(cause: Cause) -> str | None:
    """What a cause tests, independent of weights and order; None when it tests nothing."""
    when = sorted(json.dumps(ev.test.model_dump(by_alias=True), sort_keys=True, default=str) for ev in cause.when)
    signals = sorted(json.dumps([s.type, sorted(p.lower() for p in s.patterns)]) for s in cause.signals)
    affects = sorted(f"{a.package.lower()}{a.specifier}" for a in cause.affects)
    if not (when or signals or affects):
        return None
    return json.dumps([when, signals, affects])


#: A label that says what is not so ("the model is not quantized", "no CPU offload"): read as "not: ..." when its
#: test is false, it negates twice.
_NEGATES = re.compile(r"\b(?:not|no|never|without|none|off)\b|n't\b", re.I)


def lint(kb: KnowledgeBase) -> list[Problem]:
    """Every coded problem in an already-loaded knowledge base (exceptions not applied)."""
    checker = _Checker(kb)
    for cause in kb.causes.values():
        checker.cause(cause)
    for remedy in kb.remedies.values():
        checker.remedy(remedy)
    for myth in kb.myths.values():
        checker.myth(myth)
    checker.orphan_cases()
    checker.duplicates()
    checker.headers()
    checker.blanks()
    checker.comments_in_prose()
    checker.duplicate_keys()
    return sorted(checker.problems)


def _only_blanks_where_blank(problems: list[Problem]) -> list[Problem]:
    """In a file that still has template blanks, report the blanks (and broken YAML/schema) only.

    Everything else in such a file (unknown fact ``TODO``, a title not in house
    style...) is noise until the blanks are filled.
    """
    blank_files = {p.path for p in problems if p.code == "KB020"}
    return [p for p in problems if p.path not in blank_files or p.code in {"KB020", "KB000"}]


def lint_dir(root: Path | None = None) -> tuple[KnowledgeBase, list[Problem]]:
    """Load and lint: loader problems (KB000-KB002, KB006) plus every coded check.

    Exceptions from ``lint-exceptions.yaml`` are applied, and an exception that
    is malformed or matches nothing is reported (KB019).
    """
    kb, problems = load_knowledge(root)
    found = _only_blanks_where_blank(sorted(problems) + lint(kb))
    exceptions, bad = load_exceptions(kb, CODES)
    kept, unused = apply_exceptions(found, exceptions)
    return kb, sorted(kept + bad + unused)


def only_files(kb: KnowledgeBase, problems: Iterable[Problem], files: Iterable[Path]) -> list[Problem]:
    """The problems located in ``files`` (paths as given on the command line, e.g. by pre-commit).

    The whole knowledge base is always linted (a change to a remedy can break
    a cause that lists it); this only narrows what is reported.
    """
    wanted = {Path(f).resolve() for f in files}
    out = []
    for problem in problems:
        where = Path(problem.path)
        where = where if where.is_absolute() else kb.root / where
        if where.resolve() in wanted:
            out.append(problem)
    return out
