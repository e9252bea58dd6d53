"""Similar solved reports: the public threads that read most like the user's, and how they ended.

Reports mix English words, config keys, log lines and Chinese without spaces,
so a report becomes a bag of terms: English words and identifiers
(``cutoff_len``, ``zero3``, ``3090``) and Chinese character bigrams (``显存``,
``存不``, ``不足``). Terms are weighted by TF-IDF over the corpus and two
reports compared by cosine similarity. This is small, dependency-free and
language-agnostic; BM25 ranks the same neighbours on reports this short, and
an embedding model would be a download that the offline install cannot make
(``corpus/README.md`` has the comparison).

The neighbours become evidence for the engine (:func:`votes`): the share of the
most similar solved reports that ended in a cause's category (and as the cause
itself) adds log-odds to it, weights chosen leave-one-out on the development
split.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from triage.corpus import Record
from triage.datacache import find, read_bounded, write

_WORD = re.compile(r"[a-z][a-z0-9_+.\-]{1,40}|[0-9]{2,6}[a-z]{0,4}")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
#: Words every OOM report shares, or that say nothing about the cause.
_STOP = frozenset(
    word
    for line in (
        "the and for with that this have has was are but not you your use using used when what how can any all",
        "from into out get got run running try tried error errors issue bug please help thanks thank does did",
        "will would should could there their then than also just like one some more very here",
        "cuda memory gpu gib mib total capacity allocated reserved free tried allocate pytorch torch",
        "file line self return call python lib site-packages packages py module modules",
    )
    for word in line.split()
)
#: A neighbour counts only above this similarity.
MIN_SIMILARITY = 0.10
#: How many neighbours are shown to the user.
NEIGHBOURS = 5
#: How many neighbours vote (more than are shown: the vote is a share of their similarity).
VOTERS = 10
#: Log-odds for a cause when every voter was resolved as its category, and in proportion below that.
CATEGORY_WEIGHT = 1.5
#: Log-odds added when every voter was resolved as this very cause (knowledge id), in proportion.
CAUSE_WEIGHT = 1.0
# Both weights and VOTERS were chosen leave-one-out on the development split (bench/bench_accuracy.py,
# corpus/README.md): a record never votes for itself and held-out records never vote.


def terms(text: str) -> Counter[str]:
    """The bag of terms of a report: English words and identifiers, Chinese character bigrams."""
    low = text.lower()
    bag: Counter[str] = Counter(w.strip(".-") for w in _WORD.findall(low))
    for run in _CJK.findall(low):
        if len(run) == 1:
            bag[run] += 1
        bag.update(run[i : i + 2] for i in range(len(run) - 1))
    for word in _STOP:
        bag.pop(word, None)
    bag.pop("", None)
    return bag


@dataclass(frozen=True)
class Neighbour:
    """A solved report like the user's, and how much like it."""

    record: Record
    similarity: float


class Index:
    """TF-IDF vectors of the corpus' reports, for cosine nearest neighbours."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = tuple(records)
        texts = [f"{r.title}\n{r.report}" for r in self.records]
        key = _key(texts)
        cached = _cached(key, len(texts))
        if cached is not None:
            self.idf, self.vectors = cached
            return
        bags = [terms(text) for text in texts]
        df: Counter[str] = Counter()
        for bag in bags:
            df.update(bag.keys())
        n = max(1, len(bags))
        self.idf = {t: math.log((1 + n) / (1 + c)) + 1.0 for t, c in df.items()}
        self.vectors = [self._vector(bag) for bag in bags]
        write("similar", key, json.dumps({"idf": self.idf, "vectors": self.vectors}, separators=(",", ":")).encode())

    def _vector(self, bag: Mapping[str, int]) -> dict[str, float]:
        unseen = math.log(1 + len(self.records)) + 1.0
        vec = {t: (1 + math.log(c)) * self.idf.get(t, unseen) for t, c in bag.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {t: v / norm for t, v in vec.items()}

    def nearest(self, text: str, k: int = NEIGHBOURS, exclude: Iterable[str] = ()) -> list[Neighbour]:
        """The ``k`` most similar in-scope records above :data:`MIN_SIMILARITY`, best first."""
        query = self._vector(terms(text))
        if not query:
            return []
        skip = {u.lower() for u in exclude}
        scored = []
        for record, vec in zip(self.records, self.vectors, strict=True):
            if record.url.lower() in skip:
                continue
            small, large = (query, vec) if len(query) < len(vec) else (vec, query)
            sim = sum(w * large.get(t, 0.0) for t, w in small.items())
            if sim >= MIN_SIMILARITY:
                scored.append(Neighbour(record, round(sim, 3)))
        scored.sort(key=lambda nb: (-nb.similarity, nb.record.url))
        return scored[:k]


def _key(texts: Sequence[str]) -> str:
    """Changes with any report's text and with this module's code (which decides the terms and weights)."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    for text in texts:
        h.update(b"\0" + text.encode())
    return h.hexdigest()[:24]


def _cached(key: str, n: int) -> tuple[dict[str, float], list[dict[str, float]]] | None:
    """The corpus' idf and vectors from the cache, or None when there is no usable copy."""
    path = find("similar", key)
    if path is None:
        return None
    try:
        data: Any = json.loads(read_bounded(path))
        idf, vectors = data["idf"], data["vectors"]
    except (OSError, ValueError, RecursionError, TypeError, KeyError):
        return None
    if not isinstance(idf, dict) or not isinstance(vectors, list) or len(vectors) != n:
        return None
    numbers = [*idf.values(), *(w for v in vectors if isinstance(v, dict) for w in v.values())]
    if not all(isinstance(v, dict) for v in vectors) or not all(isinstance(w, float) for w in numbers):
        return None
    return idf, vectors


def votes(neighbours: Sequence[Neighbour], category_of: Mapping[str, str]) -> dict[str, float]:
    """Log-odds per cause id from the neighbours' resolutions.

    Each voter's weight is its share of the voters' total similarity, so the
    votes form the neighbours' estimate of how likely each category (and each
    knowledge id) is for this report: a cause gains :data:`CATEGORY_WEIGHT`
    times its category's share, plus :data:`CAUSE_WEIGHT` times the share of
    voters resolved as this very cause.
    """
    voters = [nb for nb in neighbours if nb.record.scope == "in"]
    total = sum(nb.similarity for nb in voters)
    if total <= 0:
        return {}
    by_category: dict[str, float] = {}
    by_cause: dict[str, float] = {}
    for nb in voters:
        share = nb.similarity / total
        label = nb.record.label
        by_category[label.category] = by_category.get(label.category, 0.0) + share
        if label.cause_id:
            by_cause[label.cause_id] = by_cause.get(label.cause_id, 0.0) + share
    out: dict[str, float] = {}
    for cid, cat in category_of.items():
        vote = CATEGORY_WEIGHT * by_category.get(cat, 0.0) + CAUSE_WEIGHT * by_cause.get(cid, 0.0)
        if vote > 0:
            out[cid] = round(vote, 3)
    return out
