"""The contributor tooling: the workflow runs what .ci/run runs; templates and hooks are valid."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from triage.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "ci.yml"
CI_RUN = REPO / ".ci" / "run"
TOOLS = {"pip", "triage", "pytest", "lint-imports"}


def commands(lines: list[str]) -> list[list[str]]:
    """The pip/triage/pytest commands as argv lists, in order, from shell lines (``a && b`` is two)."""
    out = []
    for line in lines:
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        for part in line.split("&&"):
            words = shlex.split(part)
            cut = next((i for i, w in enumerate(words) if w in {">", ">>", "<", "|", "2>"}), len(words))
            words = words[:cut]  # drop shell redirections
            if words and words[0] in TOOLS:
                out.append(words)
    return out


def workflow() -> dict:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def workflow_commands(job_id: str = "check") -> list[list[str]]:
    lines: list[str] = []
    for job in [workflow()["jobs"][job_id]]:
        for step in job["steps"]:
            if "run" in step:
                lines += step["run"].splitlines()
    return commands(lines)


def test_workflow_is_valid_yaml_with_triggers_and_matrix():
    data = workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` key as True
    assert "pull_request" in triggers and "push" in triggers
    job = data["jobs"]["check"]
    assert job["runs-on"] == "ubuntu-latest"
    assert job["strategy"]["matrix"]["python-version"] == ["3.11", "3.12", "3.13"]
    assert any(str(step.get("uses", "")).startswith("actions/setup-python") for step in job["steps"])


def test_workflow_runs_the_same_commands_as_ci_run():
    if not CI_RUN.is_file():
        pytest.skip(".ci/run does not exist in this checkout")
    expected = commands(CI_RUN.read_text(encoding="utf-8").splitlines())
    assert expected, ".ci/run has no pip/triage/pytest commands"
    assert workflow_commands() == expected


def test_a_job_runs_the_measure_tests_on_the_cpu_build_of_torch():
    """``triage/measure`` needs torch, which the base install never pulls in: a job of its own runs it."""
    words = workflow_commands("measure")
    installs = [w for w in words if w[:2] == ["pip", "install"]]
    assert any("torch==2.13.0" in w for w in installs)
    assert any(any(".[measure" in x for x in w) for w in installs)
    assert any(w[0] == "pytest" and any("tests/measure" in x for x in w) for w in words)


def test_the_torch_job_runs_the_watcher_tests_with_its_extra():
    """tests/watch runs a tiny real Trainer under ``triage.watch``; without torch those tests skip, so the torch
    job must run them, with the ``watch`` extra installed as a user would."""
    words = workflow_commands("measure")
    installs = [w for w in words if w[:2] == ["pip", "install"]]
    assert any(any("watch" in x and x.startswith(".[") for x in w) for w in installs)
    assert any(w[0] == "pytest" and "tests/watch" in w for w in words)


def test_workflow_commands_exist_in_the_cli():
    parser, _ = build_parser()
    for words in workflow_commands():
        if words[0] == "triage":
            parser.parse_args(words[1:])  # raises UsageError on an unknown subcommand or option


def test_pre_commit_hook_lints_changed_knowledge_files():
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}
    lint = hooks["triage-kb-lint"]
    assert lint["entry"] == "triage kb lint" and lint.get("pass_filenames", True) is True
    files = re.compile(lint["files"])
    assert files.search("knowledge/causes/no_grad_ckpt/gradient-checkpointing-off.cases.yaml")
    assert files.search("knowledge/lint-exceptions.yaml")
    assert not files.search("triage/kb/lint.py") and not files.search("knowledge/schema/cause.schema.json")


@pytest.mark.parametrize("name", ["propose-rule.yml", "wrong-diagnosis.yml"])
def test_issue_forms_are_valid(name):
    form = yaml.safe_load((REPO / ".github" / "ISSUE_TEMPLATE" / name).read_text(encoding="utf-8"))
    assert form["name"] and form["description"] and form["body"]
    ids = [item["id"] for item in form["body"] if item["type"] != "markdown"]
    assert len(ids) == len(set(ids))
    for item in form["body"]:
        assert item["type"] in {"markdown", "textarea", "input", "dropdown", "checkboxes"}
        assert item["attributes"]


def test_wrong_diagnosis_form_asks_for_the_exported_report():
    form = yaml.safe_load((REPO / ".github" / "ISSUE_TEMPLATE" / "wrong-diagnosis.yml").read_text(encoding="utf-8"))
    report = next(item for item in form["body"] if item.get("id") == "report")
    assert report["type"] == "textarea" and report["validations"]["required"] is True
    assert "--format markdown" in form["body"][0]["attributes"]["value"]


def test_pull_request_template_has_the_review_bar():
    text = (REPO / ".github" / "PULL_REQUEST_TEMPLATE.md").read_text(encoding="utf-8")
    for needle in ("reference", "must fire", "stay silent", "Chinese", "triage kb lint", "triage kb docs", "kb(<id>)"):
        assert needle in text
    assert text.count("- [ ]") >= 8


def test_contributing_commands_are_real():
    """Every `triage ...` command in CONTRIBUTING.md's code blocks parses with the real CLI."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:sh|bash|shell)\n(.*?)```", text, re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    triage = [words[1:] for words in commands(lines) if words[0] == "triage"]
    assert len(triage) >= 5
    parser, _ = build_parser()
    for argv in triage:
        if argv[0].startswith("-"):  # `triage --symptom ...` means `triage diagnose --symptom ...`
            argv = ["diagnose", *argv]
        parser.parse_args(argv)
