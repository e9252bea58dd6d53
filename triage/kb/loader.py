"""Find and load the knowledge base: YAML files -> validated models, with every problem reported.

Layout (shallow folders by kind; one entity per file; id = file stem)::

    knowledge/facts/<fact>.yaml
    knowledge/causes/<category>/<cause>.yaml
    knowledge/causes/<category>/<cause>.cases.yaml
    knowledge/remedies/<remedy>.yaml
    knowledge/myths/<myth>.yaml

The loader never stops at the first problem: it collects a :class:`Problem`
(file, line, code, hint) for each broken file and keeps loading the rest.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from triage.kb.anchors import anchors
from triage.kb.models import CasesFile, Cause, FactSpec, Myth, Remedy
from triage.kb.problems import Problem
from triage.kb.yamlio import YamlError, line_of, load_yaml

KINDS: dict[str, type[BaseModel]] = {"fact": FactSpec, "cause": Cause, "remedy": Remedy, "myth": Myth}
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


def _validation_problems(kb: KnowledgeBase, path: Path, text: str, exc: ValidationError) -> list[Problem]:
    problems = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        where = ".".join(str(p) for p in loc) or "(top level)"
        code, hint = "KB000", "see knowledge/schema/ for the allowed fields and types"
        if loc[:1] == ("category",):
            code, hint = "KB006", "use one label of shared/reference/taxonomy.md (triage explain --categories)"
        elif err["type"] == "extra_forbidden":
            hint = "remove the key or check its spelling against knowledge/schema/"
        elif err["type"] == "missing":
            hint = f"add the required field {where}"
        problems.append(Problem(kb.rel(path), line_of(text, loc), code, f"{where}: {err['msg']}", hint))
    return problems


def _read(kb: KnowledgeBase, path: Path, problems: list[Problem]) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(kb.rel(path), None, "KB000", f"cannot read file: {exc}", "save it as UTF-8"))
        return None
    kb.texts[path] = text
    try:
        data = load_yaml(text)
    except YamlError as exc:
        problems.append(Problem(kb.rel(path), exc.line, "KB000", str(exc), "fix the YAML syntax at that line"))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(kb.rel(path), 1, "KB000", "the file is not a YAML mapping", "start with `kind: ...`"))
        return None
    return data


def _load_cases(kb: KnowledgeBase, path: Path, problems: list[Problem]) -> None:
    data = _read(kb, path, problems)
    if data is None:
        return
    text = kb.texts[path]
    try:
        cases = CasesFile.model_validate(data)
    except ValidationError as exc:
        problems.extend(_validation_problems(kb, path, text, exc))
        return
    stem = path.name[: -len(CASES_SUFFIX)]
    if cases.cause != stem:
        problems.append(
            Problem(
                kb.rel(path),
                line_of(text, ("cause",)),
                "KB001",
                f"cause {cases.cause!r} is not the file stem {stem!r}",
                f"set `cause: {stem}` or rename the file",
            )
        )
    if cases.cause in kb.cases:
        problems.append(
            Problem(kb.rel(path), 1, "KB002", f"a second cases file for {cases.cause!r}", "merge the two files")
        )
        return
    names = [c.name for c in cases.cases]
    for name in {n for n in names if names.count(n) > 1}:
        problems.append(
            Problem(kb.rel(path), None, "KB002", f"case name {name!r} is used twice", "give each case its own name")
        )
    kb.cases[cases.cause] = cases
    kb.paths[f"cases:{cases.cause}"] = path


def _load_entity(kb: KnowledgeBase, path: Path, problems: list[Problem]) -> None:
    data = _read(kb, path, problems)
    if data is None:
        return
    text = kb.texts[path]
    kind = data.get("kind")
    model = KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        problems.append(
            Problem(
                kb.rel(path),
                line_of(text, ("kind",)),
                "KB000",
                f"unknown kind {kind!r}",
                "set kind to one of fact, cause, remedy, myth",
            )
        )
        return
    folder = path.relative_to(kb.root).parts[0]
    if FOLDERS[str(kind)] != folder:
        problems.append(
            Problem(
                kb.rel(path),
                line_of(text, ("kind",)),
                "KB000",
                f"a {kind} in the {folder}/ folder",
                f"move the file to {FOLDERS[str(kind)]}/",
            )
        )
        return
    try:
        entity = model.model_validate(data)
    except ValidationError as exc:
        problems.extend(_validation_problems(kb, path, text, exc))
        return
    entity_id: str = entity.id  # type: ignore[attr-defined]
    if entity_id != path.stem:
        problems.append(
            Problem(
                kb.rel(path),
                line_of(text, ("id",)),
                "KB001",
                f"id {entity_id!r} is not the file stem {path.stem!r}",
                f"set `id: {path.stem}` or rename the file to {entity_id}.yaml",
            )
        )
    existing = kb.entity(entity_id)
    if existing is not None:
        other = next((p for key, p in kb.paths.items() if key.split(":", 1)[1] == entity_id), None)
        problems.append(
            Problem(
                kb.rel(path),
                line_of(text, ("id",)),
                "KB002",
                f"duplicate id {entity_id!r}" + (f" (also {kb.rel(other)})" if other else ""),
                "ids are unique across all kinds; rename one",
            )
        )
        return
    tables: dict[str, dict[str, Any]] = {"fact": kb.facts, "cause": kb.causes, "remedy": kb.remedies, "myth": kb.myths}
    table = tables[str(kind)]
    table[entity_id] = entity
    kb.paths[f"{kind}:{entity_id}"] = path


def load_knowledge(root: Path | None = None) -> tuple[KnowledgeBase, list[Problem]]:
    """Load every file under ``root``; return the knowledge base and all problems found."""
    root = (root or default_knowledge_dir()).resolve()
    kb = KnowledgeBase(root=root)
    problems: list[Problem] = []
    if not (root / "facts").is_dir():
        problems.append(
            Problem(
                str(root),
                None,
                "KB000",
                "no knowledge base here (no facts/ folder)",
                "point TRIAGE_KNOWLEDGE or --knowledge at a knowledge/ directory",
            )
        )
        return kb, problems
    for path in iter_files(root):
        if path.name.endswith(CASES_SUFFIX):
            _load_cases(kb, path, problems)
        else:
            _load_entity(kb, path, problems)
    signal_lists = [c.signals for c in kb.causes.values()] + [m.signals for m in kb.myths.values()]
    for signals in signal_lists:
        for signal in signals:
            if signal.type == "regex":
                for pattern in signal.patterns:
                    kb.anchors.setdefault(pattern, anchors(pattern))
    return kb, problems


class KnowledgeError(Exception):
    """The knowledge base has problems that stop a diagnosis."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problem(s) in the knowledge base; run `triage kb lint`")
        self.problems = problems


def load_checked(root: Path | None = None) -> KnowledgeBase:
    """Load the knowledge base, raising :class:`KnowledgeError` when any file is broken.

    A clean knowledge base is cached (triage/kb/cache.py), so the next run
    skips parsing and validating YAML unless a file changed.
    """
    from triage.kb.cache import load_cached, store

    resolved = (root or default_knowledge_dir()).resolve()
    cached = load_cached(resolved)
    if cached is not None:
        return cached
    kb, problems = load_knowledge(resolved)
    if problems:
        raise KnowledgeError(problems)
    store(kb)
    return kb
