"""What the corpus supports without triage's knowledge: learned baselines on the development split.

    python bench/bench_baselines.py

Each baseline names a cause category for every in-scope development record, learning only from
the other development records (10 folds by a hash of the URL, or leave-one-out), and is scored
like ``bench/bench_accuracy.py`` scores triage (top-1 / top-3 on the primary label's category):

- ``majority``: the most common categories of the other records, whatever the report says;
- ``text-nb``: multinomial naive Bayes on the report's terms (the title and first post, the terms of
  :func:`triage.similar.terms`), 10-fold;
- ``similar``: the ten nearest solved reports (:meth:`triage.similar.Index.nearest`, weighted by
  similarity; the vote triage added to its ranking until December 2026), leave-one-out;
- ``word-model``: the complement naive Bayes model of :meth:`triage.similar.Index.shares` over the
  same vectors, leave-one-out (a record and its resolution sentence leave together), from the reports
  and how their threads were resolved;
- ``word-model+cases``: the same taught by the knowledge base's worked cases too
  (:func:`triage.pipeline.worked_examples`; the evidence triage adds to its ranking since December 2026),
  and ``word-model+far-cases`` without the cases that read like any development report (similarity of
  at least 0.3): some cases were written after reading development reports, so the first is flattered
  on this split and the second is the fairer figure for a new report;
- ``facts-nb``: naive Bayes on the facts the whole thread states (phase, method, model, GPU,
  counts, ...), 10-fold. Those are facts a perfect reader with every answer of the thread would
  have, so this is what the corpus' facts support without knowledge of the mechanisms.

Compare with triage on the same split (``python bench/bench_accuracy.py --split dev --no-write``) and
with the ceiling of the interview (``bench/bench_interview.py``: every stated fact given at once).
Held-out records are never read. The last line is
``text_nb=.. similar=.. word_model=.. word_model+cases=.. facts_nb=.. n=..`` (top-1).
"""

from __future__ import annotations

import hashlib
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage import api  # noqa: E402
from triage.corpus import Record, load_corpus  # noqa: E402
from triage.pipeline import worked_examples  # noqa: E402
from triage.similar import Example, Index, terms  # noqa: E402

#: A worked case at least this similar to a development report may have been written from it.
NEAR_CASE = 0.3

FOLDS = 10
#: How many nearest reports vote in the ``similar`` baseline.
VOTERS = 10
#: Facts of a record that say how the thread ended or where it ran, not what the run was.
_NOT_RUN_FACTS = frozenset({"resolved_by_change", "os", "notes"})

Ranker = Callable[[Record], list[str]]


def _fold(record: Record) -> int:
    return int(hashlib.sha256(record.url.encode()).hexdigest(), 16) % FOLDS


def text_features(record: Record) -> set[str]:
    return set(terms(f"{record.title}\n{record.report}"))


def fact_features(record: Record) -> set[str]:
    """``name=value`` for words, ``name~k`` (k = log2 bucket) for numbers, and ``has:name``."""
    out = set()
    for name, value in record.facts.items():
        if name in _NOT_RUN_FACTS:
            continue
        if isinstance(value, bool | str):
            out.add(f"{name}={str(value).lower()[:30]}")
        elif isinstance(value, int | float) and value >= 0:
            out.add(f"{name}~{int(math.log2(value + 1))}")
        out.add(f"has:{name}")
    return out


def naive_bayes(
    train: Sequence[Record], features: Callable[[Record], set[str]], alpha: float, multinomial: bool = False
) -> Ranker:
    """Naive Bayes over the features present in a record, Laplace-smoothed.

    ``multinomial=False`` (for facts, a few features): P(feature | category) is the share of the
    category's records that have it. ``multinomial=True`` (for text: many terms, most absent from any
    one report): the share of the category's term occurrences, over the terms seen in training.
    """
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    per_category = Counter(r.label.category for r in train)
    for record in train:
        counts[record.label.category].update(features(record))
    vocabulary = {f for c in counts.values() for f in c}
    denominator = {
        cat: math.log(sum(counts[cat].values()) + alpha * len(vocabulary) if multinomial else n + 2 * alpha)
        for cat, n in per_category.items()
    }

    def rank(record: Record) -> list[str]:
        present = features(record) & vocabulary if multinomial else features(record)
        score = {
            cat: math.log(n) + sum(math.log(counts[cat][f] + alpha) - denominator[cat] for f in present)
            for cat, n in per_category.items()
        }
        return sorted(score, key=lambda c: (-score[c], c))

    return rank


def by_weight(weights: Mapping[str, float]) -> list[str]:
    """Categories, heaviest first (ties by name)."""
    return sorted(weights, key=lambda c: (-weights[c], c))


def majority(train: Sequence[Record]) -> Ranker:
    order = by_weight(Counter(r.label.category for r in train))
    return lambda record: order


def cross_validated(records: Sequence[Record], fit: Callable[[Sequence[Record]], Ranker]) -> list[list[str]]:
    """Each record ranked by a model fitted on the other folds."""
    ranked: dict[str, list[str]] = {}
    for k in range(FOLDS):
        model = fit([r for r in records if _fold(r) != k])
        for record in records:
            if _fold(record) == k:
                ranked[record.url] = model(record)
    return [ranked[r.url] for r in records]


def similar_alone(records: Sequence[Record]) -> list[list[str]]:
    """The categories of the ten nearest other records, by summed similarity (leave-one-out)."""
    index = Index(records)
    out = []
    for record in records:
        weight: defaultdict[str, float] = defaultdict(float)
        for nb in index.nearest(f"{record.title}\n{record.report}", k=VOTERS, exclude=[record.url]):
            weight[nb.record.label.category] += nb.similarity
        out.append(by_weight(weight))
    return out


def word_model_alone(records: Sequence[Record], examples: Sequence[Example] = ()) -> list[list[str]]:
    """The categories by the word model's shares, each record left out of the model that ranks it."""
    index = Index(records, examples)
    out = []
    for record in records:
        shares = index.shares(f"{record.title}\n{record.report}", exclude=[record.url])
        out.append(by_weight(shares))
    return out


def score(records: Sequence[Record], ranked: Iterable[list[str]]) -> tuple[float, float]:
    pairs = list(zip(records, ranked, strict=True))
    top1 = sum(1 for r, cats in pairs if cats[:1] == [r.label.category]) / len(pairs)
    top3 = sum(1 for r, cats in pairs if r.label.category in cats[:3]) / len(pairs)
    return top1, top3


def far_examples(records: Sequence[Record], examples: Sequence[Example]) -> list[Example]:
    """The worked cases that read like none of ``records`` (similarity below :data:`NEAR_CASE`)."""
    reports = Index(records)
    return [e for e in examples if not reports.nearest(e.text, k=1, min_similarity=NEAR_CASE)]


def main() -> int:
    records = [r for r in load_corpus() if r.split == "dev" and r.scope == "in"]
    examples = worked_examples(api.knowledge())
    far = far_examples(records, examples)
    results = {
        "majority": score(records, cross_validated(records, majority)),
        "text-nb": score(
            records, cross_validated(records, lambda tr: naive_bayes(tr, text_features, 0.3, multinomial=True))
        ),
        "similar": score(records, similar_alone(records)),
        "word-model": score(records, word_model_alone(records)),
        "word-model+cases": score(records, word_model_alone(records, examples)),
        "word-model+far-cases": score(records, word_model_alone(records, far)),
        "facts-nb": score(records, cross_validated(records, lambda tr: naive_bayes(tr, fact_features, 0.2))),
    }
    categories = len({r.label.category for r in records})
    print(f"development split: {len(records)} in-scope records, {categories} categories")
    print(f"{len(examples)} worked cases, {len(far)} of them far from every development report\n")
    print("| baseline | top-1 | top-3 |\n|---|---|---|")
    for name, (top1, top3) in results.items():
        print(f"| {name} | {top1:.3f} | {top3:.3f} |")
    print()
    line = " ".join(
        f"{name.replace('-', '_')}={results[name][0]:.3f}"
        for name in ("text-nb", "similar", "word-model", "word-model+cases", "facts-nb")
    )
    print(f"{line} n={len(records)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
