"""Find and load the knowledge base: YAML files -> validated models, with every problem reported.

Layout (shallow folders by kind; one entity per file; id = file stem)::

    knowledge/facts/<fact>.yaml
    knowledge/causes/<category>/<cause>.yaml
    knowledge/causes/<category>/<cause>.cases.yaml
    knowledge/remedies/<remedy>.yaml
    knowledge/myths/<myth>.yaml

The loader never stops at the first problem: it collects a :class:`Problem`
(file, line, code, hint) for each broken file and keeps loading the rest.
:class:`KnowledgeBase`, :func:`iter_files`, :func:`default_knowledge_dir`, ``FOLDERS`` and
``CASES_SUFFIX`` live in ``triage.kb.base`` and are re-exported here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from triage.kb.anchors import anchors
from triage.kb.base import CASES_SUFFIX, FOLDERS, KnowledgeBase, default_knowledge_dir, iter_files
from triage.kb.cache import load_cached, store
from triage.kb.models import CasesFile, Cause, FactSpec, Myth, Remedy
from triage.kb.problems import Problem
from triage.kb.yamlio import YamlError, line_of, load_yaml

__all__ = [
    "CASES_SUFFIX",
    "FOLDERS",
    "KINDS",
    "KnowledgeBase",
    "KnowledgeError",
    "default_knowledge_dir",
    "iter_files",
    "load_checked",
    "load_knowledge",
]

KINDS: dict[str, type[BaseModel]] = {"fact": FactSpec, "cause": Cause, "remedy": Remedy, "myth": Myth}


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
    skips parsing YAML unless a file changed.
    """
    resolved = (root or default_knowledge_dir()).resolve()
    cached = load_cached(resolved)
    if cached is not None:
        return cached
    kb, problems = load_knowledge(resolved)
    if problems:
        raise KnowledgeError(problems)
    store(kb)
    return kb
