"""The CLI: the JSON contract, the three formats and the exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from triage.cli import main
from triage.kb.models import Category

OOM = "CUDA out of memory. Tried to allocate 2.00 GiB"


def run_json(capsys, *args):
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bare_symptom_prints_the_contract(capsys):
    data = run_json(capsys, "--symptom", OOM)
    assert {"causes", "remedies", "facts", "questions"} <= set(data)
    assert data["causes"], "a bare OOM still gets a ranking"
    labels = {c.value for c in Category}
    for c in data["causes"]:
        assert {"id", "category", "title", "score", "probability", "evidence"} <= set(c)
        assert c["category"] in labels
    probs = [c["probability"] for c in data["causes"]]
    assert probs == sorted(probs, reverse=True)
    scores = [c["score"] for c in data["causes"]]
    assert scores == sorted(scores, reverse=True)
    for r in data["remedies"]:
        assert {"id", "title"} <= set(r)
    for q in data["questions"]:
        assert {"fact", "question", "gain_bits"} <= set(q)


def test_facts_carry_their_source(capsys):
    data = run_json(
        capsys, "diagnose", "--symptom", OOM, "--fact", "gradient_checkpointing=false", "--fact", "max_length=2048"
    )
    assert data["facts"]["gradient_checkpointing"] == {
        "value": False,
        "source": "cli",
        "excerpt": "gradient_checkpointing=false",
        "type": "bool",
    }
    assert data["facts"]["max_length"]["value"] == 2048
    top = data["causes"][0]
    assert top["id"] == "gradient-checkpointing-off"
    assert any(e["kind"] == "fact" and "gradient_checkpointing" in e.get("facts", []) for e in top["evidence"])
    asked = {q["fact"] for q in data["questions"]}
    assert "gradient_checkpointing" not in asked and "max_length" not in asked


def test_known_fact_rules_a_cause_out(capsys):
    data = run_json(capsys, "--symptom", OOM, "--fact", "gradient_checkpointing=true")
    assert "gradient-checkpointing-off" not in [c["id"] for c in data["causes"]]
    assert "gradient-checkpointing-off" in [c["id"] for c in data["ruled_out"]]


def test_top_limits_the_ranking(capsys):
    assert len(run_json(capsys, "--symptom", OOM, "--top", "1")["causes"]) == 1


def test_stdin_dash(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("no gradient checkpointing, OOM at step 0"))
    data = run_json(capsys, "diagnose", "-")
    assert data["causes"][0]["id"] == "gradient-checkpointing-off"


def test_symptom_file(tmp_path, capsys):
    f = tmp_path / "s.txt"
    f.write_text("没开梯度检查点，第一步就爆显存", encoding="utf-8")
    data = run_json(capsys, "diagnose", "--symptom-file", str(f), "--lang", "zh")
    assert data["lang"] == "zh"
    assert data["causes"][0]["title"] == "未开启梯度检查点"


def test_text_fits_80_columns(capsys):
    assert main(["--symptom", OOM + " no gradient checkpointing at step 0, max_length 2048"]) == 0
    out = capsys.readouterr().out
    assert "Likely causes" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_markdown(capsys):
    assert main(["--symptom", OOM + " at step 0, no gradient checkpointing", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## triage") and "| # | cause |" in out


def test_a_bare_oom_is_not_answered_with_the_prior(capsys):
    """With nothing pointing at a cause, no format presents the base rates as a diagnosis."""
    for fmt in ("text", "markdown"):
        assert main(["--symptom", OOM, "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "No cause is indicated yet" in out
        assert "| # | cause |" not in out and "%" not in out.split("What to change")[0].split("Similar")[0]
    assert main(["--symptom", OOM, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["evidence_state"] == "no_evidence"


@pytest.mark.parametrize(
    ("argv", "code", "needle"),
    [
        (["diagnose"], 3, "nothing to diagnose"),
        (["--symptom", "x", "--fact", "nonsense=1"], 3, "unknown fact 'nonsense'"),
        (["--symptom", "x", "--fact", "max_length=long"], 3, "max_length"),
        (["--symptom", "x", "--fact", "noequals"], 3, "NAME=VALUE"),
        (["--symptom-file", "/nonexistent/file.txt"], 3, "cannot read /nonexistent/file.txt"),
        (["--symptom", "x", "--format", "yaml"], 2, "invalid choice"),
        (["--symptom", "x", "--top", "0"], 2, "--top"),
        (["--bogus"], 2, "unrecognized arguments"),
        (["explain", "no-such-thing"], 3, "no entity 'no-such-thing'"),
        (["kb", "test", "no-such-cause"], 3, "no cause"),
    ],
)
def test_errors_are_one_line_with_exit_code(capsys, argv, code, needle):
    assert main(argv) == code
    err = capsys.readouterr().err
    assert needle in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_explain(capsys):
    assert main(["explain", "gradient-checkpointing-off"]) == 0
    out = capsys.readouterr().out
    assert "Why it happens" in out and "https://" in out
    assert main(["explain", "gradient-checkpointing-off", "--lang", "zh"]) == 0
    assert "为什么会发生" in capsys.readouterr().out


def test_python_dash_m_and_no_textual_on_cli_path():
    code = (
        "import sys; sys.argv=['triage','--symptom','CUDA out of memory','--format','json'];"
        "from triage.cli import main; rc = main();"
        "assert 'textual' not in sys.modules, 'textual imported'; sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["causes"]
    proc = subprocess.run([sys.executable, "-m", "triage", "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("triage ")


def test_no_arguments_without_a_terminal_prints_usage():
    proc = subprocess.run(
        [sys.executable, "-m", "triage"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    assert proc.returncode == 2 and "usage:" in proc.stderr


def test_a_huge_symptom_file_is_refused_not_cut(tmp_path, capsys):
    big = tmp_path / "big.txt"
    big.write_text("x" * 1_000_001, encoding="utf-8")
    assert main(["diagnose", "--symptom-file", str(big)]) == 3
    assert "--log" in capsys.readouterr().err


def test_a_serving_report_is_said_to_be_out_of_scope(capsys):
    """An inference server is not answered with fine-tuning advice (a record of the corpus' dev split, abridged)."""
    said = "python -m vllm.entrypoints.openai.api_server --max-model-len 65536, then CUDA out of memory"
    assert main(["--symptom", said]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    assert "does not cover" in flat and "What to change" not in flat and "gradient checkpointing" not in flat.lower()
    assert main(["--symptom", said, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["evidence_state"] == "out_of_scope"


def test_a_bug_in_triage_is_one_line_and_exit_70_not_a_traceback(capsys, monkeypatch):
    """A reader bug on plain prose once gave a traceback (KeyError on 'max sequence length from A to B')."""
    import triage.cli.cmd_diagnose as diagnose

    def broken(args):
        raise KeyError("maxsequencelength")

    monkeypatch.setattr(diagnose, "run", broken)
    monkeypatch.delenv("TRIAGE_DEBUG", raising=False)
    assert main(["--symptom", OOM]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (KeyError" in err and "TRIAGE_DEBUG=1" in err
    assert "Traceback" not in err
    monkeypatch.setenv("TRIAGE_DEBUG", "1")
    with pytest.raises(KeyError):
        main(["--symptom", OOM])
