"""Score causes on a log-odds scale: prior + condition evidence + text evidence.

Every contribution is a number of log-odds units (nats), so contributions add
up, scores of different causes are comparable, and each one can be shown to
the user as a line of evidence. A cause *fires* when its posterior odds are at
least even (score >= 0); a false veto condition rules it out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from triage.engine.conditions import describe, describe_negated, evaluate, leaves
from triage.engine.signals import Anchors, match_all
from triage.facts import FactSet
from triage.kb.models import RELATIVE_CHANGES, Affects, Cause, Evidence, Leaf, Remedy

#: A cause fires when its score (posterior log-odds) reaches this.
FIRE_THRESHOLD = 0.0


def logit(p: float) -> float:
    """Log-odds of probability ``p``."""
    return math.log(p / (1.0 - p))


def version_fact(package: str) -> str:
    """The fact that holds a package's version: ``bitsandbytes`` -> ``bitsandbytes_version``."""
    return package.lower().replace("-", "_").replace(".", "_") + "_version"


@dataclass(frozen=True)
class Item:
    """One line of evidence for or against a cause."""

    kind: str
    """prior, fact, version or signal."""
    label: str
    """What was observed, in words."""
    weight: float
    """Log-odds it contributed (0 for unknown)."""
    state: str
    """true, false or unknown."""
    facts: tuple[str, ...] = ()
    """The facts involved."""
    excerpt: str | None = None
    """For text signals: the words that matched."""
    veto: bool = False
    """True when this item ruled the cause out."""
    label_zh: str | None = None
    """The label in Chinese, when the knowledge base gives one."""
    restates: str | None = None
    """For signals: the fact it stands in for; ignored once that fact is known."""

    def text(self, lang: str) -> str:
        """The label in ``lang``: Chinese when there is one, else a quote of the matched words, else English."""
        if lang != "zh":
            return self.label
        if self.label_zh:
            return self.label_zh
        if self.kind == "signal" and self.excerpt:
            return f"文本提到“{self.excerpt}”"
        return self.label


@dataclass(frozen=True)
class Scored:
    """A cause with its score and the evidence behind it."""

    cause: Cause
    score: float
    items: tuple[Item, ...]
    excluded: bool
    unknown: frozenset[str] = field(default_factory=frozenset)
    """Facts whose absence left some evidence unknown."""

    @property
    def fired(self) -> bool:
        """Whether this run's evidence makes the cause more likely than not.

        The votes of similar solved reports reorder causes (they are in ``score``) but are not
        evidence about this run, so they never make a cause likely on their own: a version in a
        bug's range plus "3 similar reports were version bugs" does not make that bug likely.
        """
        own = self.score - sum(i.weight for i in self.items if i.kind == "similar")
        return not self.excluded and own >= FIRE_THRESHOLD


def _leaf_facts(ev: Evidence) -> tuple[str, ...]:
    return tuple(dict.fromkeys(leaf.fact for leaf in leaves(ev.test)))


def _affects_evidence(aff: Affects) -> Evidence:
    """A version range as ordinary evidence: in range adds weight, outside vetoes."""
    return Evidence(
        test=Leaf(fact=version_fact(aff.package), op="version", value=aff.specifier),
        if_true=aff.weight,
        veto=True,
    )


def evidence_of(cause: Cause) -> list[Evidence]:
    """All condition evidence of a cause, version ranges included."""
    return [*cause.when, *(_affects_evidence(a) for a in cause.affects)]


@dataclass(frozen=True)
class _Prepared:
    """What scoring needs of one piece of evidence that does not depend on the facts."""

    evidence: Evidence
    names: tuple[str, ...]
    label: str
    label_zh: str | None
    label_false: str
    """What the evidence says when its test is false ("not: ..."): the label states the test."""
    label_false_zh: str | None


#: Per cause (by identity): its evidence, prepared once. Scoring runs many times per cause while the
#: interview weighs its questions, and building the version-range evidence validates models each time.
_PREPARED: dict[int, tuple[Cause, tuple[_Prepared, ...]]] = {}


def _prepared(cause: Cause) -> tuple[_Prepared, ...]:
    hit = _PREPARED.get(id(cause))
    if hit is not None and hit[0] is cause:
        return hit[1]
    out = tuple(
        _Prepared(
            ev,
            _leaf_facts(ev),
            ev.label.en if ev.label else describe(ev.test),
            ev.label.zh if ev.label else None,
            _label_false(ev, "en") or describe_negated(ev.test),
            _label_false(ev, "zh"),
        )
        for ev in evidence_of(cause)
    )
    _PREPARED[id(cause)] = (cause, out)  # the cause is kept alive, so its id is never reused for another
    return out


def _label_false(ev: Evidence, lang: str) -> str | None:
    """What evidence says when its test is false: its own words for that, else "not: " and its label (None without
    a label: the test itself is described then)."""
    if ev.label_false is not None:
        return ev.label_false.get(lang)
    if ev.label is None:
        return None
    return f"not: {ev.label.en}" if lang == "en" else f"并非：{ev.label.zh}"


def _derived_only(names: tuple[str, ...], facts: FactSet) -> bool:
    """Whether every fact of an evidence item came from the estimator (Source kind ``derived``)."""
    got = [facts[n] for n in names if n in facts]
    return bool(got) and len(got) == len(names) and all(f.source.kind == "derived" for f in got)


def fact_items(cause: Cause, facts: FactSet, derived_weight: float = 1.0) -> tuple[list[Item], bool, set[str]]:
    """Evaluate a cause's conditions: evidence items, whether vetoed, facts left unknown.

    ``derived_weight`` scales the items that rest only on the estimator's derived facts (the
    pipeline lowers it when the estimate contradicts what the user saw: a run that trained
    for a while is estimated not to fit at all); such an item then rules nothing out.
    """
    items: list[Item] = []
    vetoed = False
    unknown: set[str] = set()
    for p in _prepared(cause):
        ev, names, label, zh = p.evidence, p.names, p.label, p.label_zh
        truth = evaluate(ev.test, facts)
        scale = derived_weight if derived_weight != 1.0 and _derived_only(names, facts) else 1.0
        if truth is None:
            unknown.update(n for n in names if facts.value(n) is None)
            items.append(Item("fact", label, 0.0, "unknown", names, label_zh=zh))
        elif truth:
            items.append(Item("fact", label, ev.if_true * scale, "true", names, label_zh=zh))
        else:
            veto = ev.veto and scale == 1.0
            vetoed = vetoed or veto
            items.append(
                Item("fact", p.label_false, ev.if_false * scale, "false", names, veto=veto, label_zh=p.label_false_zh)
            )
    return items, vetoed, unknown


def signal_items(cause: Cause, text: str, anchors: Anchors | None = None) -> list[Item]:
    """The text signals of a cause that match ``text``."""
    return [
        Item(
            "signal",
            m.signal.label or f"text mentions {m.excerpt!r}",
            m.signal.weight,
            "true",
            excerpt=m.excerpt,
            restates=m.signal.restates,
        )
        for m in match_all(cause.signals, text, anchors)
    ]


class Scorer:
    """Scores every cause of a knowledge base for one text, under varying facts.

    Text evidence does not change while the interview asks about facts, so it
    is matched once here; :meth:`score` re-evaluates only the conditions.
    """

    def __init__(
        self,
        causes: Mapping[str, Cause],
        text: str,
        anchors: Anchors | None = None,
        remedies: Mapping[str, RemedyTable] | None = None,
        by_category: Mapping[str, Sequence[Item]] | None = None,
    ) -> None:
        self.causes = dict(causes)
        self.remedies = dict(remedies or {})
        """Per cause id: what its remedies change (:func:`remedy_tables`). A run that one of those changes made work
        points at the cause; one that such a change did not help points away from it."""
        self.text_items = {cid: signal_items(c, text, anchors) for cid, c in self.causes.items()}
        self.by_category = {cat: tuple(items) for cat, items in (by_category or {}).items()}
        """Evidence about a kind of cause (how similar solved reports ended), per category: it goes once to the
        category's best-supported cause that is not ruled out, so a category is not counted once per cause in it."""

    def score_one(self, cause: Cause, facts: FactSet, derived_weight: float = 1.0) -> Scored:
        """Score one cause (``derived_weight``: see :func:`fact_items`), without the evidence about its category,
        which :meth:`score` gives to one cause of each category."""
        prior = Item(
            "prior", f"base rate {cause.prior:.0%}", logit(cause.prior), "true", label_zh=f"基础概率 {cause.prior:.0%}"
        )
        f_items, vetoed, unknown = fact_items(cause, facts, derived_weight)
        text = [i for i in self.text_items[cause.id] if i.restates is None or facts.value(i.restates) is None]
        items = (prior, *f_items, *text, *self._resolved(cause, facts), *self._tried(cause, facts))
        score = sum(i.weight for i in items)
        return Scored(cause, score, items, vetoed, frozenset(unknown))

    def _resolved(self, cause: Cause, facts: FactSet) -> tuple[Item, ...]:
        """Evidence from what made the run work: a change that is one of this cause's remedies."""
        table = self.remedies.get(cause.id, NO_REMEDIES)
        changed = _named(facts, "resolved_by")
        hit = sorted(n for n in changed & table.changes if not _sets_the_runs_own(table, n, facts))
        if not hit:
            return ()
        label = f"changing {', '.join(hit)} made the run work, and that is a remedy for this cause"
        zh = f"修改 {', '.join(hit)} 后训练能跑了，而这正是这个原因的解决办法"
        # the cause's first remedy is its own mechanism undone; a later one only works around it (ZeRO-3 fixes
        # replicated weights, and also weights too big for any one card)
        weight = RESOLVED_WEIGHT if set(hit) & table.first else RESOLVED_AROUND
        return (Item("fact", label, weight, "true", ("resolved_by",), label_zh=zh),)

    def _tried(self, cause: Cause, facts: FactSet) -> tuple[Item, ...]:
        """Evidence from what was lowered without helping: a change that undoes this cause did not make it fit."""
        table = self.remedies.get(cause.id, NO_REMEDIES)
        lowered = _named(facts, "tried_without_effect")
        first = sorted(lowered & table.first)
        later = sorted(lowered & table.changes - set(first))
        hit = first or later
        if not hit:
            return ()
        label = f"lowering {', '.join(hit)}, a remedy for this cause, did not make the run fit"
        zh = f"调小 {', '.join(hit)} 本是这个原因的解决办法，但调小后仍然放不下"
        weight = TRIED_WEIGHT if first else TRIED_AROUND
        return (Item("fact", label, weight, "true", ("tried_without_effect",), label_zh=zh),)

    def score(self, facts: FactSet, derived_weight: float = 1.0) -> list[Scored]:
        """Every cause, best first (excluded causes last)."""
        scored = [self.score_one(c, facts, derived_weight) for c in self.causes.values()]
        return sorted(self._with_categories(scored), key=lambda s: (s.excluded, -s.score, s.cause.id))

    def _with_categories(self, scored: list[Scored]) -> list[Scored]:
        """``scored`` with each category's evidence added to its best cause (highest score, then id)."""
        best: dict[str, Scored] = {}
        for s in sorted(scored, key=lambda s: (-s.score, s.cause.id)):
            cat = s.cause.category.value
            if not s.excluded and cat in self.by_category:
                best.setdefault(cat, s)
        chosen = {id(s): self.by_category[cat] for cat, s in best.items()}
        return [
            replace(s, score=s.score + sum(i.weight for i in chosen[id(s)]), items=(*s.items, *chosen[id(s)]))
            if id(s) in chosen
            else s
            for s in scored
        ]


#: Log-odds that "changing X made it work" adds to each cause whose first remedy changes X.
RESOLVED_WEIGHT = 2.0
#: ... and to a cause for which changing X is a later remedy, a way around it rather than its undoing.
RESOLVED_AROUND = 1.0
#: Facts the engine weighs against every cause's remedies (what made the run work, what was lowered in vain): a cause
#: with remedies tests them without a ``when`` condition of its own.
REMEDY_FACTS = frozenset({"resolved_by", "tried_without_effect"})
#: Log-odds that "lowering X did not help" takes from each cause whose first remedy changes X ...
TRIED_WEIGHT = -1.5
#: ... and from a cause for which changing X is a later remedy.
TRIED_AROUND = -0.5


def _named(facts: FactSet, fact: str) -> set[str]:
    """The fact names a list-valued fact gives, comma-separated ("batch_size,max_length"); empty when unknown."""
    said = facts.value(fact)
    return {name.strip() for name in str(said).split(",") if name.strip()} if said else set()


@dataclass(frozen=True)
class RemedyTable:
    """What one cause's remedies change, for reading "X made it work" and "lowering X did not help"."""

    changes: frozenset[str] = frozenset()
    """The facts its remedies change."""
    first: frozenset[str] = frozenset()
    """The facts its first remedy changes: what undoes the cause itself (a later remedy works around it)."""
    settings: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Per fact: the values (lowercased) its remedies set it to, for facts that every one of its remedies changing
    them sets to a value (a relative change, "half the batch", leaves the fact out)."""


NO_REMEDIES = RemedyTable()


def remedy_tables(causes: Mapping[str, Cause], remedies: Mapping[str, Remedy]) -> dict[str, RemedyTable]:
    """Per cause id, what its remedies change (:class:`RemedyTable`); remedies the knowledge base lacks are skipped."""
    out: dict[str, RemedyTable] = {}
    for cid, cause in causes.items():
        known = [remedies[rid] for rid in cause.remedies if rid in remedies]
        values: dict[str, set[str]] = {}
        relative: set[str] = set()
        for remedy in known:
            for name, value in remedy.changes.items():
                if isinstance(value, str) and value in RELATIVE_CHANGES.get(name, frozenset()):
                    relative.add(name)
                else:
                    values.setdefault(name, set()).add(str(value).lower())
        first = remedies.get(cause.remedies[0]) if cause.remedies else None
        out[cid] = RemedyTable(
            changes=frozenset(k for remedy in known for k in remedy.changes),
            first=frozenset(first.changes) if first is not None else frozenset(),
            settings={name: frozenset(v) for name, v in values.items() if name not in relative},
        )
    return out


def _sets_the_runs_own(table: RemedyTable, name: str, facts: FactSet) -> bool:
    """Whether every remedy that changes ``name`` sets it to the value the failing run already has: then that change
    is not what made the run work ("zero2 works but zero3 OOMs": the run that failed had ZeRO-3, so moving to ZeRO-3
    is not the change that worked)."""
    values = table.settings.get(name)
    have = facts.value(name)
    return values is not None and have is not None and values == {str(have).lower()}


def probabilities(scored: Iterable[Scored]) -> dict[str, float]:
    """Normalised probabilities: a softmax of the scores of causes not ruled out."""
    live = [s for s in scored if not s.excluded]
    if not live:
        return {}
    top = max(s.score for s in live)
    weights = {s.cause.id: math.exp(s.score - top) for s in live}
    total = sum(weights.values())
    return {cid: w / total for cid, w in weights.items()}
