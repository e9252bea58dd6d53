"""GitHub-flavoured markdown, ready to paste into an issue."""

from __future__ import annotations

from typing import Any

from triage.redact import redact
from triage.render.strings import t

#: The heading of the collapsible section with the user's own text.
_SYMPTOM = {"en": "Symptom", "zh": "症状"}


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _fenced(text: str, info: str) -> str:
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
    out += [f"### {t('causes', lang)}", "", "| # | cause | category | probability | score |", "|---|---|---|---|---|"]
    for n, c in enumerate(data["causes"], 1):
        out.append(f"| {n} | {_cell(c['title'])} | `{c['category']}` | {c['probability']:.0%} | {c['score']:+.2f} |")
    out.append("")
    for c in data["causes"]:
        out.append(f"<details><summary>{_cell(c['title'])}: {t('evidence', lang)}</summary>\n")
        for ev in c["evidence"]:
            quote = f" — “{ev['excerpt']}”" if ev.get("excerpt") else ""
            out.append(f"- `{ev['weight']:+.2f}` {ev['label']}{quote}")
        out += ["", "</details>", ""]
    if data["remedies"]:
        out += [f"### {t('remedies', lang)}", ""]
        for n, r in enumerate(data["remedies"], 1):
            note = f" — **{t('blocked', lang)}:** {'; '.join(r['blockers'])}" if r["applicable"] is False else ""
            out.append(f"{n}. **{r['title']}**{note}: {r['summary']}")
        out.append("")
    if data["questions"]:
        out += [f"### {t('questions', lang)}", ""]
        out += [f"- {q['question']} (`--fact {q['fact']}=...`)" for q in data["questions"]]
        out.append("")
    out += [f"### {t('facts', lang)}", "", "| fact | value | source |", "|---|---|---|"]
    for name, fact in data["facts"].items():
        where = fact.get("path") or fact["source"]
        if "line" in fact:
            where += f":{fact['line']}"
        out.append(f"| `{name}` | {_cell(fact['value'])} | {_cell(where)} |")
    if symptom is not None and symptom.strip():
        text = redact(symptom.strip("\n"))
        summary = _SYMPTOM.get(lang, _SYMPTOM["en"])
        out += ["", f"<details><summary>{summary}</summary>", "", _fenced(text, "symptom"), "", "</details>"]
    return "\n".join(out).rstrip() + "\n"
