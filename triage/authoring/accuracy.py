"""How often triage names the true cause of real reports: the measure behind ``docs/accuracy.md``.

Every record goes through the user's path (:func:`triage.api.analyse` on the
report text, what ``triage diagnose -`` does). A ranked cause is a hit when its
id is the label's knowledge id or its category is the label's category. When
nothing the report says points at any cause (``evidence_state ==
"no_evidence"``), the answer counts as a miss: the prior's order is not a
diagnosis. Out-of-scope records (serving, image models) are counted apart.
"""

from __future__ import annotations

import itertools
import json
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from triage import api
from triage.corpus import Record
from triage.kb.loader import KnowledgeBase
from triage.render.contract import evidence_state
from triage.similar import Index


@dataclass(frozen=True)
class Outcome:
    """What triage answered on one record."""

    record: Record
    ranked: tuple[tuple[str, str], ...]
    """(cause id, category) of the live causes, best first."""
    indicated: bool
    """False when no evidence pointed at any cause."""
    out_of_scope_said: bool = False
    shown: float = 0.0
    """The probability shown for the top cause (0 when nothing was indicated)."""

    def rank(self, with_secondary: bool = False) -> int | None:
        """1-based rank of the first hit, None when no listed cause matches (or nothing was indicated)."""
        if not self.indicated:
            return None
        ids = self.record.cause_ids(with_secondary)
        cats = self.record.categories(with_secondary)
        for n, (cid, cat) in enumerate(self.ranked, 1):
            if cid in ids or cat in cats:
                return n
        return None

    def hit(self, k: int, with_secondary: bool = False) -> bool:
        rank = self.rank(with_secondary)
        return rank is not None and rank <= k


Diagnoser = Callable[[KnowledgeBase, Record], Outcome]


def diagnose_record(kb: KnowledgeBase, record: Record, index: Index | None = None, with_title: bool = True) -> Outcome:
    """The record's report through ``api.analyse``, exactly as ``triage diagnose -`` reads it.

    ``index`` holds the solved reports that may vote (the bench passes the development split's),
    and the record itself never votes for itself. The thread's title (the reporter's words too) is
    the first line, as a user who pastes the whole post gives it; ``with_title=False`` gives the
    first post's body alone (the measure until 2026-12-03).
    """
    text = f"{record.title}\n{record.report}" if with_title else record.report
    session = api.build_session(kb, symptoms=[text], lang=record.lang)
    diagnosis = api.analyse(kb, session, index=index, exclude=[record.url]).diagnosis
    live = [rc for rc in diagnosis.causes if not rc.scored.excluded]
    ranked = tuple((rc.id, rc.scored.cause.category.value) for rc in live)
    state = evidence_state(diagnosis)
    shown = live[0].probability if live and state == "indicated" else 0.0
    return Outcome(record, ranked[:10], state == "indicated", state == "out_of_scope", shown)


@dataclass(frozen=True)
class Score:
    n: int
    top1: float
    top3: float
    top1_any: float
    top3_any: float
    no_answer: float


def score(outcomes: Sequence[Outcome]) -> Score:
    """Top-1 and top-3 on the primary label, and counting secondary labels."""
    n = len(outcomes)
    if not n:
        return Score(0, 0.0, 0.0, 0.0, 0.0, 0.0)

    def rate(ok: Iterable[bool]) -> float:
        return round(statistics.fmean(1.0 if x else 0.0 for x in ok), 3)

    return Score(
        n,
        rate(o.hit(1) for o in outcomes),
        rate(o.hit(3) for o in outcomes),
        rate(o.hit(1, True) for o in outcomes),
        rate(o.hit(3, True) for o in outcomes),
        rate(not o.indicated for o in outcomes),
    )


def by(outcomes: Sequence[Outcome], key: Callable[[Outcome], str]) -> dict[str, Score]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[key(o)].append(o)
    return {name: score(group) for name, group in sorted(groups.items())}


def _row(name: str, s: Score) -> str:
    return f"| {name} | {s.n} | {s.top1:.2f} | {s.top3:.2f} | {s.top1_any:.2f} | {s.top3_any:.2f} | {s.no_answer:.2f} |"


HEAD = [
    "| | n | top-1 | top-3 | top-1 (any label) | top-3 (any label) | no cause indicated |",
    "|---|---|---|---|---|---|---|",
]


def report(title: str, outcomes: Sequence[Outcome]) -> list[str]:
    """A markdown section: overall, per language, per category and per source."""
    scoped = [o for o in outcomes if o.record.scope == "in"]
    out = [f"## {title}", "", *HEAD, _row("all", score(scoped))]
    for name, s in by(scoped, lambda o: o.record.lang).items():
        out.append(_row(f"lang {name}", s))
    out += ["", "By category (the label's):", "", *HEAD]
    out += [_row(name, s) for name, s in by(scoped, lambda o: o.record.label.category).items()]
    out += ["", "By source:", "", *HEAD]
    out += [_row(name, s) for name, s in by(scoped, lambda o: o.record.source.split("/")[0] or "?").items()]
    outside = [o for o in outcomes if o.record.scope == "out"]
    if outside:
        said = sum(1 for o in outside if o.out_of_scope_said)
        quiet = sum(1 for o in outside if not o.indicated)
        out += [
            "",
            f"Out of scope (serving, image models): {len(outside)} records; triage said it does not cover them on "
            f"{said}, and named no LLM cause on {quiet}.",
        ]
    return [*out, ""]


#: Bins of the shown probability of the top cause, for the calibration table.
BINS = ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.01))


@dataclass(frozen=True)
class Calibration:
    """How often the top cause was right, against the probability shown for it."""

    rows: tuple[tuple[str, int, float, float], ...]
    """(bin, reports, mean shown, top-1 rate) of the reports with evidence."""
    error: float
    """Expected calibration error: the report-weighted mean of |shown - right| over the bins."""


def calibration(outcomes: Sequence[Outcome]) -> Calibration:
    """The shown probability of the top cause against how often it was the right kind of cause (in scope, with
    evidence: a report with none shows no probability)."""
    said = [o for o in outcomes if o.record.scope == "in" and o.indicated]
    rows = []
    gap = 0.0
    for lo, hi in BINS:
        group = [o for o in said if lo <= o.shown < hi]
        if not group:
            continue
        mean = statistics.fmean(o.shown for o in group)
        right = statistics.fmean(1.0 if o.hit(1) else 0.0 for o in group)
        rows.append((f"{lo:.0%}-{min(hi, 1.0):.0%}", len(group), mean, right))
        gap += len(group) * abs(mean - right)
    return Calibration(tuple(rows), round(gap / len(said), 3) if said else 0.0)


def calibration_table(outcomes: dict[str, list[Outcome]]) -> list[str]:
    """A markdown section: is the probability shown for the top cause as often right as it says?"""
    out = [
        "## Calibration",
        "",
        "The probability shown for the top cause against how often it was the right kind of cause, for the reports",
        "where some evidence pointed at a cause (`triage.engine.calibration`: fitted on the development split only).",
        "",
        "| split | shown | n | mean shown | right |",
        "|---|---|---|---|---|",
    ]
    for split, name in (("heldout", "held-out"), ("dev", "development")):
        cal = calibration(outcomes[split])
        out += [f"| {name} | {b} | {n} | {mean:.2f} | {right:.2f} |" for b, n, mean, right in cal.rows]
        out.append(f"| {name} | expected calibration error | | {cal.error:.3f} | |")
    return [*out, ""]


def misses(outcomes: list[Outcome]) -> list[str]:
    out = ["## Misses (development split)", ""]
    for o in outcomes:
        if o.record.scope != "in" or o.hit(3):
            continue
        got = ", ".join(cid for cid, _ in o.ranked[:3]) if o.indicated else "(no cause indicated)"
        want = o.record.label.cause_id or o.record.label.category
        out.append(f"- [{o.record.lang}] {o.record.url}: want `{want}`; got {got}")
    return [*out, ""]


def evaluate(kb: KnowledgeBase, records: Sequence[Record], with_title: bool = True) -> dict[str, list[Outcome]]:
    """Every record of each split through the user's path; only development records vote as similar reports."""
    index = api.solved_reports_index(kb, [r for r in records if r.split == "dev" and r.scope == "in"])
    return {
        name: [diagnose_record(kb, r, index, with_title) for r in records if r.split == name]
        for name in ("dev", "heldout")
    }


@dataclass(frozen=True)
class Guess:
    """An expert's three most likely categories for one report, read from its title and first post alone."""

    top3: tuple[str, ...]
    confidence: str


def load_guesses(path: Path) -> dict[str, Guess]:
    """``corpus/baselines/expert-first-post.jsonl``: one JSON object per line (url, top3, confidence)."""
    out: dict[str, Guess] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[row["url"]] = Guess(tuple(row["top3"]), row["confidence"])
    return out


def expert_section(outcomes: dict[str, list[Outcome]], guesses: Mapping[str, Guess]) -> list[str]:
    """How an expert reading the same titles and first posts ranks the categories, next to triage."""
    out = [
        "## An expert reading the same first posts",
        "",
        "The bar the targets set. An expert (a large language model told to act as one, December 2026; reading only",
        "the title and first post, never the thread) ranked three categories for every in-scope record",
        "(`corpus/baselines/`, how it was done: `corpus/README.md`). Scored like triage, on categories only. The",
        "threads are public, so the model may have seen some of them: read the expert's figures as an upper bar.",
        "",
        "| | n | expert top-1 | expert top-3 | triage top-1 | triage top-3 |",
        "|---|---|---|---|---|---|",
    ]
    for split, name in (("heldout", "held-out"), ("dev", "development")):
        scoped = [o for o in outcomes[split] if o.record.scope == "in" and o.record.url in guesses]
        groups = [("all", scoped), *((f"lang {g}", [o for o in scoped if o.record.lang == g]) for g in ("en", "zh"))]
        for label, group in groups:
            if not group:
                continue
            cats = [(guesses[o.record.url].top3, o.record.label.category) for o in group]
            first = statistics.fmean(1.0 if top[:1] == (cat,) else 0.0 for top, cat in cats)
            three = statistics.fmean(1.0 if cat in top[:3] else 0.0 for top, cat in cats)
            mine = score(group)
            out.append(
                f"| {name}: {label} | {len(group)} | {first:.2f} | {three:.2f} | {mine.top1:.2f} | {mine.top3:.2f} |"
            )
    return [*out, ""]


def render(
    outcomes: dict[str, list[Outcome]],
    body_only: dict[str, list[Outcome]] | None = None,
    guesses: Mapping[str, Guess] | None = None,
) -> list[str]:
    """``docs/accuracy.md``: generated by ``bench/bench_accuracy.py``, checked fresh by ``tests/test_accuracy.py``.

    ``body_only``: the same records without their titles, summarised for comparison with earlier figures.
    ``guesses``: an expert's reading of the same first posts (:func:`load_guesses`), shown beside triage's.
    """
    n = sum(len(v) for v in outcomes.values())
    head = [
        "# Accuracy on real reports",
        "",
        "Generated by `python bench/bench_accuracy.py`; `tests/test_accuracy.py` fails when it is stale.",
        "",
        f"{n} real, resolved public OOM reports from `corpus/` (how they were gathered, labelled and split:",
        "`corpus/README.md`). Each report (its thread's title, then the first post, as its author wrote them)",
        "goes through `triage diagnose`. A ranked cause is a hit when its id is the label's knowledge id or its",
        "category the label's category. When nothing in the report points at any cause, the answer counts as a miss.",
        "",
    ]
    tail: list[str] = []
    if body_only is not None:
        tail = [
            "## Without the title",
            "",
            "The first post's body alone, as measured until 2026-12-03:",
            "",
            *HEAD,
        ]
        for split, name in (("heldout", "held-out"), ("dev", "development")):
            scoped = [o for o in body_only[split] if o.record.scope == "in"]
            tail.append(_row(f"{name}: all", score(scoped)))
            for lang, s in by(scoped, lambda o: o.record.lang).items():
                tail.append(_row(f"{name}: lang {lang}", s))
        tail.append("")
    return [
        *head,
        *report("Held-out split (never read while changing rules)", outcomes["heldout"]),
        *(expert_section(outcomes, guesses) if guesses else []),
        *calibration_table(outcomes),
        *tail,
        *report("Development split", outcomes["dev"]),
        *misses(outcomes["dev"]),
    ]


#: The bins of the word model's shares (a tenth each above 0.1, finer at both ends, where most shares fall).
SHARE_EDGES = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0001)


def share_reliability(index: Index, records: Sequence[Record]) -> tuple[tuple[int, float, float], ...]:
    """For the word model's shares, each record left out of the model that judges it: per bin of
    :data:`SHARE_EDGES`, (pairs, mean share, how often that kind of cause was the record's label), over every kind
    of cause of every in-scope record. What :data:`triage.similar.SHOWN_SHARE` is fitted from."""
    pairs = []
    for r in records:
        if r.scope != "in":
            continue
        for category, share in index.shares(f"{r.title}\n{r.report}", exclude=[r.url]).items():
            pairs.append((share, category == r.label.category))
    rows = []
    for lo, hi in itertools.pairwise(SHARE_EDGES):
        group = [(s, y) for s, y in pairs if lo <= s < hi]
        if group:
            mean = statistics.fmean(s for s, _ in group)
            rows.append((len(group), mean, statistics.fmean(float(y) for _, y in group)))
    return tuple(rows)


def share_gap(rows: Sequence[tuple[int, float, float]], shown: Callable[[float], float], above: float = 0.3) -> float:
    """The pair-weighted gap between the figure ``shown`` for a bin's mean share and how often it came true, over
    the bins of :func:`share_reliability` whose mean share is ``above`` or more (the figures users read; most pairs
    are the near-zero shares of unlikely kinds)."""
    big = [(n, mean, right) for n, mean, right in rows if mean >= above]
    total = sum(n for n, _, _ in big)
    return sum(n * abs(shown(mean) - right) for n, mean, right in big) / total if total else 0.0
