"""The diagnosis as plain data: the JSON contract every renderer draws from.

Contract (other tools rely on it; extend it, never break it)::

    {"causes": [{"id", "category", "title", "score", "probability", "evidence": [...]}, ...],
     "remedies": [{"id", "title", ...}, ...],
     "facts": {...},
     "questions": [...]}

Causes are best first and ``category`` is one of the taxonomy labels. Text
and markdown output are rendered from this same structure, so every format
shows the same causes, remedies, myths and questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from triage import __version__
from triage.engine.conditions import evaluate, version_in
from triage.engine.diagnose import Diagnosis, RankedCause
from triage.engine.scoring import Item, version_fact
from triage.estimate import Target
from triage.facts import FactSet
from triage.kb.loader import KnowledgeBase
from triage.kb.models import RELATIVE_CHANGES, Remedy
from triage.quantify import Memory, Outcome, unlock
from triage.render.labels import (
    alternative_label,
    changes_label,
    doubt_label,
    outcome_label,
    saving_kind,
    unlock_label,
)
from triage.render.strings import t
from triage.render.version import SCHEMA_VERSION
from triage.similar import Neighbour


def _evidence(item: Item, lang: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": item.kind,
        "label": item.text(lang),
        "weight": round(item.weight, 3),
        "state": item.state,
    }
    if item.facts:
        out["facts"] = list(item.facts)
    if item.excerpt:
        out["excerpt"] = item.excerpt
    if item.veto:
        out["veto"] = True
    return out


def _cause(rc: RankedCause, lang: str) -> dict[str, Any]:
    cause = rc.scored.cause
    items = rc.scored.items
    return {
        "id": cause.id,
        "category": cause.category.value,
        "title": cause.title.get(lang),
        "summary": cause.summary.get(lang),
        "score": round(rc.scored.score, 3),
        "probability": round(rc.probability, 4),
        "fired": rc.scored.fired,
        "excluded": rc.scored.excluded,
        "evidence": [_evidence(i, lang) for i in items if i.state != "unknown"],
        "unknown": sorted(rc.scored.unknown),
        "remedies": list(cause.remedies),
    }


GIB = 1024**3


def _gib(n: int | None) -> float | None:
    return None if n is None else round(n / GIB, 3)


def _scalar(value: object) -> bool | int | float | str | None:
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def changes_json(targets: tuple[Target, ...]) -> list[dict[str, Any]]:
    """The settings a change moves, as ``{fact, before, after}`` (``assumed`` when the new value is the
    estimator's assumption rather than the change's, as the GPU count of a sharded one-GPU run)."""
    out: list[dict[str, Any]] = []
    for c in targets:
        out.append({"fact": c.fact, "before": _scalar(c.before), "after": _scalar(c.after)})
        if c.assumed:
            out[-1]["assumed"] = True
    return out


def blockers(remedy: Remedy, facts: FactSet, lang: str) -> list[str]:
    """Why ``remedy`` does not apply to the run, in ``lang``: the same reasons, in the same order, as the
    engine's (:func:`triage.engine.diagnose.remedy_status`, which says them in English)."""
    out: list[str] = []
    for req in remedy.requires:
        have = facts.value(version_fact(req.package))
        if have is not None and not version_in(str(have), req.specifier):
            out.append(t("blocker_version", lang).format(package=req.package, specifier=req.specifier, have=have))
    for pre in remedy.prerequisites:
        if evaluate(pre.test, facts) is False:
            out.append(pre.label.get(lang) if pre.label else t("blocker_prerequisite", lang))
    said: list[str] = []
    for name, value in remedy.changes.items():
        have = facts.value(name)
        relative = isinstance(value, str) and value in RELATIVE_CHANGES.get(name, frozenset())
        if have is None or relative or str(have).lower() != str(value).lower():
            said = []
            break
        said.append(f"{name}={have}")
    if said:
        out.append(t("blocker_already", lang).format(what=", ".join(said)))
    return out


def unlock_json(remedy: Remedy, facts: FactSet) -> list[dict[str, Any]]:
    """The upgrades that would make ``remedy`` apply (empty when it applies, or an upgrade would not do)."""
    return [
        {"package": name.removesuffix("_version"), "have": str(facts.value(name)), "version": version}
        for name, version in unlock(facts, remedy).items()
    ]


def outcome_dict(outcome: Outcome, lang: str, fitted_before: bool | None) -> dict[str, Any]:
    """A remedy applied to the run (``RemedyOut.outcome``), with its label in ``lang``."""
    out: dict[str, Any] = {
        "changes": changes_json(outcome.targets),
        "device_total_after_gib": _gib(outcome.after_bytes),
        "verdict_after": outcome.verdict,
    }
    if outcome.unsized:
        out["saving_unsized"] = outcome.unsized
    out["label"] = outcome_label(out, lang, fitted_before)
    return out


def memory_dict(memory: Memory | None, lang: str = "en") -> dict[str, Any]:
    """The ``memory`` object: the estimate, the plan and the fingerprint, or what is missing."""
    if memory is None or memory.estimate is None:
        return {"estimated": False, "missing": memory.missing_in(lang) if memory else t("no_estimate_requested", lang)}
    est = memory.estimate
    out: dict[str, Any] = {"estimated": True, **est.to_json(lang)}
    out["gpu_capacity_gib"] = _gib(est.capacity_bytes)
    out["fits"] = est.fits
    if memory.plan is not None:
        p = memory.plan
        out["plan"] = {
            "steps": [_plan_step(s, lang) for s in p.steps],
            "fits": p.fits,
            "device_total_after_gib": _gib(p.after.device_total.expected),
            "target_gib": _gib(p.target_bytes),
            "headroom": p.headroom,
        }
    expected = est.device_total.expected / GIB
    out["alternatives"] = [
        {**alt.to_json(), "label": alternative_label(alt.to_json(), expected, lang)} for alt in memory.alternatives
    ]
    if memory.doubt is not None:
        d = memory.doubt
        said = {"trained_steps": d.trained_steps, "low_gib": _gib(d.low_bytes), "capacity_gib": _gib(d.capacity_bytes)}
        out["doubt"] = {**said, "label": doubt_label(said, lang)}
    fp = memory.fingerprint
    if fp is not None:
        out["fingerprint"] = {
            "requested_gib": _gib(fp.requested_bytes),
            "best": None
            if fp.best is None
            else {"tensor": fp.best.name, "gib": _gib(fp.best.bytes), "description": fp.best.description_in(lang)},
            "confidence": fp.confidence,
        }
    return out


def _plan_step(step: Any, lang: str) -> dict[str, Any]:
    """One step of the plan: the remedy, what it saves alone, the settings it moves and that in words
    (a library upgrade the remedy needs is among them: ``transformers_version 4.31 → 4.36.0``)."""
    out: dict[str, Any] = {
        "id": step.remedy_id,
        "saving_gib": _gib(step.saving_alone),
        "changes": dict(step.changes),
        "targets": changes_json(step.targets),
    }
    if step.after_alone is not None:
        out["device_total_after_alone_gib"] = _gib(step.after_alone)
    out["label"] = changes_label(out["targets"], lang) if step.targets else None
    upgrades = {k.removesuffix("_version"): str(v) for k, v in step.changes.items() if k.endswith("_version")}
    if upgrades:
        out["upgrades"] = upgrades
    return out


def to_dict(
    kb: KnowledgeBase,
    diagnosis: Diagnosis,
    *,
    top: int = 5,
    memory: Memory | None = None,
    similar: Sequence[Neighbour] = (),
) -> dict[str, Any]:
    """The JSON contract for ``diagnosis``; ``top`` limits the causes listed (ruled-out ones are never listed)."""
    lang = diagnosis.session.lang
    facts = diagnosis.session.facts
    live = listed_causes(diagnosis)
    ruled_out = [rc for rc in diagnosis.causes if rc.scored.excluded]
    state = evidence_state(diagnosis)
    shown_ids = {rc.id for rc in live[:top]}
    remedies = []
    # with no evidence the causes are only the base rates: their remedies would be advice for a guess
    for rr in diagnosis.remedies if state == "indicated" else ():
        if not set(rr.for_causes) & shown_ids:
            continue
        remedy = rr.remedy
        remedies.append(
            {
                "id": remedy.id,
                "title": remedy.title.get(lang),
                "summary": remedy.summary.get(lang),
                "for_causes": list(rr.for_causes),
                "weight": round(rr.weight, 4),
                "saving_gib": _gib(rr.saving_bytes),
                "saving": saving_kind(_gib(rr.saving_bytes)),
                "applicable": rr.applicable,
                "blockers": blockers(remedy, facts, lang) if rr.applicable is False else [],
                "cost": {"speed": remedy.cost.speed, "quality": remedy.cost.quality},
                "requires": [{"package": r.package, "specifier": r.specifier} for r in remedy.requires],
                "steps": remedy.steps.model_dump(exclude_none=True),
                "references": [r.url for r in remedy.references],
            }
        )
        upgrades = unlock_json(remedy, facts) if rr.applicable is False else []
        if upgrades:
            remedies[-1]["unlocked_by"] = upgrades
            remedies[-1]["unlock_label"] = unlock_label(upgrades, lang)
        done = memory.outcomes.get(remedy.id) if memory is not None else None
        if memory is not None and done is not None and (done.targets or done.unsized):
            fitted = memory.estimate.fits if memory.estimate is not None else None
            remedies[-1]["outcome"] = outcome_dict(done, lang, fitted)
    questions = []
    for q in diagnosis.questions:
        spec = kb.facts[q.fact]
        questions.append(
            {
                "fact": q.fact,
                "question": spec.question.get(lang),
                "help": spec.help.get(lang),
                "gain_bits": round(q.gain, 4),
                "type": spec.type.value,
                "values": list(q.values),
            }
        )
    myths = [
        {
            "id": fm.myth.id,
            "claim": fm.myth.claim.get(lang),
            "verdict": fm.myth.verdict.value,
            "correction": fm.myth.correction.get(lang),
            "matched": [m.excerpt for m in fm.matches],
            "references": [r.url for r in fm.myth.references],
        }
        for fm in diagnosis.myths
    ]
    data = {
        "schema_version": SCHEMA_VERSION,
        "triage_version": __version__,
        "lang": lang,
        "evidence_state": state,
        "causes": [_cause(rc, lang) for rc in live[:top]],
        "ruled_out": [
            {
                "id": rc.id,
                "category": rc.scored.cause.category.value,
                "title": rc.scored.cause.title.get(lang),
                "why_not": [i.text(lang) for i in rc.scored.items if i.veto],
            }
            for rc in ruled_out
        ],
        "remedies": remedies,
        "myths": myths,
        "facts": {
            name: {**fact.to_json(), "type": kb.facts[name].type.value if name in kb.facts else "text"}
            for name, fact in sorted(diagnosis.session.facts.items())
        },
        "questions": questions,
        "done": diagnosis.done,
        "memory": memory_dict(memory, lang),
        "inputs": {
            "read_as": [{"path": path, "kind": kind} for path, kind in diagnosis.session.read_as],
            "conflicts": list(diagnosis.session.conflicts),
            "unknown_keys": list(diagnosis.session.unknown_keys),
            "notes": list(diagnosis.session.notes),
        },
        "similar_reports": [
            {
                "url": nb.record.url,
                "title": nb.record.title,
                "cause_category": nb.record.label.category,
                "cause_id": nb.record.label.cause_id,
                "similarity": nb.similarity,
                "resolution": nb.record.label.resolution,
            }
            for nb in similar
        ],
    }
    return data


def evidence_state(diagnosis: Diagnosis) -> str:
    """``out_of_scope``, ``indicated`` or ``no_evidence``: see :func:`_evidence_state`."""
    if diagnosis.session.facts.value("out_of_scope") is not None:
        return "out_of_scope"
    return _evidence_state(diagnosis)


def listed_causes(diagnosis: Diagnosis) -> list[RankedCause]:
    """The causes every face lists, best first: the ones not ruled out, and while no cause is indicated (the list is
    only for orientation) not those that something the user gave speaks against ("I lowered the batch size, still
    OOM" does not list "per-device batch size too large")."""
    live = [rc for rc in diagnosis.causes if not rc.scored.excluded]
    if evidence_state(diagnosis) != "no_evidence":
        return live
    return [rc for rc in live if not _spoken_against(rc)] or live


def _spoken_against(rc: RankedCause) -> bool:
    """Whether something the user gave (a fact or their words) counts against this cause."""
    return any(w < 0 for w in _user_weights(rc))


def _user_weights(rc: RankedCause) -> list[float]:
    """The weights of what the user gave that holds for this cause: facts and their words, not base rates or similar
    reports."""
    return [i.weight for i in rc.scored.items if i.state == "true" and i.kind in ("fact", "signal")]


def _evidence_state(diagnosis: Diagnosis) -> str:
    """``indicated`` when something the user gave points at a cause; ``no_evidence`` when only the prior orders them.

    Similar solved reports alone do not make a diagnosis: they are shown, and they reorder causes
    that the user's own facts or words point at, but they are not evidence about this run.
    """
    for rc in diagnosis.causes:
        if rc.scored.excluded:
            continue
        if any(w > 0 for w in _user_weights(rc)):
            return "indicated"
    return "no_evidence"
