"""What the loader and the cache share: the knowledge base's container and where its files live.

Layout (shallow folders by kind; one entity per file; id = file stem)::

    knowledge/facts/<fact>.yaml
    knowledge/causes/<category>/<cause>.yaml
    knowledge/causes/<category>/<cause>.cases.yaml
    knowledge/remedies/<remedy>.yaml
    knowledge/myths/<myth>.yaml

Both ``triage.kb.loader`` (YAML -> models) and ``triage.kb.cache`` (models <-> JSON on disk)
import this module, and neither imports the other's internals, so there is no import cycle.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from triage.kb.models import CasesFile, Cause, FactSpec, Myth, Remedy

#: The folder each kind lives in.
FOLDERS = {"fact": "facts", "cause": "causes", "remedy": "remedies", "myth": "myths"}
CASES_SUFFIX = ".cases.yaml"


def default_knowledge_dir() -> Path:
    """``$TRIAGE_KNOWLEDGE``, else the checkout's ``knowledge/``, else the copy bundled in the package."""
    env = os.environ.get("TRIAGE_KNOWLEDGE")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent
    checkout = here.parent / "knowledge"
    if (checkout / "facts").is_dir() and (here.parent / "pyproject.toml").is_file():
        return checkout
    return here / "_knowledge"


@dataclass
class KnowledgeBase:
    """Every entity of the knowledge base, indexed by id, plus where each came from."""

    root: Path
    facts: dict[str, FactSpec] = field(default_factory=dict)
    causes: dict[str, Cause] = field(default_factory=dict)
    remedies: dict[str, Remedy] = field(default_factory=dict)
    myths: dict[str, Myth] = field(default_factory=dict)
    cases: dict[str, CasesFile] = field(default_factory=dict)
    """Cases files by cause id."""
    paths: dict[str, Path] = field(default_factory=dict)
    """The file of every entity and cases file, by '<kind>:<id>'."""
    texts: dict[Path, str] = field(default_factory=dict)
    """The raw text of every file read (for line lookups in lint)."""
    anchors: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    """Literal anchors of every regex signal pattern (see triage/kb/anchors.py)."""

    def entity(self, entity_id: str) -> FactSpec | Cause | Remedy | Myth | None:
        """Any entity by id, whatever its kind."""
        for table in (self.causes, self.remedies, self.myths, self.facts):
            found = table.get(entity_id)
            if found is not None:
                return found
        return None

    def rel(self, path: Path) -> str:
        """``path`` relative to the knowledge root, for messages."""
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)


def iter_files(root: Path) -> Iterator[Path]:
    """Every knowledge YAML file under the kind folders, in a stable order."""
    for folder in FOLDERS.values():
        base = root / folder
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*") if p.suffix in {".yaml", ".yml"} and p.is_file())
