"""Version claims in the knowledge base: KB023 (verified against the releases) and KB024 (no contradictions)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from triage.authoring.lint import lint_dir, package_of_version_fact
from triage.authoring.version_claims import statements

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


def _kb023_messages(root: Path) -> list[str]:
    """The KB023 messages of linting ``root``, sorted."""
    _, problems = lint_dir(root)
    return sorted(p.message for p in _kb023(problems))


@pytest.mark.parametrize("code", ["KB023", "KB024"])
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
    assert _kb023_messages(root) == [
        "remedy that changes a package version without a `verified` block",
        "version bug without a `verified` block",
    ]


def test_kb023_covers_version_ranges_in_evidence_and_prerequisites(lint_kb):
    """A cause that weighs a release range in its evidence, or a remedy gated on one, makes a version claim too:
    "SDPA for Llama from transformers 4.36" must be checked in the wheels like an `affects` range."""
    root = lint_kb()
    cause = root / "causes" / "batch_size" / "big-batch.yaml"
    cause.write_text(
        cause.read_text().replace(
            "when:\n",
            "when:\n  - test: {fact: transformers_version, op: version, value: '<4.36.0'}\n"
            "    if_true: 0.5\n    label: {en: transformers older than 4.36, zh: transformers 早于 4.36}\n",
        ),
        encoding="utf-8",
    )
    path = _remedy(root)
    path.write_text(
        path.read_text()
        + "prerequisites:\n  - test: {fact: transformers_version, op: version, value: '>=4.36.0'}\n"
        + "    label: {en: transformers 4.36 or later, zh: transformers 4.36 或更高}\n",
        encoding="utf-8",
    )
    assert _kb023_messages(root) == [
        "cause whose evidence tests a version without a `verified` block",
        "remedy whose prerequisites test a version without a `verified` block",
    ]
    # an equality test on a version fact is not a range, and claims nothing about releases
    cause.write_text(cause.read_text().replace("op: version, value: '<4.36.0'", "op: eq, value: '4.35.2'"))
    path.write_text(
        path.read_text() + VERIFIED.format(artifact="transformers 4.35.2 and 4.36.0 wheels", date="2026-01-02")
    )
    assert _kb023_messages(root) == []


def test_package_of_version_fact():
    assert package_of_version_fact("flash_attn_version") == "flash-attn"
    assert package_of_version_fact("transformers_version") == "transformers"


# --------------------------------------------------------------------------- KB024

#: The statements the knowledge audit found contradicting the knowledge base's own causes.
AUDIT_TEXTS = [
    # myth upgrade-to-438 before the fix: 4.39 still loses SDPA's flash kernel (fixed in 4.40.0)
    (
        "Pick 4.36.x/4.37.x, or a release from 4.39 on (the buffer is gone in 4.39.3 and 4.40.0); do not pin 4.38.",
        {("recommends", "4.36.x"), ("recommends", "4.37.x"), ("recommends", "4.39")},
    ),
    # myth flash-attention-431-off-by-default before the fix
    (
        "otherwise upgrade to 4.36/4.37 (SDPA default with torch>=2.1.1) or >=4.39, skipping 4.38.x.",
        {("recommends", "4.36"), ("recommends", "4.37"), ("recommends", "2.1.1"), ("recommends", "4.39")},
    ),
    # myth kv-cache-eats-training-memory before the fix: 4.36.0-4.36.1 filled a cache
    (
        "transformers (4.31, unchanged in 4.36 and 4.38) forces use_cache=False",
        {("unchanged", "4.36"), ("unchanged", "4.38")},
    ),
    # remedy upgrade-bitsandbytes-0-39 before the fix
    ("0.39.0 fixes the doubled memory of serialized 8-bit models", {("fixed", "0.39.0")}),
    ("只有在 4.36.0-4.36.1 上加载时设 use_cache=False 才有用；请升级到 4.36.2 或更高", {("recommends", "4.36.2")}),
    ("4.40.0 及以上", {("recommends", "4.40.0")}),
]


@pytest.mark.parametrize(("text", "want"), AUDIT_TEXTS)
def test_version_statements_in_prose(text, want):
    got = {(s.kind, s.written) for s in statements(text)}
    assert got == want


@pytest.mark.parametrize(
    "text",
    [
        "do not pin 4.38 or 4.39",
        "不要锁定 4.38",
        "causing OOM after 4.37.2 -> 4.38.2",
        "导致从 4.37.2 升到 4.38.2 后 OOM",
        "Any release from 4.36 gives Llama SDPA attention by default",
        "LLaMA-7B goes from 16.5 GB to about 15 GB",
    ],
)
def test_what_is_not_a_version_statement(text):
    assert statements(text) == []


def test_kb024_names_the_cause_and_the_range(lint_kb):
    _, problems = lint_dir(lint_kb("KB024"))
    found = [p for p in problems if p.code == "KB024"]
    assert len(found) == 1, [p.render() for p in problems]
    assert "recommends transformers 4.39" in found[0].message
    assert "mask-regression lists as affected (>=4.38.0,<4.40.0)" in found[0].message
    assert found[0].path == "myths/upgrade-to-438.yaml"


def test_kb024_reads_an_upgrade_remedys_version_change(lint_kb):
    root = lint_kb("KB024")
    (root / "myths" / "upgrade-to-438.yaml").unlink()
    remedy = root / "remedies" / "smaller-batch.yaml"
    text = remedy.read_text().replace("changes: {size: 1}", "changes: {transformers_version: 4.39.0}")
    text += VERIFIED.format(artifact="transformers 4.39.3 and 4.40.0 wheels", date="2026-01-02")
    remedy.write_text(text, encoding="utf-8")
    cause = root / "causes" / "version_bug" / "mask-regression.yaml"
    cause.write_text(cause.read_text() + "remedies: [smaller-batch]\n", encoding="utf-8")
    _, problems = lint_dir(root)
    found = [p for p in problems if p.code == "KB024"]
    assert [p.message for p in found] == [
        "changes transformers to 4.39.0, which mask-regression lists as affected (>=4.38.0,<4.40.0)"
    ], [p.render() for p in problems]


def test_no_reference_points_at_a_moving_branch():
    """Links to source and docs name a tag or a version, never main or master (they drift)."""
    root = Path(__file__).parent.parent.parent / "knowledge"
    moving = []
    for path in sorted(root.rglob("*.yaml")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "https://" in line and (
                "/blob/main/" in line
                or "/blob/master/" in line
                or "/tree/main/" in line
                or "/main/en/" in line
                or "/docs/transformers/main/" in line
            ):
                moving.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert moving == [], "\n".join(moving)
