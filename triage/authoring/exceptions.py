"""Per-entity lint exceptions: ``knowledge/lint-exceptions.yaml``.

One file for the whole knowledge base (SigmaHQ's ``exclusions:`` idea), so every
exception is reviewed in one place and carries its reason::

    gradient-checkpointing-off:
      - code: KB013
        reason: the title quotes an API name that must keep its capitals

Problems of that code in the entity's files (its YAML and, for a cause, its
cases file) are then not reported. An exception that is malformed, names an
unknown entity or code, has no reason, or no longer matches any problem is
itself a problem (KB019), so stale exceptions do not pile up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from triage.kb.loader import CASES_SUFFIX, KnowledgeBase
from triage.kb.problems import Problem
from triage.kb.yamlio import YamlError, line_of, load_yaml

FILE_NAME = "lint-exceptions.yaml"
CODE = "KB019"
#: Codes that can never be excepted: broken files, and the exceptions file itself.
NOT_EXCEPTABLE = frozenset({"KB000", CODE})


@dataclass(frozen=True)
class LintException:
    """One allowed problem: ``code`` in the files of ``entity``, because ``reason``."""

    entity: str
    code: str
    reason: str
    line: int | None


def entity_of(problem_path: str) -> str:
    """The entity id a problem belongs to: the file stem (a cases file belongs to its cause)."""
    name = Path(problem_path).name
    if name.endswith(CASES_SUFFIX):
        return name[: -len(CASES_SUFFIX)]
    return Path(name).stem


def load_exceptions(kb: KnowledgeBase, codes: dict[str, str]) -> tuple[list[LintException], list[Problem]]:
    """Read the exceptions file under ``kb.root`` (missing is fine); return the exceptions and its problems."""
    path = kb.root / FILE_NAME
    if not path.is_file():
        return [], []
    problems: list[Problem] = []

    def bad(line: int | None, message: str, hint: str) -> None:
        problems.append(Problem(FILE_NAME, line, CODE, message, hint))

    try:
        text = path.read_text(encoding="utf-8")
        data = load_yaml(text)
    except (OSError, UnicodeDecodeError) as exc:
        bad(None, f"cannot read the exceptions file: {exc}", "save it as UTF-8")
        return [], problems
    except YamlError as exc:
        bad(exc.line, str(exc), "fix the YAML syntax at that line")
        return [], problems
    if data is None:
        return [], []
    if not isinstance(data, dict):
        bad(1, "the exceptions file is not a mapping", "write `entity-id: [{code: KB0nn, reason: ...}]`")
        return [], problems
    found: list[LintException] = []
    for entity, items in data.items():
        where = line_of(text, (entity,))
        if not isinstance(entity, str) or kb.entity(entity) is None:
            bad(where, f"exception for unknown entity {entity!r}", "use the id of a cause, remedy, myth or fact")
            continue
        if not isinstance(items, list) or not items:
            bad(where, f"{entity}: expected a list of {{code, reason}}", "write `- {code: KB0nn, reason: ...}`")
            continue
        for i, item in enumerate(items):
            at = line_of(text, (entity, i))
            if not isinstance(item, dict) or set(item) - {"code", "reason"}:
                bad(
                    at,
                    f"{entity}: each exception is {{code, reason}}; got {item!r}",
                    "write `- {code: KB0nn, reason: ...}`",
                )
                continue
            code, reason = item.get("code"), item.get("reason")
            if not isinstance(code, str) or code not in codes:
                bad(at, f"{entity}: unknown lint code {code!r}", "`triage kb lint --codes` lists the codes")
                continue
            if code in NOT_EXCEPTABLE:
                bad(at, f"{entity}: {code} cannot be excepted", "fix the problem instead")
                continue
            if not isinstance(reason, str) or not reason.strip():
                bad(
                    at,
                    f"{entity}: exception for {code} has no reason",
                    "say why the rule does not apply: `reason: ...`",
                )
                continue
            found.append(LintException(entity, code, reason.strip(), at))
    return found, problems


def apply_exceptions(problems: list[Problem], exceptions: list[LintException]) -> tuple[list[Problem], list[Problem]]:
    """Drop excepted problems; return (kept, one KB019 per exception that matched nothing)."""
    allowed = {(e.entity, e.code) for e in exceptions}
    used: set[tuple[str, str]] = set()
    kept = []
    for problem in problems:
        key = (entity_of(problem.path), problem.code)
        if problem.path != FILE_NAME and key in allowed:
            used.add(key)
            continue
        kept.append(problem)
    unused = [
        Problem(FILE_NAME, e.line, CODE, f"{e.entity}: the exception for {e.code} matches no problem", "remove it")
        for e in exceptions
        if (e.entity, e.code) not in used
    ]
    return kept, unused
