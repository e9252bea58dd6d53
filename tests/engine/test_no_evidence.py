"""When nothing the user gave points at a cause, the base rates must never read as a diagnosis.

Every face is checked on the same session (a bare "CUDA out of memory", English and Chinese): the JSON
says ``evidence_state: no_evidence`` and proposes no remedy (they would be advice for a guess), the
text and markdown say that no cause is indicated and show no probabilities or remedies, and the TUI's
ranking shows neither bars nor percentages. A report with evidence still gets both.
"""

from __future__ import annotations

import pytest

from triage import api
from triage.render.contract import to_dict
from triage.render.markdown import render_markdown
from triage.render.strings import t
from triage.render.text import render_text


@pytest.fixture(scope="module")
def kb():
    return api.knowledge()


def _data(kb, text: str, lang: str):
    session = api.build_session(kb, symptoms=[text], lang=lang)
    analysis = api.analyse(kb, session)
    return analysis, to_dict(kb, analysis.diagnosis, memory=analysis.memory, similar=analysis.similar)


BARE = [("torch.cuda.OutOfMemoryError: CUDA out of memory.", "en"), ("训练的时候爆显存了", "zh")]


@pytest.mark.parametrize(("text", "lang"), BARE)
def test_no_evidence_is_not_a_diagnosis_in_any_format(kb, text, lang):
    _, data = _data(kb, text, lang)
    assert data["evidence_state"] == "no_evidence"
    assert data["remedies"] == []
    assert data["questions"], "with nothing indicated, the next step is a question"
    plain = render_text(data)
    assert t("no_evidence", lang).split()[0] in plain
    assert "%" not in plain.split(t("similar", lang))[0], "no probability may be shown for a guess"
    assert t("remedies", lang) not in plain
    md = render_markdown(data)
    assert t("no_evidence", lang) in md
    assert "| # | cause |" not in md


def test_no_evidence_in_the_tui_ranking_has_no_bars(kb):
    pytest.importorskip("textual")
    from triage.tui.widgets.ranking import _cause_rows

    analysis, _ = _data(kb, "torch.cuda.OutOfMemoryError: CUDA out of memory.", "en")
    rows = _cause_rows(analysis.diagnosis, {})
    text = "\n".join(r.text for r in rows)
    assert "%" not in text and "█" not in text
    assert rows[0].text.startswith(t("no_evidence", "en")[:20])
    assert not any(r.kind == "remedy" for r in rows)


def test_evidence_still_gets_probabilities_and_remedies(kb):
    said = "LLaMA-7B LoRA, max_length 4096, no gradient checkpointing, CUDA out of memory at step 0"
    _, data = _data(kb, said, "en")
    assert data["evidence_state"] == "indicated"
    assert data["remedies"]
    assert "%" in render_text(data)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("CUDA out of memory. I tried reducing the batch size but I still get the same error.", "en"),
        ("训练的时候爆显存了，batch调小了还是OOM", "zh"),
    ],
)
def test_the_orientation_list_leaves_out_what_the_user_spoke_against(kb, text, lang):
    """Lowering the batch did not help: "per-device batch size too large" is no orientation for this user."""
    analysis, data = _data(kb, text, lang)
    assert data["evidence_state"] == "no_evidence"
    listed = [c["id"] for c in data["causes"]]
    assert listed and "micro-batch-too-large" not in listed
    assert "micro-batch-too-large" in [rc.id for rc in analysis.diagnosis.causes if not rc.scored.excluded]
    pytest.importorskip("textual")
    from triage.tui.widgets.ranking import _cause_rows

    rows = _cause_rows(analysis.diagnosis, {})
    assert "micro-batch-too-large" not in [r.entity_id for r in rows if r.kind == "cause"]
