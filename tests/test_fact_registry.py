"""Every fact name the code or the knowledge base uses is defined in ``knowledge/facts/``.

"A new fact is one YAML file plus the code that uses it" holds only if nothing
names a fact that the registry does not define; this test finds such names.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

from triage.kb.loader import load_knowledge

ROOT = pathlib.Path(__file__).resolve().parent.parent / "triage"

#: Calls whose first string argument is a fact name.
FACT_CALLS = {"to_int", "to_bool", "to_text", "to_enum", "to_bytes", "assume", "make_fact", "Fact", "fact"}
#: Variables holding facts (or their values) by name: ``values["x"]``, ``facts.value("x")``.
FACT_HOLDERS = {"values", "facts", "known", "fact_values"}


def _names_in(path: pathlib.Path) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            args = list(node.args)
            if name == "make_fact" and len(args) >= 2:
                args = args[1:]
            if name in FACT_CALLS and args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
                found.add((args[0].value, node.lineno))
            holder = func.value if isinstance(func, ast.Attribute) else None
            if (
                isinstance(func, ast.Attribute)
                and func.attr in {"value", "get"}
                and isinstance(holder, ast.Name)
                and holder.id in FACT_HOLDERS
                and args
                and isinstance(args[0], ast.Constant)
                and isinstance(args[0].value, str)
            ):
                found.add((args[0].value, node.lineno))
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in FACT_HOLDERS
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            found.add((node.slice.value, node.lineno))
    return found


@pytest.fixture(scope="module")
def registry() -> set[str]:
    kb, _ = load_knowledge()
    return set(kb.facts)


def test_code_names_only_registered_facts(registry: set[str]) -> None:
    unknown = []
    for path in sorted(ROOT.rglob("*.py")):
        for name, line in _names_in(path):
            if name not in registry:
                unknown.append(f"{path.relative_to(ROOT.parent)}:{line}: {name}")
    assert not unknown, "fact names not in knowledge/facts/:\n" + "\n".join(sorted(unknown))


def test_the_scan_finds_fact_names() -> None:
    """The scan itself works: it sees the names the config reader and the estimator use."""
    names = {n for p in ROOT.rglob("*.py") for n, _ in _names_in(p)}
    assert {"batch_size", "gradient_checkpointing", "max_length", "lora_r"} <= names


def test_hand_kept_tables_name_registered_facts(registry: set[str]) -> None:
    from triage.estimate.changes import MODELED
    from triage.quantify import DEPENDS_ON

    named = set(MODELED) | set(DEPENDS_ON) | {f for deps in DEPENDS_ON.values() for f in deps}
    assert named - registry == set()


def test_remedy_changes_name_registered_facts(registry: set[str]) -> None:
    """A remedy's ``changes`` are facts (the estimator sizes those it models; the rest save an unknown amount)."""
    kb, _ = load_knowledge()
    bad = [f"{r.id}: {k}" for r in kb.remedies.values() for k in r.changes if k not in registry]
    assert not bad, bad
