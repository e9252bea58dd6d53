"""GitHub-flavoured markdown, ready to paste into an issue."""

from __future__ import annotations

from typing import Any

from triage.render.labels import peak_label, saving_label, similar_summary, source_label, verdict_label
from triage.render.strings import t

#: The heading of the collapsible section with the user's own text.
_SYMPTOM = {"en": "Symptom", "zh": "症状"}


def cell(text: object) -> str:
    """``text`` as one markdown table cell: pipes escaped, every run of blanks and line breaks one space."""
    return " ".join(str(text).replace("|", "\\|").split())


def fenced(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it, so nothing can close it early."""
    longest = max([0, *(len(m) for m in _backtick_runs(text))])
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _backtick_runs(text: str) -> list[str]:
    runs, current = [], ""
    for ch in text:
        if ch == "`":
            current += ch
            continue
        if current:
            runs.append(current)
        current = ""
    if current:
        runs.append(current)
    return runs


def _memory(mem: dict[str, Any], lang: str) -> list[str]:
    out = [f"### {t('memory', lang)}", ""]
    if not mem.get("estimated"):
        return [*out, f"{t('no_estimate', lang)}: {mem['missing']}", ""]
    total = mem["device_total_gib"]
    verdict = verdict_label(mem.get("verdict"), lang)
    cap = mem.get("gpu_capacity_gib")
    cap_text = f" / {cap:.1f} GiB" if cap else ""
    out += [
        f"**{verdict}**: {t('expected', lang)} {total['expected']:.1f} GiB "
        f"({total['low']:.1f}–{total['high']:.1f}){cap_text}; {peak_label(mem, lang)}",
        "",
        f"| {t('md_component', lang)} | GiB | {t('md_how', lang)} |",
        "|---|---|---|",
    ]
    formulas = mem.get("formulas", {})
    for name, gib in sorted(mem["components"].items(), key=lambda kv: -kv[1]):
        out.append(f"| {name} | {gib:.2f} | {cell(formulas.get(name, ''))} |")
    for item in mem.get("overheads", []):
        out.append(f"| {item['name']} ({t('overhead_row', lang)}) | {item['expected_gib']:.2f} | {cell(item['why'])} |")
    out.append("")
    if mem.get("doubt"):
        out += [f"> {mem['doubt']['label']}", ""]
    alts = mem.get("alternatives", [])
    if alts:
        out += [f"**{t('alt_head', lang)}**", "", *(f"- {a['label']}" for a in alts), ""]
    plan = mem.get("plan")
    if plan and plan["steps"]:
        steps = ", ".join(f"`{s['id']}`" + (f" ({s['label']})" if s.get("label") else "") for s in plan["steps"])
        result = t("fits", lang) if plan["fits"] else t("does_not_fit", lang)
        head = t("plan" if plan["fits"] else "plan_closest", lang)
        out += [f"**{head}:** {steps} → {plan['device_total_after_gib']:.1f} GiB ({result})", ""]
    assumed = mem.get("assumptions", [])
    if assumed:
        out += [f"<details><summary>{t('assumed', lang)}</summary>", ""]
        out += [f"- `{a['fact']}` = {a['value']}: {a['reason']}" for a in assumed]
        out += ["", "</details>", ""]
    return out


def render_markdown(data: dict[str, Any], symptom: str | None = None) -> str:
    """Render the contract dict as a markdown report.

    ``symptom`` (the text the user gave) is appended, secrets redacted, as a
    collapsible "Symptom" section with a fenced ``symptom`` block, so
    ``triage kb case-from-report`` can turn the report into a case.
    """
    lang = data["lang"]
    out = [f"## triage {data['triage_version']}", ""]
    if data["myths"]:
        out += [f"### {t('myths', lang)}", ""]
        for myth in data["myths"]:
            out.append(f"> **{t('claim', lang)}:** {myth['claim']} — *{t(myth['verdict'], lang)}*")
            out += [">", f"> {myth['correction']}", ""]
    scope = data["facts"].get("out_of_scope", {}).get("value")
    if data.get("evidence_state") == "out_of_scope" and scope:
        out += [t(f"out_of_scope_{scope}", lang), ""]
        return "\n".join(out).rstrip() + "\n"
    out += [f"### {t('causes', lang)}", ""]
    if data.get("evidence_state") == "no_evidence":
        out += [t("no_evidence", lang), ""]
        out += [f"- {cell(c['title'])} (`{c['category']}`)" for c in data["causes"]]
        out.append("")
    else:
        out += ["| # | cause | category | probability | score |", "|---|---|---|---|---|"]
        for n, c in enumerate(data["causes"], 1):
            out.append(f"| {n} | {cell(c['title'])} | `{c['category']}` | {c['probability']:.0%} | {c['score']:+.2f} |")
        out.append("")
    reports = data.get("similar_reports") or []
    summary = similar_summary(reports, lang)
    if summary:
        out += [f"### {t('similar', lang)}", "", summary, ""]
        for r in reports:
            res = f": {cell(r['resolution'])}" if r.get("resolution") else ""
            out.append(f"- [{cell(r['title'])}]({r['url']}) `{r['cause_category']}` ({r['similarity']:.2f}){res}")
        out.append("")
    for c in data["causes"]:
        out.append(f"<details><summary>{cell(c['title'])}: {t('evidence', lang)}</summary>\n")
        for ev in c["evidence"]:
            quote = f" — “{ev['excerpt']}”" if ev.get("excerpt") else ""
            out.append(f"- `{ev['weight']:+.2f}` {ev['label']}{quote}")
        out += ["", "</details>", ""]
    out += _memory(data["memory"], lang)
    if data.get("snapshot"):
        from triage.render.snapshot import snapshot_markdown  # pydantic models: only when there is a snapshot

        out += snapshot_markdown(data["snapshot"], lang)
    if data["remedies"]:
        out += [f"### {t('remedies', lang)}", ""]
        for n, r in enumerate(data["remedies"], 1):
            unlock = f"; {r['unlock_label']}" if r.get("unlock_label") else ""
            note = (
                f" — **{t('blocked', lang)}:** {'; '.join(r['blockers'])}{unlock}" if r["applicable"] is False else ""
            )
            label = saving_label(r.get("saving_gib"), lang)
            saves = f" ({label})" if label else ""
            after = f" → {r['outcome']['label']}" if r.get("outcome") else ""
            out.append(f"{n}. **{r['title']}**{saves}{after}{note}: {r['summary']}")
        out.append("")
    if data["questions"]:
        out += [f"### {t('questions', lang)}", ""]
        out += [f"- {q['question']} (`--fact {q['fact']}=...`)" for q in data["questions"]]
        out.append("")
    out += [f"### {t('facts', lang)}", "", "| fact | value | source |", "|---|---|---|"]
    for name, fact in data["facts"].items():
        out.append(f"| `{name}` | {cell(fact['value'])} | {cell(source_label(fact))} |")
    inputs = data.get("inputs", {})
    for conflict in inputs.get("conflicts", []):
        out.append(f"> {t('conflict', lang)}: {conflict}")
    if inputs.get("unknown_keys"):
        out.append(f"\n{t('unknown_keys', lang)}: " + ", ".join(f"`{k}`" for k in inputs["unknown_keys"]))
    if symptom is not None and symptom.strip():
        text = symptom.strip("\n")  # redacted with the rest at the door out (render/outbound.py)
        summary = _SYMPTOM.get(lang, _SYMPTOM["en"])
        out += ["", f"<details><summary>{summary}</summary>", "", fenced(text, "symptom"), "", "</details>"]
    return "\n".join(out).rstrip() + "\n"
