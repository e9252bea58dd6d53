"""Each lint code has a broken fixture (tests/fixtures/lint/<code>/) that raises exactly that code."""

from __future__ import annotations

from pathlib import Path

import pytest

from triage.authoring.lint import CODES, lint_dir
from triage.cli import main

FIXTURE_CODES = sorted(
    p.name for p in (Path(__file__).parent / "fixtures" / "lint").iterdir() if p.name.startswith("KB")
)


def test_base_fixture_is_clean(lint_kb):
    _, problems = lint_dir(lint_kb())
    assert problems == []


def test_every_code_has_a_fixture():
    assert set(CODES) <= set(FIXTURE_CODES)


@pytest.mark.parametrize("code", FIXTURE_CODES)
def test_fixture_raises_its_code(lint_kb, code):
    _, problems = lint_dir(lint_kb(code))
    assert code in {p.code for p in problems}, [p.render() for p in problems]
    for p in problems:
        assert p.path and p.hint, p
        assert "fix:" in p.render()


@pytest.mark.parametrize(
    ("code", "path", "line"),
    [
        ("KB000", "causes/batch_size/big-batch.yaml", 5),
        ("KB003", "causes/batch_size/big-batch.yaml", 12),
        ("KB006", "causes/batch_size/big-batch.yaml", 3),
        ("KB007", "causes/batch_size/big-batch.yaml", 19),
    ],
)
def test_problem_points_at_file_and_line(lint_kb, code, path, line):
    _, problems = lint_dir(lint_kb(code))
    found = [p for p in problems if p.code == code]
    assert found and found[0].path == path and found[0].line == line, [p.render() for p in problems]


def test_all_problems_reported_in_one_run(lint_kb, tmp_path):
    root = lint_kb("KB003")
    # break a second, unrelated file as well: both must be reported
    (root / "remedies" / "smaller-batch.yaml").write_text("kind: remedy\nid: smaller-batch\n", encoding="utf-8")
    _, problems = lint_dir(root)
    assert {"KB003", "KB000"} <= {p.code for p in problems}
    assert any(p.path == "remedies/smaller-batch.yaml" for p in problems)


def test_cli_lint_exit_codes(lint_kb, capsys):
    assert main(["kb", "--knowledge", str(lint_kb()), "lint"]) == 0
    assert "ok:" in capsys.readouterr().out
    assert main(["kb", "--knowledge", str(lint_kb("KB005")), "lint"]) == 1
    out = capsys.readouterr().out
    assert "KB005" in out and "big-batch.yaml:" in out


def test_shipped_knowledge_base_lints_clean():
    _, problems = lint_dir()
    assert problems == [], "\n".join(p.render() for p in problems)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("    if_true: 3.0\n", "    if_true: 1000\n"),
        ("prior: 0.1\n", "prior: 0.9999\n"),
        ("    weight: 2.0\n", "    weight: -50\n"),
    ],
)
def test_weights_and_priors_out_of_bounds_are_refused(lint_kb, old, new):
    """A weight of 1000 or a prior of 0.9999 would decide every diagnosis on its own (bounds: ±6, 0.3)."""
    root = lint_kb("KB025")
    path = root / "causes" / "batch_size" / "big-batch.yaml"
    text = path.read_text(encoding="utf-8").replace("'(a+)+b'", "'batch size (8|16|32)'")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    _, problems = lint_dir(root)
    assert any(p.path == "causes/batch_size/big-batch.yaml" and p.code in {"KB000", "KB001"} for p in problems), [
        p.render() for p in problems
    ]


def test_an_exponential_regex_is_refused_quickly(lint_kb):
    import time

    start = time.perf_counter()
    _, problems = lint_dir(lint_kb("KB025"))
    assert "KB025" in {p.code for p in problems}
    assert time.perf_counter() - start < 10


def test_a_repeated_key_is_reported_at_its_second_line(lint_kb):
    _, problems = lint_dir(lint_kb("KB026"))
    found = [p for p in problems if p.code == "KB026"]
    assert [(p.path, p.line) for p in found] == [("remedies/smaller-batch.yaml", 8)]
    assert "'summary'" in found[0].message
