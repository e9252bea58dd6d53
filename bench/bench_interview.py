"""The interview, played by each real report's author: top-1 after 0, 3 and 6 answers.

    python bench/bench_interview.py                    # the held-out split
    python bench/bench_interview.py --split dev --show  # the development split, with each record's questions

For each in-scope record the interview starts from the report text, its thread's title first (as ``triage
ask --symptom`` would; until 2026-12-03 the body alone) and the simulated user answers every question from
the record's ``facts`` (what its thread reveals), and "I don't know" when the thread does not say. The user
types the answer as words (``Interview.tell``, the path a typed reply takes): the fact's own value when the
thread states it ("llama2 13b", "RTX 4090", "zero3"), read by the same readers as a report, so "2x3090" also
tells two cards and a model name its size; otherwise another stated fact whose words the readers read as the
answer (the GPU's name answers "how much memory has the card?", "qlora" answers "quantized?"); and "did it
train some steps before the OOM?" is answered yes when the thread says the OOM came later (``oom_step``
later or above 0, or memory that grew, or a fine-tuning run's checkpoint save) and no when it came at step 0 or
while the model loaded (since 2026-12-07: the author of a thread that failed while loading knows no step ran).
Words the interview cannot take as the answer (a phase it has no value for) are read as free text, and the user
then says "I don't know"; since
2026-12-03 a one-line reply that names no value but tells another fact is taken as the reply (the question
is not put again), and a thread that only ran inference answers "How are you fine-tuning?" with "I'm not
fine-tuning, only running inference" (its ``finetune_method: none``).
``resolved_by_change`` (the resolution, hence the label) never answers anything. The answer counts as right
when the top cause's id or category is the record's label and some evidence, not only the prior, points at
it. "Confident" means the interview's own stop rule says nothing is worth asking, or the top cause reaches
60 %.

It also prints the ceiling: top-1 when every fact the thread states is given at once, what the
knowledge base makes of all the user could tell (a few records rank right on less, so it is not a
strict bound); what lies between it and the target is knowledge (causes and their evidence), not
the interview's choice of questions. ``--answerability`` prints the table of how often a thread answers each question
(``ANSWERED`` in :mod:`triage.engine.questions`, which the question ranking uses), counted on the
development split only.

Until 2026-12-03 the simulated user answered only with the fact's own value, untyped
(``Interview.answer(value)``), and "I don't know" to every other question.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage import api  # noqa: E402
from triage.corpus import Record, load_corpus  # noqa: E402
from triage.engine.questions import ASKED_WITHIN  # noqa: E402
from triage.facts import Fact, Source  # noqa: E402
from triage.interview import Interview, InterviewError, read_answer  # noqa: E402
from triage.kb.loader import KnowledgeBase  # noqa: E402
from triage.kb.models import FactType  # noqa: E402
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


#: What the author of a thread that only ran inference types when asked how they fine-tune.
NOT_FINE_TUNING = "I'm not fine-tuning, only running inference"

#: What the simulated user may never say: the thread's resolution is the label.
HIDDEN = frozenset({"resolved_by_change"})


def answer_words(
    kb: KnowledgeBase, record: Record, fact: str, reads: dict[str, frozenset[str]] | None = None
) -> str | None:
    """What the record's author would type to the question about ``fact`` (None: "I don't know").

    ``reads``: the facts the readers take from each stated value, kept across calls (it only saves time).
    """
    facts = {k: v for k, v in record.facts.items() if k not in HIDDEN and v is not None}
    if fact == "finetune_method" and str(facts.get(fact, "")).lower() == "none":
        return NOT_FINE_TUNING
    if fact in facts:
        return str(facts[fact])
    if fact == "trained_before_oom":
        step = str(facts.get("oom_step", "")).strip().lower()
        if step == "later" or (step.isdigit() and int(step) > 0) or facts.get("memory_growth") == "growing":
            return "yes"
        if step == "0" or facts.get("phase") == "loading":
            return "no"  # an OOM while the model loads came before any step
        if facts.get("phase") == "saving" and str(facts.get("finetune_method", "")).lower() not in ("", "none"):
            return "yes"  # a training run saves its checkpoints after steps it trained
        return None
    spec = kb.facts.get(fact)
    reads = {} if reads is None else reads
    for value in map(str, facts.values()):
        if value not in reads:
            reads[value] = frozenset(f.name for f in read_answer(kb, spec, value)[1].facts) if spec else frozenset()
        if fact in reads[value]:
            return value
    return None


#: The share of threads that must answer a question before its answers' shares stand for all users'.
REPRESENTATIVE = 0.5
#: Settings a thread states as part of its configuration (a command line, a config file), whatever their
#: value: with :data:`ENOUGH_ANSWERS` answers their stated shares stand for users' better than a uniform
#: guess does (fp32 is 17 % of the dtypes threads state, not a third). What a user observed (memory that
#: grew, steps trained, the OS) is stated when it is notable, so its shares would not.
CONFIG_SETTINGS = frozenset(
    {"torch_dtype", "distributed", "finetune_method", "quantization", "trainer_type", "attn_implementation",
     "mixed_precision", "gradient_checkpointing"}
)  # fmt: skip
ENOUGH_ANSWERS = 15


def answered_share(kb: KnowledgeBase, records: list[Record]) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """For each askable fact, the share of ``records`` whose author answers its question (two decimals),
    and for enum and yes/no facts that most threads answer (:data:`REPRESENTATIVE`), or configuration
    settings with :data:`ENOUGH_ANSWERS` answers (:data:`CONFIG_SETTINGS`), the share of each answer among
    those who answer (``ANSWER_VALUES``).

    The answer counts when :func:`answer_words` has words and the interview takes them as the answer.
    A fact asked only within a context (:data:`triage.engine.questions.ASKED_WITHIN`) is counted over
    the records in that context and stored under ``fact|context_fact=value``. A fact that no record
    names is not measured and left out (its written ``ease`` is scaled by ``UNMEASURED_SCALE``, the
    median of measured share over written ease, also returned, under that key).
    """
    named = {k for r in records for k in r.facts}
    reads: dict[str, frozenset[str]] = {}
    out: dict[str, float] = {}
    values: dict[str, dict[str, float]] = {}
    for name, spec in kb.facts.items():
        if not spec.askable:
            continue
        groups: list[tuple[str, list[Record]]] = [(name, records)]
        if name in ASKED_WITHIN:
            ctx, value = ASKED_WITHIN[name]
            groups.append((f"{name}|{ctx}={value}", [r for r in records if str(r.facts.get(ctx)) == value]))
        for key, group in groups:
            said = [w for r in group if (w := answer_words(kb, r, name, reads)) is not None]
            answers = [a for w in said if (a := read_answer(kb, spec, w)[0]) is not None]
            took = len(answers)
            # where most threads answer, or a configuration setting: an observation stated by few is stated
            # when it is notable
            common = took >= REPRESENTATIVE * len(group)
            setting = name in CONFIG_SETTINGS and took >= ENOUGH_ANSWERS
            if key == name and (common or setting) and spec.type in (FactType.enum, FactType.bool):
                counts = Counter(str(a) for a in answers)
                values[name] = {v: round(n / took, 2) for v, n in sorted(counts.items())}
            if group and (took or name in named):
                out[key] = round(took / len(group), 2)
    ratios = [share / kb.facts[k].ease for k, share in out.items() if "|" not in k and kb.facts[k].ease > 0]
    out = dict(sorted(out.items()))
    out["UNMEASURED_SCALE"] = round(statistics.median(ratios), 2)
    return out, values


def told_everything(kb: KnowledgeBase, record: Record, index: Index) -> bool:
    """Whether the top cause is right when every fact the thread states is given at once, as answers.

    The interview's ceiling with this knowledge base (not a strict one: a few records rank right on less).
    """
    start = api.read(kb, symptoms=[f"{record.title}\n{record.report}"])
    facts: list[Fact] = []
    for name, value in record.facts.items():
        spec = kb.facts.get(name)
        if name in HIDDEN or spec is None or not spec.askable or value is None:
            continue
        answer, taken = read_answer(kb, spec, str(value))
        if answer is not None:
            facts += [f for f in taken.facts if f.name != name] + [Fact(name, answer, Source("answer"))]
    iv = Interview(kb, start=start, facts=facts, lang=record.lang, similar=index, exclude=[record.url])
    return right(iv, record)


def play(kb: KnowledgeBase, record: Record, index: Index, show: bool) -> tuple[dict[int, bool], int | None]:
    """Hits at each checkpoint, and the number of questions it took to be confident (None: never, within 6)."""
    start = api.read(kb, symptoms=[f"{record.title}\n{record.report}"])
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
        words = answer_words(kb, record, question.fact)
        said = words if words is not None else "?"
        try:
            if words is None:
                iv.dont_know()
            elif iv.tell(words).kind != "answer" and iv.question is not None and iv.question.fact == question.fact:
                iv.dont_know()  # the words were read as free text and did not answer: "I don't know"
                said = f"? ({words})"
        except InterviewError:
            iv.dont_know()
            said = f"? ({words})"
        if show:
            print(f"    Q{n + 1} {question.fact} -> {said}")
        if asked_to_confident is None and confident(iv):
            asked_to_confident = n + 1
    return hits, asked_to_confident


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "heldout"], default="heldout")
    parser.add_argument("--show", action="store_true", help="print each record's questions (development split only)")
    parser.add_argument("--every", type=int, default=1, help="play every Nth record only (a quick look while working)")
    parser.add_argument(
        "--answerability",
        action="store_true",
        help="print the share of development threads that answer each question (questions.ANSWERED)",
    )
    args = parser.parse_args(argv)
    if args.answerability:
        dev = [r for r in load_corpus() if r.split == "dev" and r.scope == "in"]
        shares, values = answered_share(api.knowledge(), dev)
        scale = shares.pop("UNMEASURED_SCALE")
        for key, share in shares.items():
            print(f"    {key!r}: {share},")
        print(f"UNMEASURED_SCALE = {scale}")
        print("ANSWER_VALUES")
        for key, shares_of in values.items():
            print(f"    {key!r}: {shares_of},")
        return 0
    show = args.show and args.split == "dev"
    kb = api.knowledge()
    records = load_corpus()
    index = api.solved_reports_index(kb, [r for r in records if r.split == "dev" and r.scope == "in"])
    chosen = [r for r in records if r.split == args.split and r.scope == "in"][:: max(1, args.every)]
    tallies: dict[int, list[bool]] = {n: [] for n in CHECKPOINTS}
    steps: list[int] = []
    ceiling: list[bool] = []
    never = 0
    for record in chosen:
        if show:
            print(f"{record.url} want {record.label.cause_id or record.label.category}")
        hits, took = play(kb, record, index, show)
        ceiling.append(told_everything(kb, record, index))
        if show:
            after = " ".join(str(int(hits[n])) for n in CHECKPOINTS)
            print(f"    right after 0/3/6 answers: {after}; with every stated fact: {int(ceiling[-1])}")
        for n in CHECKPOINTS:
            tallies[n].append(hits[n])
        if took is None:
            never += 1
        else:
            steps.append(took)
    for n in CHECKPOINTS:
        print(f"top-1 after {n} answers: {statistics.fmean(tallies[n]):.3f}")
    print(f"top-1 with every stated fact given at once (the ceiling): {statistics.fmean(ceiling):.3f}")
    mean = statistics.fmean(steps) if steps else float("nan")
    print(f"questions to a confident answer: mean {mean:.2f} over {len(steps)}; not confident within 6: {never}")
    print(
        f"top1@0={statistics.fmean(tallies[0]):.3f} top1@3={statistics.fmean(tallies[3]):.3f} "
        f"top1@6={statistics.fmean(tallies[6]):.3f} n={len(chosen)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
