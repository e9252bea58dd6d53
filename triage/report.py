"""The session as a markdown report, ready to paste into a GitHub issue.

Built from the JSON contract (:func:`triage.render.contract.to_dict`), so it
shows what every other output shows, plus what only an interview has: each
fact with where it came from, the questions and answers, and the text the
user pasted. Everything is passed through :func:`triage.redact.redact`
before it is returned: secrets in pasted text never reach the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from triage.engine.diagnose import Diagnosis
from triage.kb.loader import KnowledgeBase
from triage.redact import redact
from triage.render.contract import to_dict
from triage.render.strings import t

_HEADINGS: dict[str, dict[str, str]] = {
    "title": {"en": "triage report", "zh": "triage 诊断报告"},
    "most_likely": {"en": "Most likely", "zh": "最可能的原因"},
    "plan": {"en": "Plan", "zh": "修改计划"},
    "memory": {"en": "Memory", "zh": "显存"},
    "interview": {"en": "Questions and answers", "zh": "问答记录"},
    "pasted": {"en": "What was pasted", "zh": "粘贴的内容"},
    "you_said": {"en": "(free text)", "zh": "（自由输入）"},
    "undecided": {
        "en": "No cause is more likely than not yet.",
        "zh": "目前还没有哪个原因的可能性超过一半。",
    },
    "treats": {"en": "treats", "zh": "针对"},
    "redacted": {"en": "secrets were redacted", "zh": "已隐去密钥等敏感信息"},
}


def _h(key: str, lang: str) -> str:
    entry = _HEADINGS[key]
    return entry.get(lang, entry["en"])


def _cell(text: object) -> str:
    return " ".join(str(text).replace("|", "\\|").split())


def _fence(text: str) -> str:
    fence = "`" * max([3, *(len(run) + 1 for run in _backtick_runs(text))])
    return f"{fence}\n{text.rstrip()}\n{fence}"


def _backtick_runs(text: str) -> list[str]:
    runs, current = [], ""
    for ch in text:
        if ch == "`":
            current += ch
        elif current:
            runs.append(current)
            current = ""
    if current:
        runs.append(current)
    return runs


def _source(fact: dict[str, Any]) -> str:
    where = str(fact.get("path") or fact["source"])
    if "line" in fact:
        where += f":{fact['line']}"
    return where


def _causes(data: dict[str, Any], lang: str) -> list[str]:
    out = [f"### {t('causes', lang)}", "", "| # | cause | category | probability |", "|---|---|---|---|"]
    for n, c in enumerate(data["causes"], 1):
        out.append(f"| {n} | {_cell(c['title'])} | `{c['category']}` | {c['probability']:.0%} |")
    out.append("")
    for c in data["causes"]:
        out.append(f"<details><summary>{_cell(c['title'])} (<code>{c['id']}</code>): {t('evidence', lang)}</summary>\n")
        for ev in c["evidence"]:
            if ev["kind"] == "prior":
                continue
            quote = f" — “{ev['excerpt']}”" if ev.get("excerpt") else ""
            facts = ""
            if ev.get("facts"):
                named = [
                    f"`{f}`" + (f" ({_source(data['facts'][f])})" if f in data["facts"] else "") for f in ev["facts"]
                ]
                facts = " — " + ", ".join(named)
            out.append(f"- `{ev['weight']:+.2f}` {ev['label']}{quote}{facts}")
        out += ["", "</details>", ""]
    if data["ruled_out"]:
        out += [f"**{t('ruled_out', lang)}:**", ""]
        for r in data["ruled_out"]:
            why = "; ".join(r["why_not"]) or "-"
            out.append(f"- {r['title']} (`{r['id']}`): {t('why_not', lang)}: {why}")
        out.append("")
    return out


def _plan(data: dict[str, Any], lang: str, savings: dict[str, str]) -> list[str]:
    if not data["remedies"]:
        return []
    out = [f"### {_h('plan', lang)}", ""]
    for n, r in enumerate(data["remedies"], 1):
        state = ""
        if r["applicable"] is False:
            state = f" — **{t('blocked', lang)}:** {'; '.join(r['blockers'])}"
        elif r["applicable"] is None:
            state = f" ({t('maybe', lang)})"
        saving = f" — {savings[r['id']]}" if r["id"] in savings else ""
        cost = f"{t('speed', lang)} {t(r['cost']['speed'], lang)}, {t('quality', lang)} {t(r['cost']['quality'], lang)}"
        out.append(f"{n}. **{r['title']}**{saving}{state}: {r['summary']} ({t('cost', lang)}: {cost})")
        steps = r["steps"]
        if steps:
            first = next(iter(steps))
            out += ["", "   " + _fence(str(steps[first])).replace("\n", "\n   ")]
    out.append("")
    return out


def render_report(
    kb: KnowledgeBase,
    diagnosis: Diagnosis,
    *,
    transcript: Sequence[tuple[str, str]] = (),
    pasted: Sequence[str] = (),
    memory: Sequence[str] = (),
    savings: dict[str, str] | None = None,
    top: int = 5,
) -> str:
    """The markdown report, secrets redacted.

    ``transcript`` holds (question, answer) pairs (an empty question marks free
    text), ``pasted`` the raw texts, ``memory`` lines describing the memory
    estimate, ``savings`` a label per remedy id (e.g. "saves 11.3 GiB").
    """
    data = to_dict(kb, diagnosis, top=top)
    lang = data["lang"]
    out = [f"## {_h('title', lang)} (triage {data['triage_version']})", ""]
    fired = [c for c in data["causes"] if c["fired"]]
    if fired:
        best = fired[0]
        out += [f"**{_h('most_likely', lang)}:** {best['title']} ({best['probability']:.0%})", "", best["summary"], ""]
    else:
        out += [_h("undecided", lang), ""]
    out += _causes(data, lang)
    out += _plan(data, lang, savings or {})
    if memory:
        out += [f"### {_h('memory', lang)}", "", *[f"- {line}" for line in memory], ""]
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
                f"| `{name}` | {_cell(fact['value'])} | {_cell(_source(fact))} | {_cell(fact.get('excerpt', ''))} |"
            )
    else:
        out.append(t("no_facts", lang))
    out.append("")
    if transcript:
        out += [f"### {_h('interview', lang)}", ""]
        for question, answer in transcript:
            out.append(f"- {question or _h('you_said', lang)} → {_cell(answer)}")
        out.append("")
    if pasted:
        out += [f"<details><summary>{_h('pasted', lang)}</summary>", ""]
        for text in pasted:
            out += [_fence(text), ""]
        out += ["</details>", ""]
    report = "\n".join(out).rstrip() + "\n"
    cleaned = redact(report)
    if cleaned != report:
        cleaned += f"\n_{_h('redacted', lang)}._\n"
    return cleaned
