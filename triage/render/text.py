"""Plain text for a terminal, wrapped to 80 columns."""

from __future__ import annotations

from typing import Any

from triage.render.strings import t
from triage.render.wrap import wrap

WIDTH = 80


def _wrap(text: str, indent: str, rest: str | None = None) -> list[str]:
    return wrap(text, WIDTH, indent, rest)


def _bar(p: float, cells: int = 10) -> str:
    filled = round(p * cells)
    return "█" * filled + "·" * (cells - filled)


def _value(v: object, kind: str = "") -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if kind == "bytes" and isinstance(v, int):
        return f"{v / 1024**3:.2f} GiB" if v >= 1024**3 else f"{v / 1024**2:.0f} MiB"
    return str(v)


def render_text(data: dict[str, Any]) -> str:
    """Render the contract dict as 80-column text."""
    lang = data["lang"]
    out: list[str] = []
    for myth in data["myths"]:
        out += _wrap(f"! {t('claim', lang)}: {myth['claim']}  [{t(myth['verdict'], lang)}]", "", "  ")
        out += _wrap(myth["correction"], "  ")
        out.append("")
    out.append(t("causes", lang))
    if not any(c["fired"] for c in data["causes"]):
        out += _wrap(t("none_fired", lang), "  ")
    for n, cause in enumerate(data["causes"], 1):
        head = f"{n}. {_bar(cause['probability'])} {cause['probability']:>4.0%}  {cause['title']}"
        out += _wrap(head, "", "      ")
        out.append(f"      [{cause['category']}] score {cause['score']:+.2f}")
        for ev in cause["evidence"]:
            if ev["kind"] == "prior":
                continue
            sign = "+" if ev["weight"] >= 0 else "−"
            out += _wrap(f"{sign}{abs(ev['weight']):.1f}  {ev['label']}", "      ")
    out.append("")
    if data["remedies"]:
        out.append(t("remedies", lang))
        for n, rem in enumerate(data["remedies"], 1):
            mark = ""
            if rem["applicable"] is False:
                mark = f" ({t('blocked', lang)}: {'; '.join(rem['blockers'])})"
            speed, quality = t(rem["cost"]["speed"], lang), t(rem["cost"]["quality"], lang)
            cost = f"{t('speed', lang)} {speed}, {t('quality', lang)} {quality}"
            out += _wrap(f"{n}. {rem['title']}{mark}", "")
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
        where = fact.get("path") or fact["source"]
        if "line" in fact:
            where += f":{fact['line']}"
        out += _wrap(f"{name} = {_value(fact['value'], fact['type'])}  ({where})", "  ", "    ")
    inputs = data["inputs"]
    for conflict in inputs["conflicts"]:
        out += _wrap(f"! {t('conflict', lang)}: {conflict}", "  ", "    ")
    if inputs["unknown_keys"]:
        out += _wrap(f"{t('unknown_keys', lang)}: {', '.join(inputs['unknown_keys'])}", "  ", "    ")
    for note in inputs["notes"]:
        out += _wrap(f"({note})", "  ", "   ")
    return "\n".join(out).rstrip() + "\n"
