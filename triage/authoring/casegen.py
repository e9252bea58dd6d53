"""``triage kb case-from-report``: a wrong diagnosis becomes a regression test.

A user who got the wrong answer exports the report (``triage --format markdown``
or the TUI's report) and names the true cause. This module reads that
markdown, line by line, and appends a case that must fire to the cause's
``<id>.cases.yaml``:

- the facts come from the report's facts table (``| fact | value | source |``,
  whatever the language of the headings around it);
- the symptom comes from any fenced block whose info string is ``symptom``, or
  from the fenced blocks inside a ``<details>`` section titled "Symptom" or
  "What was pasted" (and their Chinese headings).

Facts that were read from the symptom text are left out when the symptom is
kept (the engine reads them again from the text); derived facts are always left
out (the estimator computes them). The cases file is appended to, never
rewritten, so the contributor's comments and layout survive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from triage.authoring.headers import expected_header
from triage.facts import FactError, coerce
from triage.kb.loader import CASES_SUFFIX, KnowledgeBase
from triage.kb.models import Case, CasesFile
from triage.kb.yamlio import YamlError, load_yaml

#: ``<details>`` summaries whose fenced blocks hold what the user pasted.
SYMPTOM_SECTIONS = frozenset({"symptom", "symptoms", "症状", "what was pasted", "粘贴的内容"})
#: Fact sources that are recomputed from the symptom text or by the estimator.
_FROM_TEXT = {"symptom", "text"}
_DERIVED = {"derived"}
#: A symptom longer than this is cut (keeping the end, where the traceback is).
MAX_SYMPTOM_CHARS = 20_000

_FACT_HEADER = re.compile(r"^\|\s*fact\s*\|\s*value\s*\|\s*source\s*\|", re.IGNORECASE)
_CAUSE_HEADER = re.compile(r"^\|\s*#\s*\|\s*cause\s*\|", re.IGNORECASE)
_SEPARATOR = re.compile(r"^\|[\s|:-]+\|\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([^`\s]*)")
_DETAILS = re.compile(r"<details>\s*<summary>(.*?)</summary>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


class ReportError(ValueError):
    """The report cannot be turned into a case."""


@dataclass
class ParsedReport:
    """What a triage markdown report says, as far as a case needs it."""

    symptoms: list[str] = field(default_factory=list)
    """The texts the user gave (fenced symptom blocks), in order."""
    facts: dict[str, str] = field(default_factory=dict)
    """Fact name -> value as printed in the facts table."""
    sources: dict[str, str] = field(default_factory=dict)
    """Fact name -> the source cell (``cli``, ``answer``, ``symptom``, ``train.log:812``...)."""
    top_cause: str | None = None
    """The title of the cause triage ranked first."""
    truncated: bool = False
    """True when a symptom was cut to :data:`MAX_SYMPTOM_CHARS`."""

    @property
    def symptom(self) -> str | None:
        """All symptom blocks joined, or None when the report has none."""
        text = "\n".join(s for s in self.symptoms if s.strip())
        return text or None


def _cells(line: str) -> list[str]:
    parts = _CELL_SPLIT.split(line.strip())
    if parts and parts[0].strip() == "":
        parts = parts[1:]
    if parts and parts[-1].strip() == "":
        parts = parts[:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def parse_report(lines: Iterable[str]) -> ParsedReport:
    """Parse a triage markdown report streamed line by line (a file object works)."""
    report = ParsedReport()
    table: str | None = None  # "facts" | "causes" while inside a table
    details: str | None = None  # the summary of the open <details>, lower-cased
    fence: str | None = None  # the opening fence while inside a fenced block
    keep = False  # whether the open fence is a symptom block
    block: list[str] = []
    size = 0
    for raw in lines:
        line = raw.rstrip("\n").rstrip("\r")
        if fence is not None:
            stripped = line.strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                if keep:
                    text = "\n".join(block)
                    if len(text) > MAX_SYMPTOM_CHARS:
                        text, report.truncated = text[-MAX_SYMPTOM_CHARS:], True
                    report.symptoms.append(text)
                fence, block, size = None, [], 0
            elif keep:
                block.append(line)
                size += len(line) + 1
                if size > 2 * MAX_SYMPTOM_CHARS:  # bound memory: keep the end
                    while size > MAX_SYMPTOM_CHARS and len(block) > 1:
                        size -= len(block.pop(0)) + 1
                    report.truncated = True
            continue
        if table is not None:
            if line.startswith("|"):
                if _SEPARATOR.match(line):
                    continue
                cells = _cells(line)
                if table == "facts" and len(cells) >= 3:
                    name = cells[0].strip("`").strip()
                    if name:
                        report.facts[name] = cells[1]
                        report.sources[name] = cells[2]
                elif table == "causes" and len(cells) >= 2 and report.top_cause is None:
                    report.top_cause = cells[1]
                continue
            table = None
        if _FACT_HEADER.match(line):
            table = "facts"
            continue
        if _CAUSE_HEADER.match(line):
            table = "causes"
            continue
        m = _DETAILS.search(line)
        if m:
            details = " ".join(_TAG.sub("", m.group(1)).split()).lower()
            continue
        if "</details>" in line.lower():
            details = None
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            info = m.group(2).lower()
            keep = info == "symptom" or (details in SYMPTOM_SECTIONS and info in {"", "text", "symptom", "log"})
            block, size = [], 0
    return report


def _source_kind(source: str) -> str:
    return source.split(":", 1)[0].strip().lower()


@dataclass
class NewCase:
    """The case built from a report, and what was left out of it."""

    case: dict[str, Any]
    skipped: list[str] = field(default_factory=list)
    """One line per fact not carried over, saying why."""


def build_case(
    kb: KnowledgeBase, report: ParsedReport, cause_id: str, name: str, report_name: str | None = None
) -> NewCase:
    """A ``fire`` case for ``cause_id`` from the report's symptom and facts."""
    if cause_id not in kb.causes:
        raise ReportError(f"no cause {cause_id!r}; `triage kb lint` lists the knowledge base")
    if not re.match(r"^[a-z0-9][a-z0-9-]*$", name):
        raise ReportError(f"case name {name!r} is not kebab-case (lower-case letters, digits and '-')")
    symptom = report.symptom
    facts: dict[str, Any] = {}
    skipped: list[str] = []
    for fact, raw in report.facts.items():
        kind = _source_kind(report.sources.get(fact, ""))
        spec = kb.facts.get(fact)
        if spec is None:
            skipped.append(f"{fact}: not a fact of this knowledge base")
        elif kind in _DERIVED:
            skipped.append(f"{fact}: derived (computed again from the other facts)")
        elif kind in _FROM_TEXT and symptom is not None:
            skipped.append(f"{fact}: read from the symptom text (read again from it)")
        else:
            try:
                facts[fact] = coerce(spec, raw)
            except FactError as exc:
                skipped.append(f"{fact}: {exc}")
    if symptom is None and not facts:
        raise ReportError(
            "the report has no symptom block and no usable facts; export it with "
            "`triage --format markdown` (it has a Symptom section and the facts table)"
        )
    case: dict[str, Any] = {"name": name, "expect": "fire"}
    if symptom is not None:
        case["symptom"] = symptom.rstrip() + "\n"
    if facts:
        case["facts"] = facts
    said = f"; the report's first cause: {report.top_cause}" if report.top_cause else ""
    case["note"] = f"from {report_name or 'an exported report'}{said}"
    try:
        Case.model_validate(case)
    except ValidationError as exc:
        raise ReportError(f"the case would not be valid: {exc.errors()[0]['msg']}") from None
    return NewCase(case, skipped)


class _BlockDumper(yaml.SafeDumper):
    """Multi-line strings as ``|`` blocks, so pasted logs stay readable in the cases file."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _str)


def render_case(case: dict[str, Any], indent: int = 2) -> str:
    """The case as a YAML list item, indented to sit under ``cases:``."""
    text = yaml.dump([case], Dumper=_BlockDumper, allow_unicode=True, sort_keys=False, width=10_000, indent=2)
    pad = " " * indent
    return "".join(pad + line if line.strip() else line for line in text.splitlines(keepends=True))


def _item_indent(text: str) -> int:
    """How far the items under ``cases:`` are indented; raise when appending would not extend that list."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(r"^cases:\s*(#.*)?$", line)), None)
    if start is None:
        raise ReportError("the cases file has no block `cases:` list to append to")
    indent = None
    for line in lines[start + 1 :]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        width = len(line) - len(line.lstrip(" "))
        if width == 0 and not line.startswith("-"):
            raise ReportError("`cases:` is not the last key of the cases file; move it to the end, then retry")
        if indent is None and line.lstrip().startswith("- "):
            indent = width
    return 2 if indent is None else indent


def case_names(path: Path) -> set[str]:
    """The case names already in a cases file (empty when it does not exist)."""
    if not path.is_file():
        return set()
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except YamlError as exc:
        raise ReportError(f"{path} is not valid YAML ({exc}); fix it first") from None
    cases = data.get("cases") if isinstance(data, dict) else None
    return {c["name"] for c in cases or [] if isinstance(c, dict) and isinstance(c.get("name"), str)}


def cases_path(kb: KnowledgeBase, cause_id: str) -> Path:
    """The cause's cases file (beside the cause)."""
    return kb.paths[f"cause:{cause_id}"].with_name(f"{cause_id}{CASES_SUFFIX}")


def append_case(kb: KnowledgeBase, cause_id: str, case: dict[str, Any]) -> Path:
    """Append ``case`` to the cause's cases file (creating it when missing); return the path.

    The new text is checked before anything is written: the file must still
    parse, and its cases must be the old ones plus the new one.
    """
    path = cases_path(kb, cause_id)
    if not path.exists():
        header = expected_header(kb.root, path, "cases")
        path.write_text(f"{header}\ncause: {cause_id}\ncases:\n{render_case(case)}", encoding="utf-8")
        return path
    old = path.read_text(encoding="utf-8")
    try:
        before = CasesFile.model_validate(load_yaml(old))
    except (YamlError, ValidationError) as exc:
        raise ReportError(f"{kb.rel(path)} does not validate; run `triage kb lint` and fix it first ({exc})") from None
    addition = ("" if old.endswith("\n") or not old else "\n") + render_case(case, _item_indent(old))
    try:
        after = CasesFile.model_validate(load_yaml(old + addition))
    except (YamlError, ValidationError) as exc:
        raise ReportError(f"appending would break {kb.rel(path)} ({exc}); add the case by hand") from None
    if after.cases[:-1] != before.cases or after.cases[-1] != Case.model_validate(case):
        raise ReportError(f"appending to {kb.rel(path)} would not add exactly one case; add it by hand")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(addition)
    return path


def default_name(report_path: Path | None, taken: set[str]) -> str:
    """``report-<file stem>``, made unique among ``taken``."""
    stem = re.sub(r"[^a-z0-9]+", "-", (report_path.stem if report_path else "").lower()).strip("-")
    base = f"report-{stem}" if stem else "report"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name
