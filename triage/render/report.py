"""The session as a markdown report, ready to paste into a GitHub issue.

Built from the JSON contract (:func:`triage.render.contract.to_dict`, with
the estimator's :class:`~triage.quantify.Memory`), so it shows what every
other output shows: the ranking with its evidence, each remedy with what it
saves on this run, the memory breakdown and the cheapest plan that fits;
plus what only an interview has: each fact with where it came from, the
questions and answers, any what-if tried, and the text the user pasted.
Everything is passed through :func:`triage.redact.redact` before it is
returned: secrets in pasted text never reach the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from triage.engine.diagnose import Diagnosis
from triage.kb.loader import KnowledgeBase
from triage.quantify import Memory
from triage.render.contract import to_dict
from triage.render.labels import peak_label, saving_label, source_label, verdict_label
from triage.render.markdown import cell, fenced
from triage.render.outbound import for_file
from triage.render.strings import t


def _h(key: str, lang: str) -> str:
    return t(f"report_{key}", lang)


def _labels(diagnosis: Diagnosis, lang: str) -> dict[str, list[str]]:
    """Each cause's shown evidence (the contract's order) and its why-not, in ``lang``."""
    out: dict[str, list[str]] = {}
    for rc in diagnosis.causes:
        out[rc.id] = [i.text(lang) for i in rc.scored.items if i.state != "unknown"]
        out[f"why-not:{rc.id}"] = [i.text(lang) for i in rc.scored.items if i.veto]
    return out


def _causes(data: dict[str, Any], lang: str, labels: dict[str, list[str]]) -> list[str]:
    out = [f"### {t('causes', lang)}", "", "| # | cause | category | probability |", "|---|---|---|---|"]
    for n, c in enumerate(data["causes"], 1):
        out.append(f"| {n} | {cell(c['title'])} | `{c['category']}` | {c['probability']:.0%} |")
    out.append("")
    for c in data["causes"]:
        out.append(f"<details><summary>{cell(c['title'])} (<code>{c['id']}</code>): {t('evidence', lang)}</summary>\n")
        words = labels.get(c["id"], [])
        for k, ev in enumerate(c["evidence"]):
            if ev["kind"] == "prior":
                continue
            label = words[k] if k < len(words) else ev["label"]
            if ev["kind"] == "signal" and lang != "en":
                out.append(f"- `{ev['weight']:+.2f}` {label}")
                continue
            quote = f" — “{ev['excerpt']}”" if ev.get("excerpt") else ""
            facts = ""
            if ev.get("facts"):
                known = data["facts"]
                named = [f"`{f}`" + (f" ({source_label(known[f])})" if f in known else "") for f in ev["facts"]]
                facts = " — " + ", ".join(named)
            out.append(f"- `{ev['weight']:+.2f}` {label}{quote}{facts}")
        out += ["", "</details>", ""]
    if data["ruled_out"]:
        out += [f"**{t('ruled_out', lang)}:**", ""]
        for r in data["ruled_out"]:
            why = "; ".join(labels.get(f"why-not:{r['id']}") or r["why_not"]) or "-"
            out.append(f"- {r['title']} (`{r['id']}`): {t('why_not', lang)}: {why}")
        out.append("")
    return out


def _gib(n: float) -> str:
    return f"{n:.1f} GiB"


def _saving(r: dict[str, Any], lang: str) -> str:
    label = saving_label(r.get("saving_gib"), lang)
    after = f" ({r['outcome']['label']})" if r.get("outcome") else ""
    return f" — {label}{after}" if label else (f" —{after}" if after else "")


def _remedies(data: dict[str, Any], lang: str) -> list[str]:
    if not data["remedies"]:
        return []
    out = [f"### {_h('remedies', lang)}", ""]
    for n, r in enumerate(data["remedies"], 1):
        state = ""
        if r["applicable"] is False:
            unlock = f"; {r['unlock_label']}" if r.get("unlock_label") else ""
            state = f" — **{t('blocked', lang)}:** {'; '.join(r['blockers'])}{unlock}"
        elif r["applicable"] is None:
            state = f" ({t('maybe', lang)})"
        cost = f"{t('speed', lang)} {t(r['cost']['speed'], lang)}, {t('quality', lang)} {t(r['cost']['quality'], lang)}"
        out.append(f"{n}. **{r['title']}**{_saving(r, lang)}{state}: {r['summary']} ({t('cost', lang)}: {cost})")
        steps = r["steps"]
        if steps:
            first = next(iter(steps))
            out += ["", "   " + fenced(str(steps[first]).rstrip()).replace("\n", "\n   ")]
    out.append("")
    return out


def _plan(kb: KnowledgeBase, mem: dict[str, Any], lang: str) -> list[str]:
    plan = mem.get("plan")
    if not mem.get("estimated") or plan is None:
        return []
    out = [f"### {_h('plan', lang)}", ""]
    if not plan["steps"]:
        return [*out, _h("plan_none", lang) if mem["fits"] else t("no_plan", lang), ""]
    head = _h("plan_steps", lang) if plan["fits"] else _h("plan_best", lang)
    out += [f"{head}:", ""]
    for n, step in enumerate(plan["steps"], 1):
        remedy = kb.remedies.get(step["id"])
        title = remedy.title.get(lang) if remedy else step["id"]
        changes = step.get("label") or ", ".join(f"`{k}={v}`" for k, v in step["changes"].items())
        label = saving_label(step["saving_gib"], lang)
        saved = f" — {label}" if label else ""
        out.append(f"{n}. **{title}** (`{step['id']}`){saved}: {changes}")
    verdict = t("fits", lang) if plan["fits"] else t("does_not_fit", lang)
    total = mem["device_total_gib"]["expected"]
    out += [
        "",
        f"{_h('device_total', lang)}: {_gib(total)} → {_gib(plan['device_total_after_gib'])} {_h('after', lang)} "
        f"({verdict}; {_h('target', lang)} {_gib(plan['target_gib'])} = "
        f"{_h('gpu', lang)} × {1 - plan['headroom']:.2f})",
        "",
    ]
    return out


def _memory(mem: dict[str, Any], lang: str, whatif: Sequence[str]) -> list[str]:
    out = [f"### {_h('memory', lang)}", ""]
    if not mem.get("estimated"):
        return [*out, f"{_h('no_estimate', lang)}: {mem.get('missing') or '-'}", ""]
    total, cap = mem["device_total_gib"], mem.get("gpu_capacity_gib")
    out += [f"| {_h('component', lang)} | GiB |", "|---|---:|"]
    for name, size in sorted(mem["components"].items(), key=lambda kv: -kv[1]):
        out.append(f"| {name} ({_h('at_peak', lang)}) | {size:.2f} |")
    for item in mem.get("overheads", []):
        out.append(f"| {item['name']} | {item['expected_gib']:.2f} |")
    band = f"({total['low']:.1f}-{total['high']:.1f})"
    out.append(f"| **{_h('device_total', lang)}** | **{total['expected']:.2f}** {band} |")
    out.append("")
    peak = peak_label(mem, lang)
    if cap:
        verdict = verdict_label(mem.get("verdict"), lang)
        out.append(f"**{verdict}**: {_gib(total['expected'])} / {_h('gpu', lang)} {_gib(cap)}; {peak}.")
    else:
        out.append(f"{_h('gpu_unknown', lang)}; {peak}.")
    fp = mem.get("fingerprint")
    if fp and fp.get("best"):
        out.append(
            f"{t('failed_alloc', lang)} {fp['requested_gib']:.2f} GiB ≈ {fp['best']['description']} "
            f"({t('fp_confidence', lang).format(level=t(fp['confidence'], lang))})."
        )
    if mem.get("doubt"):
        out += ["", f"> {mem['doubt']['label']}"]
    if mem.get("alternatives"):
        out += ["", f"**{t('alt_head', lang)}**", "", *(f"- {a['label']}" for a in mem["alternatives"])]
    if mem.get("assumptions"):
        out += ["", f"{t('assumed', lang)}:", ""]
        out += [f"- `{a['fact']} = {a['value']}`: {a['reason']}" for a in mem["assumptions"]]
    if whatif:
        out += ["", f"{_h('whatif', lang)}:", "", *[f"- {line}" for line in whatif]]
    out.append("")
    return out


def render_report(
    kb: KnowledgeBase,
    diagnosis: Diagnosis,
    *,
    memory: Memory | None = None,
    transcript: Sequence[tuple[str, str]] = (),
    pasted: Sequence[str] = (),
    whatif: Sequence[str] = (),
    top: int = 5,
) -> str:
    """The markdown report, secrets redacted.

    ``memory`` is the estimator's view of the same run (the interview's
    :attr:`~triage.interview.Interview.memory`, or :func:`triage.api.analyse`'s):
    without it there is no memory section or plan, and remedies show the
    savings the diagnosis carries. ``transcript`` holds (question, answer)
    pairs (an empty question marks free text), ``pasted`` the raw texts,
    ``whatif`` lines describing what-if tried in the TUI.
    """
    data = to_dict(kb, diagnosis, top=top, memory=memory)
    lang = data["lang"]
    out = [f"## {_h('title', lang)} (triage {data['triage_version']})", ""]
    fired = [c for c in data["causes"] if c["fired"]]
    if fired:
        best = fired[0]
        out += [f"**{_h('most_likely', lang)}:** {best['title']} ({best['probability']:.0%})", "", best["summary"], ""]
    else:
        out += [_h("undecided", lang), ""]
    out += _causes(data, lang, _labels(diagnosis, lang))
    out += _remedies(data, lang)
    if memory is not None:
        out += _plan(kb, data["memory"], lang)
        out += _memory(data["memory"], lang, whatif)
    if data["myths"]:
        out += [f"### {t('myths', lang)}", ""]
        for myth in data["myths"]:
            out += [f"> **{t('claim', lang)}:** {myth['claim']} — *{t(myth['verdict'], lang)}*", ">"]
            out += [f"> {myth['correction']}", ""]
    out += [f"### {t('facts', lang)}", ""]
    if data["facts"]:
        out += ["| fact | value | source | said |", "|---|---|---|---|"]
        for name, fact in data["facts"].items():
            out.append(
                f"| `{name}` | {cell(fact['value'])} | {cell(source_label(fact))} | {cell(fact.get('excerpt', ''))} |"
            )
    else:
        out.append(t("no_facts", lang))
    out.append("")
    inputs = data["inputs"]
    notes = [f"{t('conflict', lang)}: {c}" for c in inputs["conflicts"]] + list(inputs["notes"])
    if inputs["unknown_keys"]:
        notes.append(f"{t('unknown_keys', lang)}: {', '.join(inputs['unknown_keys'])}")
    if notes:
        out += [f"{_h('reader_notes', lang)}:", "", *[f"- {cell(n)}" for n in notes], ""]
    if transcript:
        out += [f"### {_h('interview', lang)}", ""]
        for question, answer in transcript:
            out.append(f"- {question or _h('you_said', lang)} → {cell(answer)}")
        out.append("")
    if pasted:
        out += [f"<details><summary>{_h('pasted', lang)}</summary>", ""]
        for text in pasted:
            out += [fenced(text.rstrip()), ""]
        out += ["</details>", ""]
    report = "\n".join(out).rstrip() + "\n"
    cleaned = for_file(report)
    if cleaned != report:
        cleaned += f"\n_{_h('redacted', lang)}._\n"
    return cleaned
