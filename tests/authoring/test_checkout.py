"""Authoring commands work on the checkout around the current directory (or --knowledge DIR), never elsewhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from triage.authoring import checkout
from triage.authoring.checkout import find_checkout, find_workspace, is_checkout
from triage.cli import main
from triage.kb.loader import default_knowledge_dir

REPO = Path(__file__).resolve().parents[2]


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """A checkout in miniature: pyproject.toml, knowledge/ and docs/knowledge/ copied from the repository."""
    root = tmp_path / "triage"
    root.mkdir()
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(REPO / "knowledge", root / "knowledge")
    shutil.copytree(REPO / "docs" / "knowledge", root / "docs" / "knowledge")
    return root


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory that is not in a checkout, made the current directory."""
    here = tmp_path / "elsewhere"
    here.mkdir()
    assert find_checkout(here) is None
    monkeypatch.chdir(here)
    return here


def one_line_refusal(capsys: pytest.CaptureFixture[str], where: Path) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert f"{where} is not in one" in lines[0] and "--knowledge DIR" in lines[0]
    assert captured.out == ""
    return lines[0]


# --- finding the checkout ---------------------------------------------------------------------


def test_the_repository_is_a_checkout_found_from_any_folder_inside_it():
    assert is_checkout(REPO)
    assert find_checkout(REPO / "knowledge" / "causes") == REPO


def test_a_folder_is_a_checkout_only_with_the_project_name_and_knowledge(tmp_path: Path):
    (tmp_path / "knowledge").mkdir()
    assert not is_checkout(tmp_path)  # no pyproject.toml
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "other"\n', encoding="utf-8")
    assert not is_checkout(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project\nname = ", encoding="utf-8")
    assert not is_checkout(tmp_path)  # unreadable TOML is not a checkout, not a crash
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "triage-oom"\n', encoding="utf-8")
    assert is_checkout(tmp_path)
    (tmp_path / "knowledge").rmdir()
    assert not is_checkout(tmp_path)


def test_a_foreign_project_inside_a_checkout_does_not_hide_it(repo_copy: Path):
    inner = repo_copy / "vendor" / "other"
    (inner / "knowledge").mkdir(parents=True)
    (inner / "pyproject.toml").write_text('[project]\nname = "other"\n', encoding="utf-8")
    assert find_checkout(inner) == repo_copy.resolve()


def test_knowledge_option_wins_over_the_checkout(repo_copy: Path, lint_kb):
    root = lint_kb()
    found = find_workspace("docs", root, repo_copy)
    assert found.knowledge == root.resolve() and found.docs == root.resolve().parent / "docs" / "knowledge"
    found = find_workspace("docs", None, repo_copy / "knowledge" / "causes")
    assert found.checkout == repo_copy.resolve() and found.docs == repo_copy.resolve() / "docs" / "knowledge"


# --- from a checkout --------------------------------------------------------------------------


def test_docs_check_and_new_work_on_the_checkout_around_the_current_directory(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    real = files_under(REPO / "knowledge") | files_under(REPO / "docs" / "knowledge")
    monkeypatch.chdir(repo_copy / "knowledge")  # any folder inside the checkout
    assert main(["kb", "docs", "--check"]) == 0
    assert "ok: docs are current" in capsys.readouterr().out
    assert main(["kb", "new", "cause", "x", "--category", "seq_len"]) == 0
    out = capsys.readouterr().out
    cause = repo_copy / "knowledge" / "causes" / "seq_len" / "x.yaml"
    assert cause.is_file() and cause.with_name("x.cases.yaml").is_file()
    assert f"wrote {cause.resolve()}" in out
    # the docs of the copy are stale now, and writing them lands in the copy
    assert main(["kb", "docs", "--check"]) == 1
    assert main(["kb", "docs"]) == 0
    assert (repo_copy / "docs" / "knowledge" / "en" / "seq_len.md").read_text(encoding="utf-8").count('id="x"') == 1
    # nothing was written into the real repository
    assert files_under(REPO / "knowledge") | files_under(REPO / "docs" / "knowledge") == real


def test_the_readme_checks_run_from_the_repository_root(monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.chdir(REPO)
    assert main(["kb", "schema", "--check"]) == 0
    assert main(["kb", "docs", "--check"]) == 0
    out = capsys.readouterr().out
    assert "ok: schemas are current" in out and "ok: docs are current" in out


# --- elsewhere --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["docs", "--check"],
        ["docs"],
        ["new", "cause", "x", "--category", "seq_len"],
        ["new", "remedy", "x"],
        ["schema", "--check"],
        ["schema"],
        ["case-from-report", "report.md", "--cause", "gradient-checkpointing-off"],
    ],
)
def test_outside_a_checkout_authoring_refuses_in_one_line_and_writes_nothing(
    elsewhere: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
):
    installed = default_knowledge_dir()
    before = files_under(installed)
    if argv[0] == "case-from-report":
        (elsewhere / "report.md").write_text("## Symptom\n\n```\nCUDA out of memory\n```\n", encoding="utf-8")
    assert main(["kb", *argv]) == 2
    assert f"`triage kb {argv[0]}`" in one_line_refusal(capsys, elsewhere)
    assert {p.name for p in elsewhere.iterdir()} <= {"report.md"}
    assert not (elsewhere / "docs").exists()
    assert files_under(installed) == before


def test_outside_a_checkout_lint_test_and_stats_check_the_knowledge_triage_runs_with_and_say_so(
    elsewhere: Path, capsys: pytest.CaptureFixture[str]
):
    installed = str(default_knowledge_dir().resolve())
    for argv in (["lint"], ["test", "gradient-checkpointing-off"], ["stats"]):
        assert main(["kb", *argv]) == 0, argv
        (note,) = capsys.readouterr().err.splitlines()
        assert note.startswith("triage: not in a triage checkout;") and installed in note, note
        assert f"`triage kb {argv[0]}`" in note
    assert list(elsewhere.iterdir()) == []


def test_lint_codes_needs_no_knowledge(elsewhere: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["kb", "lint", "--codes"]) == 0
    captured = capsys.readouterr()
    assert "KB000" in captured.out and captured.err == ""


def test_a_missing_knowledge_dir_is_bad_input(elsewhere: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["kb", "--knowledge", "nowhere", "new", "remedy", "x"]) == 3
    (line,) = capsys.readouterr().err.splitlines()
    assert line == "triage: --knowledge nowhere: no such directory"
    assert list(elsewhere.iterdir()) == []


def test_an_installed_knowledge_dir_is_never_written_or_compared(
    tmp_path: Path, lint_kb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    source = lint_kb()
    site = tmp_path / "site-packages"
    bundled = site / "triage" / "_knowledge"
    shutil.copytree(source, bundled)
    monkeypatch.setattr(checkout, "installed_roots", lambda: [site.resolve()])
    before = files_under(site)
    for argv in (["docs", "--check"], ["docs"], ["new", "remedy", "x"], ["schema"]):
        assert main(["kb", "--knowledge", str(bundled), *argv]) == 2, argv
        (line,) = capsys.readouterr().err.splitlines()
        assert "installed package" in line, line
    # an explicit --out inside site-packages is refused too
    assert main(["kb", "--knowledge", str(source), "docs", "--out", str(site / "docs")]) == 2
    assert "installed package" in capsys.readouterr().err
    assert files_under(site) == before
    # reading the installed knowledge for a check is fine
    assert main(["kb", "--knowledge", str(bundled), "lint"]) == 0


def test_knowledge_may_follow_the_action(repo_copy, tmp_path, monkeypatch, capsys):
    """`triage kb new cause x --knowledge DIR` works like `triage kb --knowledge DIR new cause x`."""
    monkeypatch.chdir(tmp_path)
    knowledge = repo_copy / "knowledge"
    assert main(["kb", "new", "cause", "y", "--category", "seq_len", "--knowledge", str(knowledge)]) == 0
    assert (knowledge / "causes" / "seq_len" / "y.yaml").is_file()
    capsys.readouterr()
    assert main(["kb", "docs", "--check", "--knowledge", str(tmp_path / "nowhere")]) == 3
    assert "no such directory" in capsys.readouterr().err
