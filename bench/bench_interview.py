"""The interview, played by each real report's author: top-1 after 0, 3 and 6 answers.

    python bench/bench_interview.py                    # the held-out split
    python bench/bench_interview.py --split dev --show  # the development split, with each record's questions

For each in-scope record the interview starts from the report text (as ``triage ask --symptom``
would) and the simulated user answers every question from the record's ``facts`` (what its thread
reveals), and "I don't know" when the thread does not say. A value the fact cannot take (the
phase "training", which does not say forward or backward) is also "I don't know". The answer
counts as right when the top cause's id or category is the record's label and some evidence, not
only the prior, points at it. "Confident" means the interview's own stop rule says nothing is
worth asking, or the top cause reaches 60 %.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage import api  # noqa: E402
from triage.corpus import Record, load_corpus  # noqa: E402
from triage.interview import Interview, InterviewError  # noqa: E402
from triage.kb.loader import KnowledgeBase  # noqa: E402
from triage.render.contract import evidence_state  # noqa: E402
from triage.similar import Index  # noqa: E402

CHECKPOINTS = (0, 3, 6)
CONFIDENT = 0.6


def right(iv: Interview, record: Record) -> bool:
    diagnosis = iv.diagnosis
    if evidence_state(diagnosis) != "indicated":
        return False
    live = [rc for rc in diagnosis.causes if not rc.scored.excluded]
    if not live:
        return False
    top = live[0]
    return top.id in record.cause_ids(False) or top.scored.cause.category.value in record.categories(False)


def confident(iv: Interview) -> bool:
    live = [rc for rc in iv.diagnosis.causes if not rc.scored.excluded]
    return iv.done or (bool(live) and live[0].probability >= CONFIDENT)


def play(kb: KnowledgeBase, record: Record, index: Index, show: bool) -> tuple[dict[int, bool], int | None]:
    """Hits at each checkpoint, and the number of questions it took to be confident (None: never, within 6)."""
    start = api.read(kb, symptoms=[record.report])
    # only development records vote as similar reports, and the author's own never does
    iv = api.start_interview(kb, start, lang=record.lang, similar=index, exclude=[record.url])
    hits: dict[int, bool] = {}
    asked_to_confident = 0 if confident(iv) else None
    for n in range(max(CHECKPOINTS) + 1):
        if n in CHECKPOINTS:
            hits[n] = right(iv, record)
        question = iv.question
        if question is None or n == max(CHECKPOINTS):
            for later in CHECKPOINTS:
                hits.setdefault(later, right(iv, record))
            break
        value = record.facts.get(question.fact)
        try:
            if value is None:
                iv.dont_know()
                said = "?"
            else:
                iv.answer(value)
                said = str(value)
        except InterviewError:
            iv.dont_know()
            said = f"? ({value})"
        if show:
            print(f"    Q{n + 1} {question.fact} -> {said}")
        if asked_to_confident is None and confident(iv):
            asked_to_confident = n + 1
    return hits, asked_to_confident


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "heldout"], default="heldout")
    parser.add_argument("--show", action="store_true", help="print each record's questions (development split only)")
    args = parser.parse_args(argv)
    show = args.show and args.split == "dev"
    kb = api.knowledge()
    records = load_corpus()
    index = Index([r for r in records if r.split == "dev" and r.scope == "in"])
    chosen = [r for r in records if r.split == args.split and r.scope == "in"]
    tallies: dict[int, list[bool]] = {n: [] for n in CHECKPOINTS}
    steps: list[int] = []
    never = 0
    for record in chosen:
        if show:
            print(f"{record.url} want {record.label.cause_id or record.label.category}")
        hits, took = play(kb, record, index, show)
        for n in CHECKPOINTS:
            tallies[n].append(hits[n])
        if took is None:
            never += 1
        else:
            steps.append(took)
    for n in CHECKPOINTS:
        print(f"top-1 after {n} answers: {statistics.fmean(tallies[n]):.3f}")
    mean = statistics.fmean(steps) if steps else float("nan")
    print(f"questions to a confident answer: mean {mean:.2f} over {len(steps)}; not confident within 6: {never}")
    print(
        f"top1@0={statistics.fmean(tallies[0]):.3f} top1@3={statistics.fmean(tallies[3]):.3f} "
        f"top1@6={statistics.fmean(tallies[6]):.3f} n={len(chosen)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
