"""Coverage of the knowledge base against the bars it must meet (``triage kb stats``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from triage.kb.loader import KnowledgeBase
from triage.kb.models import Category, Cause, Myth, Remedy, Text

#: The bars every release must meet.
MIN_FIRING_CASES = 2
MIN_SILENT_CASES = 1
MIN_VERSION_BUGS = 15

_CJK = re.compile(r"[\u3400-\u9fff]")


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

    @property
    def shortfalls(self) -> list[str]:
        """Every way the knowledge base misses a bar, one line each."""
        out = [f"category without a cause: {c}" for c in self.empty_categories]
        if self.version_bugs < MIN_VERSION_BUGS:
            out.append(f"only {self.version_bugs} version bugs (need {MIN_VERSION_BUGS})")
        out += [f"missing Chinese text: {m}" for m in self.missing_zh]
        out += [f"no references: {r}" for r in self.no_references]
        out += [f"too few cases: {c}" for c in self.few_cases]
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
        fire = sum(1 for c in cases.cases if c.expect == "fire") if cases else 0
        silent = sum(1 for c in cases.cases if c.expect == "silent") if cases else 0
        if fire < MIN_FIRING_CASES or silent < MIN_SILENT_CASES:
            few.append(f"{cause_id} ({fire} firing, {silent} silent)")
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
    ]
    shortfalls = stats.shortfalls
    lines += [f"  - {s}" for s in shortfalls] if shortfalls else ["every bar is met"]
    return "\n".join(lines) + "\n"
