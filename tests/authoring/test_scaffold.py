"""`triage kb new`: templates land in the right place, fail lint while blanks remain, pass once filled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from triage.authoring.kbtest import iter_cases, run_case
from triage.authoring.lint import lint_dir
from triage.cli import main
from triage.kb.loader import load_checked

HEADER_PREFIX = "# yaml-language-server: $schema="

# What a contributor would write in place of each blank (by the field path in the YAML data).
FILL: dict[str, dict[tuple[Any, ...], Any]] = {
    "cause": {
        ("title", "en"): "Flag left on during training",
        ("title", "zh"): "训练时开关没有关",
        ("summary", "en"): "The flag keeps an extra copy of every activation, so memory doubles.",
        ("summary", "zh"): "开关会为每个激活多保存一份，显存翻倍。",
        ("explanation", "what", "en"): "An extra copy of the activations.",
        ("explanation", "what", "zh"): "激活多保存了一份。",
        ("explanation", "why", "en"): "The flag asks autograd to keep both copies.",
        ("explanation", "why", "zh"): "这个开关让 autograd 同时保留两份。",
        ("explanation", "confirm", "en"): "Look for flag=True in the config.",
        ("explanation", "confirm", "zh"): "在配置里找 flag=True。",
        ("explanation", "known_problems", "en"): "A big batch looks the same.",
        ("explanation", "known_problems", "zh"): "batch 太大时看起来也一样。",
        ("when", 0, "test"): {"fact": "flag", "op": "eq", "value": True},
        ("when", 0, "label", "en"): "the flag is on",
        ("when", 0, "label", "zh"): "开关是打开的",
        ("signals", 0, "patterns"): [r"\bflag\s*=\s*true\b"],
        ("signals", 0, "label"): "the text says the flag is on",
        ("signals", 1, "patterns"): ["开关打开", "开了开关"],
        ("signals", 1, "label"): "文本说开关打开",
        ("signals", 1, "weight"): 2.5,
        ("remedies",): ["smaller-batch"],
        ("references", 0, "url"): "https://pytorch.org/docs/stable/notes/cuda.html",
        ("references", 0, "title"): "PyTorch CUDA semantics",
        ("prior",): 0.1,
    },
    "cases": {
        ("cases", 0, "symptom"): "CUDA out of memory with flag=True in my config\n",
        ("cases", 0, "facts"): {"flag": True},
        ("cases", 1, "symptom"): "我把开关打开了，然后就 CUDA out of memory\n",
        ("cases", 2, "symptom"): "batch_size=32 and CUDA out of memory\n",
        ("cases", 2, "facts"): {"flag": False},
    },
    "remedy": {
        ("title", "en"): "Turn the flag off",
        ("title", "zh"): "关闭开关",
        ("summary", "en"): "Keep one copy of the activations.",
        ("summary", "zh"): "只保留一份激活。",
        ("steps",): {"hf_trainer": "flag=False"},
        ("changes",): {"flag": False},
        ("cost", "note", "en"): "Nothing lost.",
        ("cost", "note", "zh"): "没有损失。",
        ("references", 0, "url"): "https://pytorch.org/docs/stable/notes/cuda.html",
        ("references", 0, "title"): "PyTorch CUDA semantics",
    },
    "myth": {
        ("claim", "en"): "The flag saves memory.",
        ("claim", "zh"): "开关能省显存。",
        ("correction", "en"): "It doubles the activations.",
        ("correction", "zh"): "它会让激活翻倍。",
        ("signals", 0, "patterns"): [r"flag\s+saves\s+memory"],
        ("signals", 1, "patterns"): ["开关省显存"],
        ("references", 0, "url"): "https://pytorch.org/docs/stable/notes/cuda.html",
        ("references", 0, "title"): "PyTorch CUDA semantics",
    },
}


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def _blanks(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _blanks(v, (*path, k))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _blanks(v, (*path, i))]
    return [path] if isinstance(data, str) and "TODO" in data else []


def fill(path: Path, kind: str) -> None:
    """Fill every blank the way a contributor would, keeping the $schema comment."""
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    for where, value in FILL[kind].items():
        _set(data, where, value)
    assert _blanks(data) == [], f"the test does not fill every blank of {path.name}"
    header = text.splitlines()[0]
    path.write_text(header + "\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def new(root: Path, *args: str) -> int:
    return main(["kb", "--knowledge", str(root), "new", *args])


def test_new_cause_writes_template_and_cases_in_the_category_folder(lint_kb, capsys):
    root = lint_kb()
    assert new(root, "cause", "flag-left-on", "--category", "batch_size") == 0
    cause = root / "causes" / "batch_size" / "flag-left-on.yaml"
    cases = root / "causes" / "batch_size" / "flag-left-on.cases.yaml"
    assert f"wrote {cause}" in capsys.readouterr().out
    assert cause.read_text().startswith(HEADER_PREFIX + "../../schema/cause.schema.json\n")
    assert cases.read_text().startswith(HEADER_PREFIX + "../../schema/cases.schema.json\n")
    data = yaml.safe_load(cause.read_text())
    for section in ("title", "summary", "explanation", "prior", "when", "signals", "remedies", "references"):
        assert section in data, section
    assert set(data["explanation"]) == {"what", "why", "confirm", "known_problems"}
    expects = [c["expect"] for c in yaml.safe_load(cases.read_text())["cases"]]
    assert expects.count("fire") == 2 and "silent" in expects


@pytest.mark.parametrize(("kind", "folder"), [("remedy", "remedies"), ("myth", "myths")])
def test_new_remedy_and_myth(lint_kb, kind, folder):
    root = lint_kb()
    assert new(root, kind, f"my-{kind}") == 0
    path = root / folder / f"my-{kind}.yaml"
    assert path.read_text().startswith(HEADER_PREFIX + f"../schema/{kind}.schema.json\n")
    assert yaml.safe_load(path.read_text())["id"] == f"my-{kind}"


def test_blanks_fail_lint_with_only_the_blank_message(lint_kb):
    root = lint_kb()
    assert new(root, "cause", "flag-left-on", "--category", "batch_size") == 0
    assert new(root, "remedy", "flag-off") == 0
    assert new(root, "myth", "flag-saves-memory") == 0
    _, problems = lint_dir(root)
    assert problems, "an unfilled template must not pass lint"
    assert {p.code for p in problems} == {"KB020"}
    assert {p.path for p in problems} == {
        "causes/batch_size/flag-left-on.yaml",
        "causes/batch_size/flag-left-on.cases.yaml",
        "remedies/flag-off.yaml",
        "myths/flag-saves-memory.yaml",
    }
    title = next(p for p in problems if p.path.endswith("flag-left-on.yaml") and "name the condition" in p.message)
    assert title.line == 9 and "TODO" in title.render() and "replace the TODO" in title.render()


def test_filled_templates_pass_lint_and_the_cases_pass(lint_kb):
    root = lint_kb()
    assert new(root, "cause", "flag-left-on", "--category", "batch_size") == 0
    assert new(root, "remedy", "flag-off") == 0
    assert new(root, "myth", "flag-saves-memory") == 0
    fill(root / "causes" / "batch_size" / "flag-left-on.yaml", "cause")
    fill(root / "causes" / "batch_size" / "flag-left-on.cases.yaml", "cases")
    fill(root / "remedies" / "flag-off.yaml", "remedy")
    fill(root / "myths" / "flag-saves-memory.yaml", "myth")
    _, problems = lint_dir(root)
    assert problems == [], "\n".join(p.render() for p in problems)
    kb = load_checked(root)
    results = [run_case(kb, cid, case) for cid, case in iter_cases(kb, "flag-left-on")]
    assert len(results) == 3 and all(r.passed for r in results), [r.reason for r in results]


def test_partly_filled_file_still_reports_the_remaining_blank(lint_kb):
    root = lint_kb()
    assert new(root, "remedy", "flag-off") == 0
    path = root / "remedies" / "flag-off.yaml"
    fill(path, "remedy")
    path.write_text(path.read_text().replace("Turn the flag off", "TODO name the change"), encoding="utf-8")
    _, problems = lint_dir(root)
    assert [(p.code, p.path) for p in problems] == [("KB020", "remedies/flag-off.yaml")]


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["cause", "x-y"], 2, "needs --category"),
        (["cause", "x-y", "--category", "nope"], 2, "unknown category 'nope'"),
        (["remedy", "x-y", "--category", "batch_size"], 2, "only causes have a category"),
        (["remedy", "Not_Kebab"], 2, "not kebab-case"),
        (["remedy", "smaller-batch"], 3, "already used by remedies/smaller-batch.yaml"),
        (["myth", "big-batch"], 3, "already used by causes/batch_size/big-batch.yaml"),
    ],
)
def test_bad_requests_are_one_line_errors(lint_kb, capsys, args, code, needle):
    root = lint_kb()
    before = sorted(p.read_text() for p in root.rglob("*.yaml"))
    assert new(root, *args) == code
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
    assert sorted(p.read_text() for p in root.rglob("*.yaml")) == before


def test_never_overwrites_an_existing_file(lint_kb, capsys):
    root = lint_kb()
    stray = root / "remedies" / "flag-off.yaml"
    stray.write_text("# my notes, not yet an entity\n", encoding="utf-8")
    assert new(root, "remedy", "flag-off") == 3
    assert "exists already" in capsys.readouterr().err
    assert stray.read_text() == "# my notes, not yet an entity\n"
