"""Version claims in the knowledge base: KB023 (verified against the releases) and KB024 (no contradictions)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from triage.authoring.lint import lint_dir, package_of_version_fact

FIXTURES = Path(__file__).parent.parent / "fixtures" / "lint"

VERIFIED = """verified:
  - method: wheel-diff
    artifact: "{artifact}"
    date: {date}
"""


def _remedy(root: Path) -> Path:
    return root / "remedies" / "smaller-batch.yaml"


def _kb023(problems):
    return [p for p in problems if p.code == "KB023"]


@pytest.mark.parametrize("code", ["KB023"])
def test_fixture_raises_exactly_its_code(lint_kb, code):
    assert (FIXTURES / code).is_dir()
    _, problems = lint_dir(lint_kb(code))
    assert {p.code for p in problems} == {code}, [p.render() for p in problems]
    for p in problems:
        assert p.line is not None and p.hint


def test_a_verified_block_that_names_the_package_satisfies_kb023(lint_kb):
    root = lint_kb("KB023")
    path = _remedy(root)
    artifact = "transformers 4.34.1 and 4.35.0 wheels, training_args.py"
    path.write_text(path.read_text() + VERIFIED.format(artifact=artifact, date="2026-01-02"), encoding="utf-8")
    _, problems = lint_dir(root)
    assert problems == [], [p.render() for p in problems]


def test_kb023_wants_every_package_named(lint_kb):
    root = lint_kb("KB023")
    path = _remedy(root)
    artifact = "torch 2.0.1 and 2.1.0 wheels"
    path.write_text(path.read_text() + VERIFIED.format(artifact=artifact, date="2026-01-02"), encoding="utf-8")
    _, problems = lint_dir(root)
    found = _kb023(problems)
    assert len(found) == 1 and "no verified artifact names transformers" in found[0].message


def test_kb023_refuses_a_date_in_the_future(lint_kb):
    root = lint_kb("KB023")
    path = _remedy(root)
    later = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
    artifact = "transformers 4.34.1 and 4.35.0 wheels"
    path.write_text(path.read_text() + VERIFIED.format(artifact=artifact, date=later), encoding="utf-8")
    _, problems = lint_dir(root)
    found = _kb023(problems)
    assert len(found) == 1 and "in the future" in found[0].message


def test_kb023_covers_version_changes_and_version_bug_causes(lint_kb):
    root = lint_kb()
    path = _remedy(root)
    path.write_text(path.read_text().replace("changes: {size: 1}", "changes: {transformers_version: 4.40.0}"))
    cause = root / "causes" / "batch_size" / "big-batch.yaml"
    cause.write_text(cause.read_text().replace("category: batch_size", "category: version_bug"))
    _, problems = lint_dir(root)
    messages = sorted(p.message for p in _kb023(problems))
    assert messages == [
        "remedy that changes a package version without a `verified` block",
        "version bug without a `verified` block",
    ], [p.render() for p in problems]


def test_package_of_version_fact():
    assert package_of_version_fact("flash_attn_version") == "flash-attn"
    assert package_of_version_fact("transformers_version") == "transformers"
