"""Real, resolved public OOM reports: the corpus triage is measured on and compares new reports with.

Each record is a public thread's first post as its author wrote it, labelled
from how the thread was resolved (``corpus/README.md`` says how the records
were gathered and labelled). The split into a development part and a
held-out part is a fixed function of the URL (:func:`split_of`), so adding
records never moves an old one from one part to the other.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from triage.datacache import yaml_data

#: Percent of records held out (by a hash of the URL); rules are never tuned on them.
HELDOUT_PERCENT = 35


@dataclass(frozen=True)
class Label:
    """What the thread's resolution says the cause was."""

    category: str
    cause_id: str | None = None
    resolution: str = ""
    confidence: str = "medium"


@dataclass(frozen=True)
class Record:
    """One public report and how it was resolved."""

    url: str
    source: str
    lang: str
    title: str
    report: str
    label: Label
    secondary: tuple[Label, ...] = ()
    scope: str = "in"
    facts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def split(self) -> str:
        return split_of(self.url)

    def categories(self, with_secondary: bool = True) -> set[str]:
        """The primary label's category, and the secondary ones when asked."""
        labels = [self.label, *self.secondary] if with_secondary else [self.label]
        return {lab.category for lab in labels}

    def cause_ids(self, with_secondary: bool = True) -> set[str]:
        labels = [self.label, *self.secondary] if with_secondary else [self.label]
        return {lab.cause_id for lab in labels if lab.cause_id}


def split_of(url: str) -> str:
    """``heldout`` or ``dev``: fixed by a hash of the URL, independent of order and of other records."""
    digest = hashlib.sha256(url.strip().lower().encode("utf-8")).hexdigest()
    return "heldout" if int(digest[:8], 16) % 100 < HELDOUT_PERCENT else "dev"


def default_corpus_dir() -> Path:
    """``$TRIAGE_CORPUS``, else the checkout's ``corpus/records``, else the copy bundled in the package."""
    env = os.environ.get("TRIAGE_CORPUS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    checkout = here.parent / "corpus" / "records"
    if checkout.is_dir() and (here.parent / "pyproject.toml").is_file():
        return checkout
    return here / "_corpus"


def _label(raw: Mapping[str, Any]) -> Label:
    return Label(
        category=str(raw.get("category") or "other"),
        cause_id=str(raw["cause_id"]) if raw.get("cause_id") else None,
        resolution=str(raw.get("resolution") or ""),
        confidence=str(raw.get("confidence") or "medium"),
    )


def parse_records(items: Iterable[Mapping[str, Any]]) -> list[Record]:
    """Records from their YAML form; a record without a URL, a report or a label is skipped."""
    out = []
    for raw in items:
        if not isinstance(raw, Mapping) or not raw.get("url") or not raw.get("report") or not raw.get("label"):
            continue
        out.append(
            Record(
                url=str(raw["url"]).strip(),
                source=str(raw.get("source") or ""),
                lang="zh" if raw.get("lang") == "zh" else "en",
                title=str(raw.get("title") or ""),
                report=str(raw["report"]),
                label=_label(raw["label"]),
                secondary=tuple(_label(s) for s in raw.get("secondary") or () if isinstance(s, Mapping)),
                scope="out" if raw.get("scope") == "out" else "in",
                facts=dict(raw.get("facts") or {}),
            )
        )
    return out


def _raw_records(files: list[Path]) -> list[Any]:
    """The records of ``files`` as plain data (through the JSON cache of :mod:`triage.datacache`).

    Every record is checked again by :func:`parse_records`, whether it came from the cache or the YAML.
    """
    return [record for data in yaml_data("corpus", files) for record in data or []]


def load_corpus(directory: Path | None = None) -> tuple[Record, ...]:
    """Every record under ``directory`` (default :func:`default_corpus_dir`), deduplicated by URL, sorted."""
    return _load(directory or default_corpus_dir())


@cache
def _load(root: Path) -> tuple[Record, ...]:
    seen: dict[str, Record] = {}
    for record in parse_records(_raw_records(sorted(root.glob("*.yaml")))):
        seen.setdefault(record.url.lower(), record)
    return tuple(sorted(seen.values(), key=lambda r: r.url))
