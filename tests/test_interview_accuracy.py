"""The interview on real reports: answering its questions must make the diagnosis better, not worse.

``bench/bench_interview.py`` plays each development record's author (answers from the thread's facts,
"don't know" otherwise); its full figures are printed by the bench. Here every second in-scope
development record is played (a fixed subset, to keep the test near two minutes), and top-1 after
six answers must stay above a floor a little below the measured figure, and above top-1 before any
answer. (Every fifth record, 57 of them, was used until 2026-12-03: there one record's flip moved
either figure by 1.75 points, and it read "worse" while the whole development split read 0.502 ->
0.523. Every third record, 256 of them, was used until 2026-12-05, when it read 0.508 -> 0.500 while
the whole split read 0.499 -> 0.526 and every second record 0.501 -> 0.540: three records whose sixth
question changed, the same noise.)
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest

from triage import api
from triage.corpus import load_corpus

ROOT = Path(__file__).resolve().parent.parent
#: top-1 after six answers on the subset: measured 0.463 on 160 records (0.406 before any answer) when this
#: floor was set (3 December 2026, fifth session, after 154 more unseen records joined; 0.512 on the 129 of
#: the session before). Full figures: bench/bench_interview.py. Raised from 0.44 to 0.47 in the ninth session
#: (4 December 2026): 0.496 on 244 records (0.455 before any answer), 730 development records voting.
#: Lowered to 0.46 in the tenth session, when 36 development records joined and the every-third subset
#: changed: 0.473 on its 256 records (0.449 before any answer), while the same code scores 0.496 on the
#: ninth session's 244; one record is 0.004, so 0.47 would have left less than a record's margin.
#: Fifteenth session (5 December 2026), every second record: 0.540 on 383 (0.501 before any answer); raised to 0.51.
FLOOR_AFTER_6 = 0.51


@pytest.fixture(scope="module")
def played(kb):
    sys.path.insert(0, str(ROOT))
    from bench.bench_interview import play

    records = load_corpus()
    index = api.solved_reports_index(kb, [r for r in records if r.split == "dev" and r.scope == "in"])
    subset = [r for r in records if r.split == "dev" and r.scope == "in"][::2]
    return [play(kb, r, index, False)[0] for r in subset]


def test_answers_lift_top1_above_the_floor(played):
    before = statistics.fmean(h[0] for h in played)
    after = statistics.fmean(h[6] for h in played)
    assert after >= FLOOR_AFTER_6, f"top-1 after 6 answers = {after:.3f}"
    assert after >= before, f"answering made it worse: {before:.3f} -> {after:.3f}"


def test_the_answerability_table_is_what_the_development_threads_answer(kb):
    """``ANSWERED`` (how likely a user can answer each question) is re-counted from the corpus: a record
    added or changed, or a reader that now reads more of what users type, must regenerate it
    (``python bench/bench_interview.py --answerability``)."""
    sys.path.insert(0, str(ROOT))
    from bench.bench_interview import answered_share
    from triage.engine.questions import ANSWER_VALUES, ANSWERED, UNMEASURED_SCALE

    dev = [r for r in load_corpus() if r.split == "dev" and r.scope == "in"]
    counted, values = answered_share(kb, dev)
    assert counted.pop("UNMEASURED_SCALE") == UNMEASURED_SCALE
    assert counted == dict(ANSWERED)
    assert values == {k: dict(v) for k, v in ANSWER_VALUES.items()}
