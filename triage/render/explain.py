"""The full explanation of one entity, as markdown-ish text (CLI ``explain`` and the TUI details)."""

from __future__ import annotations

from triage.engine.conditions import describe
from triage.kb.loader import KnowledgeBase
from triage.kb.models import Cause, FactSpec, Myth, Reference, Remedy
from triage.render.strings import t

STEP_NAMES = {
    "hf_trainer": "HF Trainer / TRL",
    "pytorch": "PyTorch",
    "peft": "peft",
    "axolotl": "axolotl",
    "llama_factory": "LLaMA-Factory",
    "deepspeed": "DeepSpeed",
    "shell": "shell",
}
SECTION_NAMES = {
    "what": {"en": "What it is", "zh": "是什么"},
    "why": {"en": "Why it happens", "zh": "为什么会发生"},
    "confirm": {"en": "How to confirm", "zh": "如何确认"},
    "known_problems": {"en": "Known problems", "zh": "已知的误判"},
}


def _refs(refs: list[Reference], lang: str) -> list[str]:
    out = [f"## {t('references', lang)}", ""]
    out += [f"- {r.title}: {r.url}" + (f" ({r.note})" if r.note else "") for r in refs]
    return out


def _cause(kb: KnowledgeBase, c: Cause, lang: str) -> list[str]:
    out = [
        f"# {c.title.get(lang)}",
        "",
        f"`{c.id}` · {c.category.value} · {c.status.value} · prior {c.prior:.0%}",
        "",
        c.summary.get(lang),
        "",
    ]
    for key, names in SECTION_NAMES.items():
        text = getattr(c.explanation, key)
        if text is not None:
            out += [f"## {names.get(lang, names['en'])}", "", text.get(lang), ""]
    if c.affects:
        out += ["## Affected versions", ""]
        out += [f"- {a.package} {a.specifier}" + (f" (fixed in {a.fixed_in})" if a.fixed_in else "") for a in c.affects]
        out.append("")
    if c.when:
        out += ["## Evidence it weighs", ""]
        for ev in c.when:
            label = ev.label.get(lang) if ev.label else describe(ev.test)
            veto = ", rules it out when false" if ev.veto else ""
            out.append(f"- {label}: {ev.if_true:+.1f} if true, {ev.if_false:+.1f} if false{veto}")
        out.append("")
    if c.remedies:
        out += [f"## {t('remedies', lang)}", ""]
        out += [f"- `{rid}`: {kb.remedies[rid].title.get(lang)}" for rid in c.remedies if rid in kb.remedies]
        out.append("")
    return out + _refs(c.references, lang)


def _remedy(r: Remedy, lang: str) -> list[str]:
    out = [
        f"# {r.title.get(lang)}",
        "",
        f"`{r.id}` · {r.status.value}",
        "",
        r.summary.get(lang),
        "",
        f"## {t('steps', lang)}",
        "",
    ]
    for key, text in r.steps.model_dump(exclude_none=True).items():
        out += [f"### {STEP_NAMES.get(key, key)}", "", "```", str(text).rstrip(), "```", ""]
    out += [
        f"## {t('cost', lang)}",
        "",
        f"- {t('speed', lang)}: {t(r.cost.speed, lang)}",
        f"- {t('quality', lang)}: {t(r.cost.quality, lang)}",
    ]
    if r.cost.note:
        out.append(f"- {r.cost.note.get(lang)}")
    out.append("")
    if r.requires:
        out += (
            ["## Requires", ""]
            + [f"- {q.package}{q.specifier}" + (f": {q.reason}" if q.reason else "") for q in r.requires]
            + [""]
        )
    if r.prerequisites:
        out += ["## Prerequisites", ""]
        out += [f"- {p.label.get(lang) if p.label else describe(p.test)}" for p in r.prerequisites] + [""]
    if r.conflicts:
        out += ["## Conflicts with", ""] + [f"- `{c}`" for c in r.conflicts] + [""]
    if r.changes:
        out += ["## As a change to the run", ""] + [f"- {k} → {v}" for k, v in r.changes.items()] + [""]
    return out + _refs(r.references, lang)


def _myth(m: Myth, lang: str) -> list[str]:
    out = [
        f"# {t('claim', lang)}: {m.claim.get(lang)}",
        "",
        f"`{m.id}` · {t('verdict', lang)}: {t(m.verdict.value, lang)}",
        "",
        m.correction.get(lang),
        "",
    ]
    if m.seed_claims:
        out += [f"Seed claims: {', '.join(m.seed_claims)}", ""]
    return out + _refs(m.references, lang)


def _fact(f: FactSpec, lang: str) -> list[str]:
    out = [f"# {f.id}", "", f"type {f.type.value}" + (f", unit {f.unit}" if f.unit else ""), ""]
    if f.values:
        out += [f"values: {', '.join(f.values)}", ""]
    return [*out, f.question.get(lang), "", f.help.get(lang)]


def explain(kb: KnowledgeBase, entity: Cause | Remedy | Myth | FactSpec, lang: str = "en") -> str:
    """The explanation of ``entity`` in ``lang``."""
    if isinstance(entity, Cause):
        lines = _cause(kb, entity, lang)
    elif isinstance(entity, Remedy):
        lines = _remedy(entity, lang)
    elif isinstance(entity, Myth):
        lines = _myth(entity, lang)
    else:
        lines = _fact(entity, lang)
    return "\n".join(lines).rstrip() + "\n"


def list_facts(kb: KnowledgeBase, lang: str = "en") -> str:
    """One line per fact: name, type and question."""
    return "".join(
        f"{f.id:<34} {f.type.value:<8} {f.question.get(lang)}\n" for f in sorted(kb.facts.values(), key=lambda f: f.id)
    )
