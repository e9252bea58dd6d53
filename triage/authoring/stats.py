"""Coverage of the knowledge base against the bars it must meet (``triage kb stats``).

Besides counting entities, it reads the coverage maps in ``knowledge/coverage/*.yaml``
(e.g. the community thread's checklist of causes and remedies, and its fact-checked
claims) and reports every item that maps to nothing, every id that does not exist and
every FALSE/PARTLY claim without the myth that corrects it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from triage.kb.loader import KnowledgeBase
from triage.kb.models import Category, Cause, Myth, Remedy, Text

#: The bars every release must meet.
MIN_FIRING_CASES = 2
MIN_SILENT_CASES = 1
MIN_VERSION_BUGS = 15

_CJK = re.compile(r"[\u3400-\u9fff]")
#: Checklist item ids: C<n> for causes, M<n> for remedies.
_ITEM_ID = re.compile(r"^([CM])([1-9]\d*)$")
#: Where the coverage maps live, relative to the knowledge root.
COVERAGE_DIR = "coverage"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CoverageItem(_Strict):
    """One item of a thread's checklist and the entities that cover it."""

    id: str = Field(pattern=_ITEM_ID.pattern)
    """C<n> (a cause the thread raises) or M<n> (a remedy it proposes)."""
    gist: str = Field(min_length=1)
    """The item in English, in a few words."""
    thread: Literal["true", "false", "partly"]
    """Is the thread right about it? true needs a cause (C) or remedy (M); false and partly need a myth."""
    verdict: str = Field(min_length=1)
    """The fact-checked verdict in words."""
    causes: list[str] = Field(default_factory=list)
    remedies: list[str] = Field(default_factory=list)
    myths: list[str] = Field(default_factory=list)


class CoverageClaim(_Strict):
    """One fact-checked claim of the thread."""

    id: str = Field(pattern=r"^[A-Z]{1,2}\d+$")
    verdict: Literal["true", "false", "partly", "unverifiable"]
    gist: str = Field(min_length=1)
    myths: list[str] = Field(default_factory=list)
    """For false and partly claims: the myths that correct it (each must list the claim in seed_claims)."""


class CoverageMap(_Strict):
    """``knowledge/coverage/<name>.yaml``."""

    kind: Literal["coverage"]
    source: str
    """The text whose coverage this is."""
    checked_in: str
    """Where its claims were fact-checked."""
    items: list[CoverageItem] = Field(min_length=1)
    claims: list[CoverageClaim] = Field(default_factory=list)


def coverage_shortfalls(kb: KnowledgeBase, folder: Path | None = None) -> tuple[list[str], int, int]:
    """Check every coverage map under ``folder`` (default: the KB's coverage/ folder) against ``kb``.

    Returns the shortfalls (one line each), the number of checklist items and of claims read.
    """
    folder = folder if folder is not None else kb.root / COVERAGE_DIR
    out: list[str] = []
    n_items = n_claims = 0
    if not folder.is_dir():
        return out, 0, 0
    for path in sorted(folder.glob("*.yaml")):
        name = path.name
        try:
            with path.open(encoding="utf-8") as fh:
                data = yaml.safe_load(fh)
            cov = CoverageMap.model_validate(data)
        except (OSError, yaml.YAMLError, ValidationError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            out.append(f"coverage {name}: unreadable: {first}")
            continue
        n_items += len(cov.items)
        n_claims += len(cov.claims)
        out += _item_shortfalls(kb, name, cov.items)
        out += _claim_shortfalls(kb, name, cov.claims)
    return out, n_items, n_claims


def _item_shortfalls(kb: KnowledgeBase, name: str, items: list[CoverageItem]) -> list[str]:
    out: list[str] = []
    seen: dict[str, list[int]] = {"C": [], "M": []}
    ids: set[str] = set()
    for item in items:
        if item.id in ids:
            out.append(f"coverage {name}: {item.id} is listed twice")
        ids.add(item.id)
        match = _ITEM_ID.match(item.id)
        assert match is not None  # guaranteed by the model's pattern
        seen[match.group(1)].append(int(match.group(2)))
        tables: list[tuple[str, list[str], dict[str, object]]] = [
            ("cause", item.causes, dict(kb.causes)),
            ("remedy", item.remedies, dict(kb.remedies)),
            ("myth", item.myths, dict(kb.myths)),
        ]
        for kind, wanted, table in tables:
            out += [f"coverage {name}: {item.id} names unknown {kind} {i!r}" for i in wanted if i not in table]
        if not (item.causes or item.remedies or item.myths):
            out.append(f"coverage {name}: {item.id} ({item.gist}) maps to no entity")
            continue
        own = item.causes if item.id.startswith("C") else item.remedies
        if item.thread == "true" and not own:
            what = "cause" if item.id.startswith("C") else "remedy"
            out.append(f"coverage {name}: {item.id} ({item.gist}) is real but no {what} covers it")
        if item.thread in ("false", "partly") and not item.myths:
            wrong = f"is {item.thread} in the thread but no myth corrects it"
            out.append(f"coverage {name}: {item.id} ({item.gist}) {wrong}")
    for prefix, numbers in seen.items():
        missing = sorted(set(range(1, max(numbers, default=0) + 1)) - set(numbers))
        out += [f"coverage {name}: checklist item {prefix}{n} is missing" for n in missing]
    return out


def _claim_shortfalls(kb: KnowledgeBase, name: str, claims: list[CoverageClaim]) -> list[str]:
    out: list[str] = []
    known = {c.id for c in claims}
    for claim in claims:
        if claim.verdict in ("false", "partly") and not claim.myths:
            out.append(f"coverage {name}: claim {claim.id} ({claim.verdict}) has no myth")
        for myth_id in claim.myths:
            myth = kb.myths.get(myth_id)
            if myth is None:
                out.append(f"coverage {name}: claim {claim.id} names unknown myth {myth_id!r}")
            elif claim.id not in myth.seed_claims:
                out.append(f"coverage {name}: myth {myth_id} does not list claim {claim.id} in seed_claims")
    if claims:
        for myth in sorted(kb.myths.values(), key=lambda m: m.id):
            out += [
                f"coverage {name}: myth {myth.id} lists seed claim {c} that the coverage map does not know"
                for c in myth.seed_claims
                if c not in known
            ]
    return out


def _texts(entity: Cause | Remedy | Myth) -> list[tuple[str, Text]]:
    if isinstance(entity, Myth):
        return [("claim", entity.claim), ("correction", entity.correction)]
    return [("title", entity.title), ("summary", entity.summary)]


def missing_chinese(entity: Cause | Remedy | Myth) -> list[str]:
    """The bilingual fields whose Chinese is absent in substance (no CJK, or a copy of the English)."""
    return [name for name, text in _texts(entity) if text.zh.strip() == text.en.strip() or not _CJK.search(text.zh)]


@dataclass
class Stats:
    """Counts and the shortfalls against the bars."""

    causes_per_category: dict[str, int]
    remedies: int
    myths: int
    facts: int
    version_bugs: int
    cases: int
    missing_zh: list[str] = field(default_factory=list)
    """'<id>: field' for every entity missing Chinese text."""
    no_references: list[str] = field(default_factory=list)
    few_cases: list[str] = field(default_factory=list)
    """Causes below the firing/silent case bars."""
    empty_categories: list[str] = field(default_factory=list)
    coverage: list[str] = field(default_factory=list)
    """Shortfalls of the coverage maps in knowledge/coverage/ (unmapped items, dangling ids)."""
    coverage_items: int = 0
    """Checklist items read from the coverage maps."""
    coverage_claims: int = 0
    """Fact-checked claims read from the coverage maps."""

    @property
    def shortfalls(self) -> list[str]:
        """Every way the knowledge base misses a bar, one line each."""
        out = [f"category without a cause: {c}" for c in self.empty_categories]
        if self.version_bugs < MIN_VERSION_BUGS:
            out.append(f"only {self.version_bugs} version bugs (need {MIN_VERSION_BUGS})")
        out += [f"missing Chinese text: {m}" for m in self.missing_zh]
        out += [f"no references: {r}" for r in self.no_references]
        out += [f"too few cases: {c}" for c in self.few_cases]
        out += self.coverage
        return out


def compute(kb: KnowledgeBase) -> Stats:
    """Coverage statistics of ``kb``."""
    per_category = {c.value: 0 for c in Category}
    for cause in kb.causes.values():
        per_category[cause.category.value] += 1
    entities: list[Cause | Remedy | Myth] = [*kb.causes.values(), *kb.remedies.values(), *kb.myths.values()]
    few = []
    for cause_id in sorted(kb.causes):
        cases = kb.cases.get(cause_id)
        fire = sum(1 for c in cases.cases if c.shows_cause) if cases else 0
        silent = sum(1 for c in cases.cases if c.expect == "silent") if cases else 0
        if fire < MIN_FIRING_CASES or silent < MIN_SILENT_CASES:
            few.append(f"{cause_id} ({fire} firing or ranking, {silent} silent)")
    coverage, n_items, n_claims = coverage_shortfalls(kb)
    return Stats(
        causes_per_category=per_category,
        remedies=len(kb.remedies),
        myths=len(kb.myths),
        facts=len(kb.facts),
        version_bugs=sum(1 for c in kb.causes.values() if c.category is Category.version_bug and c.affects),
        cases=sum(len(f.cases) for f in kb.cases.values()),
        missing_zh=[f"{e.id}: {name}" for e in entities for name in missing_chinese(e)],
        no_references=sorted(e.id for e in entities if not e.references),
        few_cases=few,
        empty_categories=[c for c, n in per_category.items() if n == 0 and c != Category.other.value],
        coverage=coverage,
        coverage_items=n_items,
        coverage_claims=n_claims,
    )


def render(stats: Stats) -> str:
    """A plain-text report of the statistics and every shortfall."""
    lines = ["causes per category:"]
    lines += [f"  {cat:<22} {n:>3}" for cat, n in stats.causes_per_category.items()]
    total = sum(stats.causes_per_category.values())
    lines += [
        f"causes {total}, remedies {stats.remedies}, myths {stats.myths}, facts {stats.facts}, cases {stats.cases}",
        f"version bugs {stats.version_bugs} (bar {MIN_VERSION_BUGS})",
        f"missing Chinese text {len(stats.missing_zh)}, without references {len(stats.no_references)}, "
        f"causes below the case bar {len(stats.few_cases)}",
        f"coverage maps: {stats.coverage_items} checklist items, {stats.coverage_claims} claims, "
        f"{len(stats.coverage)} gaps",
    ]
    shortfalls = stats.shortfalls
    lines += [f"  - {s}" for s in shortfalls] if shortfalls else ["every bar is met"]
    return "\n".join(lines) + "\n"
