"""One typed output: the JSON contract validates, its schema is fresh, and every format says a saving the same way."""

from __future__ import annotations

import json
import pathlib

import pytest

from triage import api
from triage.authoring.kbtest import iter_cases
from triage.facts import Source
from triage.render.contract import to_dict
from triage.render.labels import GIB, saving_label
from triage.render.markdown import render_markdown
from triage.render.output import SCHEMA_PATH, schema, validated
from triage.render.text import render_text
from triage.tui.whatif import saving_label as tui_saving_label

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_committed_schema_is_fresh():
    assert (ROOT / SCHEMA_PATH).read_text(encoding="utf-8") == schema(), "run `python -m triage.render.output`"


def test_a_remedy_that_costs_memory_reads_costs_everywhere():
    assert saving_label(-2.2, "en") == "costs 2.2 GiB"
    assert saving_label(-2.2, "zh") == "多用 2.2 GiB"
    assert saving_label(0.01, "en") == "saves ~0 on this run"
    assert saving_label(11.34, "en") == "saves 11.3 GiB"
    assert tui_saving_label(int(-2.2 * GIB), "en") == "costs 2.2 GiB"


@pytest.fixture(scope="module")
def rendered(kb):
    """Every case of the knowledge base, through the user's path, in both languages."""
    out = []
    for n, (_cause, case) in enumerate(iter_cases(kb)):
        lang = "zh" if n % 2 else "en"
        facts = api.facts_from_mapping(kb, case.facts, Source("case", excerpt=case.name))
        session = api.build_session(kb, symptoms=[case.symptom or ""], facts=facts, lang=lang)
        analysis = api.analyse(kb, session)
        data = to_dict(kb, analysis.diagnosis, top=5, memory=analysis.memory)
        out.append((case.name, lang, data, render_text(data), render_markdown(data)))
    return out


def test_every_case_gives_strict_valid_json(rendered):
    for _name, _lang, data, _text, _md in rendered:
        assert validated(data) == json.loads(json.dumps(data)), "the contract's types must not change the data"
        json.dumps(data, allow_nan=False)
        assert data["schema_version"]
        assert data["evidence_state"] in ("indicated", "no_evidence")


def test_every_format_says_the_same_saving_with_the_same_sign(rendered):
    checked = costs = 0
    for name, lang, data, text, md in rendered:
        flat_text = "".join(text.split())  # wrapping may break a line anywhere in Chinese
        for remedy in data["remedies"]:
            label = saving_label(remedy["saving_gib"], lang)
            if label is None:
                continue
            checked += 1
            costs += remedy["saving"] == "costs"
            assert "[" + "".join(label.split()) + "]" in flat_text, (name, remedy["id"], label)
            assert f"({label})" in md, (name, remedy["id"], label)
            tui = tui_saving_label(round(remedy["saving_gib"] * GIB), lang)
            assert tui == label, (name, remedy["id"], tui, label)
    assert checked > 100
    assert costs > 0, "no case has a remedy that costs memory: the sign is not exercised"
