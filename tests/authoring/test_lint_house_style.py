"""The lint codes added for contributors (KB013-KB020), exceptions, and `triage kb lint FILES`."""

from __future__ import annotations

from pathlib import Path

import pytest

from triage.authoring.lint import CODES, lint_dir, title_case_problem
from triage.cli import main

NEW_CODES = ["KB013", "KB014", "KB015", "KB016", "KB017", "KB018", "KB019", "KB020"]
FIXTURES = Path(__file__).parent.parent / "fixtures" / "lint"


def test_new_codes_are_in_the_table():
    assert set(NEW_CODES) <= set(CODES)
    for code in [f"KB{n:03d}" for n in range(13)]:
        assert code in CODES, "existing codes stay"


@pytest.mark.parametrize("code", NEW_CODES)
def test_fixture_raises_exactly_its_code(lint_kb, code):
    assert (FIXTURES / code).is_dir()
    _, problems = lint_dir(lint_kb(code))
    assert {p.code for p in problems} == {code}, [p.render() for p in problems]
    for p in problems:
        assert p.line is not None and p.hint


@pytest.mark.parametrize(
    ("code", "needle"),
    [
        ("KB013", "ends with a period"),
        ("KB013", "is in Title Case (Too, Big)"),
        ("KB014", "claim.zh is the same as claim.en"),
        ("KB015", "requires accelerate>=0.20.0 but no reference mentions accelerate"),
        ("KB016", "same conditions and signals as 'big-batch'"),
        ("KB017", "stable cause with 1 case(s) that must fire"),
        ("KB018", "the first line is not the $schema comment"),
        ("KB019", "exception for KB013 has no reason"),
        ("KB020", "unfilled template blank"),
    ],
)
def test_messages_say_what_is_wrong(lint_kb, code, needle):
    _, problems = lint_dir(lint_kb(code))
    assert any(needle in p.message for p in problems), [p.render() for p in problems]


def test_title_too_long_and_chinese_without_chinese(lint_kb):
    root = lint_kb()
    path = root / "remedies" / "smaller-batch.yaml"
    long_title = "Use a smaller micro batch and make up for it with gradient accumulation"
    text = path.read_text().replace(
        "title: {en: Use a smaller batch, zh: 减小 batch}", f"title: {{en: {long_title}, zh: smaller batch}}"
    )
    path.write_text(text, encoding="utf-8")
    _, problems = lint_dir(root)
    messages = {(p.code, p.message) for p in problems}
    assert ("KB013", f"title.en has {len(long_title)} characters (max 60)") in messages
    assert ("KB014", "title.zh has no Chinese in it: 'smaller batch'") in messages


def test_schema_comment_pointing_at_the_wrong_schema(lint_kb):
    root = lint_kb()
    path = root / "myths" / "bigger-is-faster.yaml"
    path.write_text(path.read_text().replace("myth.schema.json", "cause.schema.json"), encoding="utf-8")
    _, problems = lint_dir(root)
    assert [(p.code, p.message) for p in problems] == [
        ("KB018", "the $schema comment points at ../schema/cause.schema.json")
    ]
    assert "../schema/myth.schema.json" in problems[0].hint


def test_stable_remedy_needs_firing_cases_behind_it(lint_kb):
    root = lint_kb()
    path = root / "remedies" / "smaller-batch.yaml"
    path.write_text(path.read_text().replace("kind: remedy\n", "kind: remedy\nstatus: stable\n"), encoding="utf-8")
    _, problems = lint_dir(root)
    assert [p.code for p in problems] == ["KB017"]
    assert "1 firing case(s) (listed by: big-batch)" in problems[0].message


@pytest.mark.parametrize(
    ("title", "problem"),
    [
        ("Gradient checkpointing is off", None),
        ("Gradient Checkpointing Is Off", "Title Case"),
        ("Use FSDP FULL_SHARD with a transformer-layer auto-wrap policy", None),
        ("Use a fused or chunked cross-entropy (Liger Kernel, Cut Cross-Entropy)", None),
        ('device_map="auto" combined with DDP / torchrun', None),
        ("bitsandbytes compute dtype left at fp32", None),
        ("batch too big", "capital"),
        ("Every DDP rank puts its model on cuda:0", None),
    ],
)
def test_sentence_case(title, problem):
    found = title_case_problem(title)
    assert (found is None) if problem is None else (found is not None and problem in found)


# ---------------------------------------------------------------------------- exceptions


def _exceptions(root: Path, text: str) -> None:
    (root / "lint-exceptions.yaml").write_text(text, encoding="utf-8")


def test_exception_with_reason_silences_that_code_for_that_entity_only(lint_kb):
    root = lint_kb("KB013")
    _exceptions(root, "big-batch:\n  - code: KB013\n    reason: the fixture title is Title Case on purpose\n")
    _, problems = lint_dir(root)
    assert problems == []


def test_exception_does_not_cover_other_codes_or_entities(lint_kb):
    root = lint_kb("KB013")
    _exceptions(
        root,
        "big-batch:\n  - {code: KB008, reason: wrong code}\nsmaller-batch:\n  - {code: KB013, reason: wrong entity}\n",
    )
    _, problems = lint_dir(root)
    codes = sorted(p.code for p in problems)
    assert codes.count("KB013") == 2  # both title problems still reported
    unused = [p for p in problems if p.code == "KB019"]
    assert len(unused) == 2 and all("matches no problem" in p.message for p in unused)
    assert {p.path for p in unused} == {"lint-exceptions.yaml"}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("nobody:\n  - {code: KB013, reason: x}\n", "unknown entity 'nobody'"),
        ("big-batch:\n  - {code: KB999, reason: x}\n", "unknown lint code 'KB999'"),
        ("big-batch:\n  - {code: KB000, reason: x}\n", "KB000 cannot be excepted"),
        ("big-batch:\n  - {code: KB013, reason: '  '}\n", "has no reason"),
        ("big-batch: KB013\n", "expected a list"),
        ("- big-batch\n", "not a mapping"),
        ("big-batch: [\n", "invalid YAML"),
    ],
)
def test_bad_exceptions_are_reported(lint_kb, text, needle):
    root = lint_kb()
    _exceptions(root, text)
    _, problems = lint_dir(root)
    assert any(p.code == "KB019" and needle in p.message for p in problems), [p.render() for p in problems]


def test_shipped_exceptions_file_is_valid():
    from triage.kb.loader import default_knowledge_dir

    root = default_knowledge_dir()
    assert (root / "lint-exceptions.yaml").is_file()
    _, problems = lint_dir(root)
    assert [p for p in problems if p.code == "KB019"] == []


# ---------------------------------------------------------------------------- lint FILES


def test_lint_files_reports_only_those_files(lint_kb, capsys, monkeypatch):
    root = lint_kb("KB016")  # the duplicate is reported on huge-batch.yaml
    duplicate = root / "causes" / "batch_size" / "huge-batch.yaml"
    other = root / "remedies" / "smaller-batch.yaml"
    assert main(["kb", "--knowledge", str(root), "lint", str(other)]) == 0
    assert "ok:" in capsys.readouterr().out
    assert main(["kb", "--knowledge", str(root), "lint", str(duplicate)]) == 1
    assert "KB016" in capsys.readouterr().out
    monkeypatch.chdir(root.parent)  # relative paths, as pre-commit passes them
    rel = duplicate.relative_to(root.parent)
    assert main(["kb", "--knowledge", root.name, "lint", str(rel)]) == 1
    assert "huge-batch.yaml" in capsys.readouterr().out


def test_lint_files_still_checks_the_whole_base(lint_kb, capsys):
    """A broken remedy id in a cause is reported when the cause is given, though the remedy file is not."""
    root = lint_kb("KB007")
    cause = root / "causes" / "batch_size" / "big-batch.yaml"
    assert main(["kb", "--knowledge", str(root), "lint", str(cause)]) == 1
    assert "remedy 'tiny-batch' does not exist" in capsys.readouterr().out
