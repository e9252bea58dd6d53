"""No secret leaves through any path out: text, JSON, markdown, the interview report (TUI export and
``triage ask --report``), ``triage estimate``; and no control sequence from the input reaches the terminal.

Every form of tests/fixtures/secrets/corpus.yaml goes in as the user would give it: pasted text, a
line of a log, a value in a config file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_redact import CORPUS
from triage import api
from triage.cli import main
from triage.render.report import render_report

ALL_TEXT = "\n".join(text for _id, text, _secrets in CORPUS)
ALL_SECRETS = sorted({s for _id, _text, secrets in CORPUS for s in secrets}, key=len)
SYMPTOM = "LLaMA-7B LoRA on a 3090, CUDA out of memory at step 0\n" + ALL_TEXT


def leaks(out: str) -> list[str]:
    return [s for s in ALL_SECRETS if s in out]


def test_the_corpus_has_at_least_50_forms():
    assert len(CORPUS) >= 50


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("secrets")
    log = root / "train.log"
    log.write_text(ALL_TEXT + "\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    config = root / "args.json"
    values = {f"note_{n}": text for n, (_id, text, _s) in enumerate(CORPUS)}
    config.write_text(json.dumps({"per_device_train_batch_size": 4, "hub_token": ALL_SECRETS[-1], **values}))
    symptom = root / "symptom.txt"
    symptom.write_text(SYMPTOM)
    return {"log": log, "config": config, "symptom": symptom}


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_diagnose_leaks_nothing_in_any_format(fmt, files, capsys):
    code = main(
        [
            "diagnose",
            "--symptom-file",
            str(files["symptom"]),
            "--log",
            str(files["log"]),
            "--config",
            str(files["config"]),
            "--format",
            fmt,
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert not leaks(out)
    if fmt == "json":
        json.loads(out)  # still valid JSON after redaction


def test_estimate_leaks_nothing(files, capsys):
    main(["estimate", "--model", "llama2-7b", "--gpu", "3090", "--config", str(files["config"]), "--format", "json"])
    main(["estimate", "--model", "llama2-7b", "--gpu", "3090", "--config", str(files["config"])])
    assert not leaks(capsys.readouterr().out)


def test_the_interview_report_leaks_nothing(kb):
    """The markdown report is what the TUI exports and ``triage ask --report`` writes."""
    iv = api.start_interview(kb, api.read(kb, symptoms=[SYMPTOM]))
    iv.tell(ALL_TEXT)
    report = render_report(kb, iv.diagnosis, memory=iv.memory, transcript=iv.transcript(), pasted=iv.pasted())
    assert not leaks(report)


HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZWNobyBwd25lZA==\x07"


def test_no_control_sequence_from_the_input_reaches_the_terminal(tmp_path, capsys):
    config = tmp_path / "args.json"
    config.write_text(json.dumps({"per_device_train_batch_size": 4, HOSTILE + "key": HOSTILE + "value"}))
    for fmt in ("text", "markdown"):
        main(["diagnose", "--config", str(config), "--symptom", "CUDA out of memory " + HOSTILE, "--format", fmt])
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x07" not in out
    main(["diagnose", "--config", str(config), "--symptom", "CUDA out of memory " + HOSTILE, "--format", "json"])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
