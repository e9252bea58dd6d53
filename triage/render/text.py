"""Plain text for a terminal, wrapped to 80 columns."""

from __future__ import annotations

from typing import Any

from triage.render.labels import peak_label, saving_label, similar_summary, source_label, verdict_label
from triage.render.labels import probability_bar as _bar
from triage.render.strings import t
from triage.render.wrap import wrap

WIDTH = 80


def _wrap(text: str, indent: str, rest: str | None = None) -> list[str]:
    return wrap(text, WIDTH, indent, rest)


def _value(v: object, kind: str = "") -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if kind == "bytes" and isinstance(v, int):
        return f"{v / 1024**3:.2f} GiB" if v >= 1024**3 else f"{v / 1024**2:.0f} MiB"
    return str(v)


def _memory(mem: dict[str, Any], lang: str) -> list[str]:
    """The estimate as a stacked bar against the GPU, the components and the plan."""
    if not mem.get("estimated"):
        return [t("memory", lang), *_wrap(f"{t('no_estimate', lang)}: {mem['missing']}", "  ", "  "), ""]
    total = mem["device_total_gib"]
    cap = mem.get("gpu_capacity_gib")
    out = [t("memory", lang)]
    comps = sorted(mem["components"].items(), key=lambda kv: -kv[1])
    scale = max(total["high"], cap or 0) or 1.0
    cells = 60
    bar = ""
    marks = "#=+*%@&$"
    for i, (_, gib) in enumerate(comps):
        bar += marks[i % len(marks)] * round(gib / scale * cells)
    bar += "~" * max(0, round(total["expected"] / scale * cells) - len(bar))
    line = list(bar.ljust(cells, " "))
    if cap:
        at = min(cells - 1, round(cap / scale * cells))
        line[at] = "|"
    out.append(f"  [{''.join(line)}]")
    legend = ", ".join(
        f"{marks[i % len(marks)]} {name} {gib:.1f}" for i, (name, gib) in enumerate(comps) if gib >= 0.05
    )
    out += _wrap(f"{legend}, ~ {t('overhead_legend', lang)} (GiB)", "  ", "  ")
    verdict = verdict_label(mem.get("verdict"), lang)
    cap_text = f" / {cap:.1f} GiB GPU" if cap else ""
    out += _wrap(
        f"{verdict}: {t('expected', lang)} {total['expected']:.1f} GiB ({total['low']:.1f}-{total['high']:.1f})"
        f"{cap_text}; {peak_label(mem, lang)}",
        "  ",
        "    ",
    )
    if mem.get("doubt"):
        out += _wrap(f"! {mem['doubt']['label']}", "  ", "    ")
    for alt in mem.get("alternatives", []):
        out += _wrap(f"! {alt['label']}", "  ", "    ")
    fp = mem.get("fingerprint")
    if fp and fp.get("best"):
        out += _wrap(
            f"{t('failed_alloc', lang)} {fp['requested_gib']:.2f} GiB ≈ {fp['best']['description']} "
            f"({t('fp_confidence', lang).format(level=t(fp['confidence'], lang))})",
            "  ",
            "    ",
        )
    plan = mem.get("plan")
    if plan and plan["steps"]:
        steps = " + ".join(f"{s['label']} ({s['id']})" if s.get("label") else s["id"] for s in plan["steps"])
        result = t("fits", lang) if plan["fits"] else t("does_not_fit", lang)
        head = t("plan" if plan["fits"] else "plan_closest", lang)
        out += _wrap(f"{head}: {steps} ⇒ {plan['device_total_after_gib']:.1f} GiB ({result})", "  ", "    ")
    elif plan and not mem["fits"]:
        out += _wrap(t("no_plan", lang), "  ", "    ")
    for a in mem.get("assumptions", []):  # every one: each can move the estimate
        out += _wrap(f"{t('assumed', lang)} {a['fact']} = {_value(a['value'])}: {a['reason']}", "  ", "    ")
    return [*out, ""]


def _similar(reports: list[dict[str, Any]], lang: str) -> list[str]:
    summary = similar_summary(reports, lang)
    if summary is None:
        return []
    out = [t("similar", lang), *_wrap(summary, "  ", "  ")]
    for r in reports:
        head = f"- {r['title']} [{r['cause_category']}] {t('similarity', lang)} {r['similarity']:.2f}"
        out += _wrap(head, "  ", "    ")
        if r.get("resolution"):
            out += _wrap(str(r["resolution"]), "    ", "    ")
        out.append(f"    {r['url']}")
    return [*out, ""]


def render_text(data: dict[str, Any]) -> str:
    """Render the contract dict as 80-column text."""
    lang = data["lang"]
    out: list[str] = []
    for myth in data["myths"]:
        out += _wrap(f"! {t('claim', lang)}: {myth['claim']}  [{t(myth['verdict'], lang)}]", "", "  ")
        out += _wrap(myth["correction"], "  ")
        out.append("")
    scope = data["facts"].get("out_of_scope", {}).get("value")
    if data.get("evidence_state") == "out_of_scope" and scope:
        out += [*_wrap(t(f"out_of_scope_{scope}", lang), "", ""), ""]
        return "\n".join(out).rstrip() + "\n"
    out.append(t("causes", lang))
    guessing = data.get("evidence_state") == "no_evidence"
    if guessing:
        out += _wrap(t("no_evidence", lang), "  ", "  ")
    elif not any(c["fired"] for c in data["causes"]):
        out += _wrap(t("none_fired", lang), "  ")
    for n, cause in enumerate(data["causes"], 1):
        if guessing:
            out += _wrap(f"- {cause['title']} [{cause['category']}]", "  ", "    ")
            continue
        head = f"{n}. {_bar(cause['probability'])} {cause['probability']:>4.0%}  {cause['title']}"
        out += _wrap(head, "", "      ")
        out.append(f"      [{cause['category']}] score {cause['score']:+.2f}")
        for ev in cause["evidence"]:
            if ev["kind"] == "prior" or abs(ev["weight"]) < 0.05:
                continue
            sign = "+" if ev["weight"] >= 0 else "−"
            out += _wrap(f"{sign}{abs(ev['weight']):.1f}  {ev['label']}", "      ")
    out.append("")
    out += _similar(data.get("similar_reports") or [], lang)
    out += _memory(data["memory"], lang)
    if data.get("snapshot"):
        from triage.render.snapshot import snapshot_text  # pydantic models: only when there is a snapshot

        out += snapshot_text(data["snapshot"], lang)
    if data["remedies"]:
        out.append(t("remedies", lang))
        for n, rem in enumerate(data["remedies"], 1):
            mark = ""
            if rem["applicable"] is False:
                unlock = f"; {rem['unlock_label']}" if rem.get("unlock_label") else ""
                mark = f" ({t('blocked', lang)}: {'; '.join(rem['blockers'])}{unlock})"
            speed, quality = t(rem["cost"]["speed"], lang), t(rem["cost"]["quality"], lang)
            cost = f"{t('speed', lang)} {speed}, {t('quality', lang)} {quality}"
            label = saving_label(rem.get("saving_gib"), lang)
            saves = f"  [{label}]" if label else ""
            out += _wrap(f"{n}. {rem['title']}{saves}{mark}", "", "   ")
            if rem.get("outcome"):
                out += _wrap(f"→ {rem['outcome']['label']}", "   ", "     ")
            out += _wrap(rem["summary"], "   ")
            out += _wrap(f"{t('cost', lang)}: {cost}; {t('for', lang)} {', '.join(rem['for_causes'])}", "   ")
        out.append("")
    if data["questions"]:
        out.append(t("questions", lang))
        for q in data["questions"]:
            choices = f" [{'/'.join(_value(v) for v in q['values'])}]" if q["type"] in ("bool", "enum") else ""
            out += _wrap(f"- {q['question']}{choices}  (--fact {q['fact']}=...)", "  ", "    ")
        out.append("")
    out.append(t("facts", lang))
    if not data["facts"]:
        out.append(f"  {t('no_facts', lang)}")
    for name, fact in data["facts"].items():
        out += _wrap(f"{name} = {_value(fact['value'], fact['type'])}  ({source_label(fact)})", "  ", "    ")
    inputs = data["inputs"]
    for conflict in inputs["conflicts"]:
        out += _wrap(f"! {t('conflict', lang)}: {conflict}", "  ", "    ")
    if inputs["unknown_keys"]:
        out += _wrap(f"{t('unknown_keys', lang)}: {', '.join(inputs['unknown_keys'])}", "  ", "    ")
    for note in inputs["notes"]:
        out += _wrap(f"({note})", "  ", "   ")
    return "\n".join(out).rstrip() + "\n"
