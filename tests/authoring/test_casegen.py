"""`triage kb case-from-report`: an exported report becomes a case, appended without touching the rest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.authoring.casegen import ReportError, append_case, build_case, parse_report, render_case
from triage.authoring.kbtest import run_case
from triage.cli import main
from triage.kb.loader import load_checked
from triage.redact import redact
from triage.render.markdown import render_markdown

FIXTURES = Path(__file__).parent.parent / "fixtures"
SYMPTOM = (
    "LLaMA-7B LoRA on a 3090, max_length 2048\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
)


@pytest.fixture
def kbdir(tmp_path: Path) -> Path:
    root = tmp_path / "knowledge"
    shutil.copytree(FIXTURES / "tui" / "knowledge", root)
    return root


def export(kbdir: Path, tmp_path: Path, capsys, *args: str) -> Path:
    assert main(["--knowledge", str(kbdir), "--format", "markdown", *args]) == 0
    report = tmp_path / "wrong-diagnosis.md"
    report.write_text(capsys.readouterr().out, encoding="utf-8")
    return report


def test_cli_report_carries_the_symptom_in_a_details_section(kbdir, tmp_path, capsys):
    report = export(kbdir, tmp_path, capsys, "--symptom", SYMPTOM, "--fact", "gradient_checkpointing=false")
    text = report.read_text()
    assert text.startswith("## triage") and "| `gradient_checkpointing` | False | cli |" in text  # existing output kept
    assert "<details><summary>Symptom</summary>\n\n```symptom\nLLaMA-7B LoRA on a 3090" in text


def test_report_to_case_round_trip(kbdir, tmp_path, capsys):
    report = export(
        kbdir,
        tmp_path,
        capsys,
        "--symptom",
        SYMPTOM,
        "--fact",
        "gradient_checkpointing=false",
        "--fact",
        "max_length=2048",
    )
    code = main(
        ["kb", "--knowledge", str(kbdir), "case-from-report", str(report), "--cause", "gradient-checkpointing-off"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "appended case 'report-wrong-diagnosis'" in out
    path = kbdir / "causes" / "no_grad_ckpt" / "gradient-checkpointing-off.cases.yaml"
    assert path.read_text().startswith("# yaml-language-server: $schema=../../schema/cases.schema.json\n")
    kb = load_checked(kbdir)
    (case,) = kb.cases["gradient-checkpointing-off"].cases
    assert case.expect == "fire" and case.name == "report-wrong-diagnosis"
    assert case.symptom == SYMPTOM + "\n"
    assert case.facts == {"gradient_checkpointing": False, "max_length": 2048}
    assert run_case(kb, "gradient-checkpointing-off", case).passed


def test_wrong_diagnosis_becomes_a_failing_regression_test(kbdir, tmp_path, capsys):
    """The true cause is not the one triage picked: the new case fails `kb test` until the rule is fixed."""
    report = export(kbdir, tmp_path, capsys, "--symptom", "OOM at step 0", "--fact", "gradient_checkpointing=true")
    assert (
        main(["kb", "--knowledge", str(kbdir), "case-from-report", str(report), "--cause", "large-vocab-fp32-logits"])
        == 0
    )
    capsys.readouterr()
    assert main(["kb", "--knowledge", str(kbdir), "test", "large-vocab-fp32-logits"]) == 1
    out = capsys.readouterr().out
    assert "FAIL      large-vocab-fp32-logits::report-wrong-diagnosis" in out and "score" in out


def test_append_keeps_comments_and_layout(lint_kb):
    root = lint_kb()
    path = root / "causes" / "batch_size" / "big-batch.cases.yaml"
    original = (
        "# yaml-language-server: $schema=../../schema/cases.schema.json\n"
        "# My notes: size 8 is what people use on a 24 GB card.\n"
        "cause: big-batch\n"
        "cases:\n"
        "    - name: big   # the classic\n"
        "      expect: fire\n"
        "      facts: {size: 8}\n"
        "    - name: small\n"
        "      expect: silent\n"
        "      facts: {size: 1}\n"
        "    # TOFIX later: a case with a log excerpt"  # no newline at the end of the file
    )
    path.write_text(original, encoding="utf-8")
    kb = load_checked(root)
    report = parse_report(["```symptom\n", "batch_size=16 and CUDA OOM\n", "```\n"])
    new = build_case(kb, report, "big-batch", "from-issue-12")
    append_case(kb, "big-batch", new.case)
    text = path.read_text()
    assert text.startswith(original + "\n")
    assert text[len(original) + 1 :].startswith("    - name: from-issue-12\n")
    data = yaml.safe_load(text)
    assert [c["name"] for c in data["cases"]] == ["big", "small", "from-issue-12"]
    assert load_checked(root).cases["big-batch"].cases[-1].symptom == "batch_size=16 and CUDA OOM\n"


def test_refuses_when_cases_is_not_the_last_key(lint_kb, capsys, tmp_path):
    root = lint_kb()
    path = root / "causes" / "batch_size" / "big-batch.cases.yaml"
    original = (
        "cases:\n  - {name: big, expect: fire, facts: {size: 8}}\n  - {name: small, expect: silent}\ncause: big-batch\n"
    )
    path.write_text(original, encoding="utf-8")
    report = tmp_path / "r.md"
    report.write_text("```symptom\nbatch_size=16\n```\n", encoding="utf-8")
    assert main(["kb", "--knowledge", str(root), "case-from-report", str(report), "--cause", "big-batch"]) == 3
    assert "not the last key" in capsys.readouterr().err
    assert path.read_text() == original


def test_tui_report_in_chinese(kbdir):
    with (FIXTURES / "reports" / "tui-report-zh.md").open(encoding="utf-8") as fh:
        report = parse_report(fh)
    assert report.top_cause == "未开启梯度检查点"
    assert report.symptom is not None
    assert (
        report.symptom.startswith("Qwen2-7B 全参数微调")
        and "```yaml\nper_device_train_batch_size: 8\n```" in report.symptom
    )
    assert report.sources["batch_size"] == "config/train.yaml:12"
    kb = load_checked(kbdir)
    new = build_case(kb, report, "gradient-checkpointing-off", "zh-report", "tui-report-zh.md")
    # answer and config facts are kept; symptom-read and derived ones are recomputed; unknown or bad ones skipped
    assert new.case["facts"] == {"gradient_checkpointing": False, "batch_size": 8}
    skipped = "\n".join(new.skipped)
    for needle in ("max_length: read from the symptom", "weights_exceed_gpu: derived", "not_a_fact_any_more", "lora_r"):
        assert needle in skipped
    assert new.case["note"] == "from tui-report-zh.md; the report's first cause: 未开启梯度检查点"


def test_symptom_facts_are_kept_when_there_is_no_symptom(kbdir):
    lines = ["| fact | value | source |\n", "|---|---|---|\n", "| `max_length` | 4096 | symptom |\n"]
    new = build_case(load_checked(kbdir), parse_report(lines), "gradient-checkpointing-off", "facts-only")
    assert new.case["facts"] == {"max_length": 4096} and "symptom" not in new.case


@pytest.mark.parametrize(
    ("args", "text", "needle"),
    [
        (["--cause", "nope"], "```symptom\nx\n```\n", "no cause 'nope'"),
        (["--cause", "gradient-checkpointing-off"], "# just a title\n", "no symptom block and no usable facts"),
        (["--cause", "gradient-checkpointing-off", "--name", "Bad Name"], "```symptom\nx\n```\n", "not kebab-case"),
    ],
)
def test_bad_input_is_a_one_line_error(kbdir, tmp_path, capsys, args, text, needle):
    report = tmp_path / "r.md"
    report.write_text(text, encoding="utf-8")
    assert main(["kb", "--knowledge", str(kbdir), "case-from-report", str(report), *args]) == 3
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
    assert not (kbdir / "causes" / "no_grad_ckpt" / "gradient-checkpointing-off.cases.yaml").exists()


def test_existing_case_name_is_refused(lint_kb, tmp_path, capsys):
    root = lint_kb()
    report = tmp_path / "r.md"
    report.write_text("```symptom\nbatch_size=16\n```\n", encoding="utf-8")
    before = (root / "causes" / "batch_size" / "big-batch.cases.yaml").read_text()
    assert (
        main(["kb", "--knowledge", str(root), "case-from-report", str(report), "--cause", "big-batch", "--name", "big"])
        == 3
    )
    assert "exists already" in capsys.readouterr().err
    assert (root / "causes" / "batch_size" / "big-batch.cases.yaml").read_text() == before
    # without --name a free name is chosen
    assert main(["kb", "--knowledge", str(root), "case-from-report", str(report), "--cause", "big-batch"]) == 0
    assert main(["kb", "--knowledge", str(root), "case-from-report", str(report), "--cause", "big-batch"]) == 0
    names = [
        c["name"]
        for c in yaml.safe_load((root / "causes" / "batch_size" / "big-batch.cases.yaml").read_text())["cases"]
    ]
    assert names == ["big", "small", "report-r", "report-r-2"]


def test_unparseable_case_is_not_written(lint_kb):
    with pytest.raises(ReportError):
        build_case(load_checked(lint_kb()), parse_report([]), "big-batch", "x")


# ---------------------------------------------------------------------------- property tests

_TEXT = st.text(
    alphabet=st.sampled_from([*list("abcxyz XYZ019_=:.,-|`~#*<>/\\\n\t"), "显", "存", "£"]), min_size=1, max_size=300
)
_FACTS = st.dictionaries(
    st.sampled_from(["gradient_checkpointing", "max_length", "batch_size", "model_name", "torch_version"]),
    st.sampled_from(["False", "True", "2048", "1", "meta-llama/Llama-2-7b|hf", "2.3.1"]),
    max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(symptom=_TEXT, facts=_FACTS)
def test_markdown_report_round_trips(symptom, facts):
    data = {
        "lang": "en",
        "triage_version": "0",
        "myths": [],
        "causes": [],
        "remedies": [],
        "questions": [],
        "facts": {name: {"value": value, "source": "cli"} for name, value in facts.items()},
        "memory": {"estimated": False, "missing": "the model is unknown"},
        "inputs": {"read_as": [], "conflicts": [], "unknown_keys": [], "notes": []},
    }
    report = parse_report(render_markdown(data, symptom=symptom).splitlines(keepends=True))
    expected = redact(symptom.strip("\n"))
    assert report.symptom == (expected if expected.strip() else None)
    assert report.facts == facts
    assert set(report.sources.values()) <= {"cli"}


@settings(max_examples=100, deadline=None)
@given(symptom=_TEXT)
def test_rendered_case_parses_back(symptom):
    case = {"name": "x", "expect": "fire", "symptom": symptom, "facts": {"max_length": 2048}}
    parsed = yaml.safe_load("cases:\n" + render_case(case))
    assert parsed["cases"] == [case]
