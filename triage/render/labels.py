"""Every number and label a person reads, said once: sizes, savings, bars, values, sources, evidence.

Text, markdown, the interview report, ``triage ask`` and the TUI all call
these, so a remedy that costs 2.2 GiB reads "costs 2.2 GiB" in every format
and both languages, never "saves ~0" in one and "saves -2.2 GiB" in another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from triage.facts import FactSpec, FactType, Value
from triage.render.strings import STRINGS, t

GIB = 1024**3
#: Savings smaller than this (either sign) read as "~0": below the estimator's own precision.
NEGLIGIBLE_GIB = 0.05


def gib(n_gib: float, digits: int = 1) -> str:
    """``11.34`` -> ``"11.3 GiB"``."""
    return f"{n_gib:.{digits}f} GiB"


def size(n_bytes: int | float) -> str:
    """Bytes as a person reads them: ``24 GiB``, ``1.5 GiB``, ``512 MiB``."""
    if abs(n_bytes) >= 10 * GIB:
        return f"{n_bytes / GIB:.0f} GiB"
    if abs(n_bytes) >= GIB / 2:
        return f"{n_bytes / GIB:.1f} GiB"
    return f"{n_bytes / 1024**2:.0f} MiB"


def saving_kind(saving_gib: float | None) -> str | None:
    """``"saves"``, ``"costs"`` or ``"negligible"`` (None when the saving is unknown)."""
    if saving_gib is None:
        return None
    if saving_gib >= NEGLIGIBLE_GIB:
        return "saves"
    if saving_gib <= -NEGLIGIBLE_GIB:
        return "costs"
    return "negligible"


def saving_label(saving_gib: float | None, lang: str) -> str | None:
    """A remedy's saving on this run: "saves 11.3 GiB", "costs 2.2 GiB" or "saves ~0 on this run"."""
    kind = saving_kind(saving_gib)
    if kind is None or saving_gib is None:
        return None
    if kind == "saves":
        return f"{t('saves', lang)} {gib(saving_gib)}"
    if kind == "costs":
        return f"{t('costs', lang)} {gib(-saving_gib)}"
    return t("saves_nothing", lang)


def _setting(value: object, lang: str) -> str:
    """A setting's value in a change: on/off for yes/no, ``none`` for nothing, else as written."""
    if isinstance(value, bool):
        return t("value_on" if value else "value_off", lang)
    if value is None:
        return t("none", lang)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def changes_label(changes: list[Mapping[str, object]], lang: str) -> str:
    """``max_length 2048 → 1024, grad_accum 1 → 4``: the settings a remedy moves; a value the estimator
    assumed reads ``gpu_count 1 → 2 (assumed: say --fact gpu_count=N)``."""
    out = []
    for c in changes:
        said = f"{c['fact']} {_setting(c['before'], lang)} → {_setting(c['after'], lang)}"
        if c.get("assumed"):
            said += t("change_assumed", lang).format(fact=c["fact"])
        out.append(said)
    return ", ".join(out)


def unlock_label(upgrades: Sequence[Mapping[str, object]], lang: str) -> str:
    """ "upgrading is the way to it: transformers 4.31 → 4.36.0" (``RemedyOut.unlocked_by``)."""
    said = ", ".join(f"{u['package']} {u['have']} → {u['version']}" for u in upgrades)
    return t("upgrade_unlocks", lang).format(upgrades=said)


def verdict_label(verdict: object, lang: str) -> str:
    """The run's verdict in words: fits, fits only at the low end of the estimate, does not fit."""
    return t(f"outcome_{verdict}" if verdict in ("fits", "borderline", "does_not_fit") else "outcome_unknown", lang)


def peak_label(mem: Mapping[str, object], lang: str) -> str:
    """ "peak at backward: start of backward: saved activations and the loss (149.8 GiB allocated)"."""
    allocated = mem.get("peak_allocated_gib")
    return t("peak_at", lang).format(
        phase=mem.get("peak_phase"),
        detail=mem.get("peak_detail", ""),
        allocated=gib(float(allocated)) if isinstance(allocated, (int, float)) else "?",
    )


def outcome_label(outcome: Mapping[str, object] | None, lang: str, fitted_before: bool | None = None) -> str | None:
    """A remedy applied to the run: "max_length 2048 → 1024: 25.3 GiB, still does not fit".

    ``outcome`` is its JSON form (``RemedyOut.outcome``): the changes, the expected device total
    after and the verdict after. ``fitted_before`` False makes "does not fit" read "still does not
    fit". A saving that cannot be sized says what it needs instead of a number.
    """
    if not outcome:
        return None
    raw = outcome.get("changes")
    changes = changes_label(list(raw), lang) if isinstance(raw, list) else ""
    unsized = outcome.get("saving_unsized")
    if unsized:
        return (
            f"{changes}: {t(f'outcome_unsized_{unsized}', lang)}" if changes else t(f"outcome_unsized_{unsized}", lang)
        )
    verdict = str(outcome.get("verdict_after"))
    key = "outcome_still" if verdict == "does_not_fit" and fitted_before is False else f"outcome_{verdict}"
    after = outcome.get("device_total_after_gib")
    size_text = gib(float(after)) if isinstance(after, (int, float)) else "?"
    head = f"{changes}: " if changes else ""
    return f"{head}{size_text}, {t(key, lang)}"


def alternative_label(alt: Mapping[str, object], expected_gib: float, lang: str) -> str:
    """Both figures of an assumed setting that moves the estimate by more than 10 %:

    "finetune_method lora (assumed): 14.2 GiB; full: 58.1 GiB, does not fit — say which with --fact
    finetune_method=...". ``alt`` is the JSON form (``memory.alternatives``), ``expected_gib`` the
    estimate's own expected device total.
    """
    fact = str(alt["fact"])
    other = alt.get("device_total_expected_gib")
    size_text = gib(float(other)) if isinstance(other, (int, float)) else "?"
    verdict = t(f"outcome_{alt.get('verdict')}", lang)
    return t("alt_both", lang).format(
        fact=fact,
        assumed=_setting(alt.get("assumed"), lang),
        expected=gib(expected_gib),
        value=_setting(alt.get("value"), lang),
        other=size_text,
        verdict=verdict,
    )


def doubt_label(doubt: Mapping[str, object], lang: str) -> str:
    """The estimate contradicts what the user saw: say so, and what changes at the failing step."""
    steps = doubt.get("trained_steps")
    said = t("doubt_steps", lang).format(n=steps) if isinstance(steps, int) else t("doubt_while", lang)
    low, cap = doubt.get("low_gib"), doubt.get("capacity_gib")
    return t("doubt", lang).format(
        steps=said,
        low=gib(float(low)) if isinstance(low, (int, float)) else "?",
        cap=gib(float(cap)) if isinstance(cap, (int, float)) else "?",
    )


def probability_bar(p: float, cells: int = 10, full: str = "█", empty: str = "·") -> str:
    """``0.75`` -> ``███████···`` (rounded to the cell)."""
    filled = max(0, min(cells, round(p * cells)))
    return full * filled + empty * (cells - filled)


def fact_value(spec: FactSpec | None, value: Value, lang: str = "en") -> str:
    """A fact's value as a person reads it: yes/no, 24 GiB, 2048, 4.31.0."""
    if isinstance(value, bool):
        return t("ask_yes" if value else "ask_no", lang)
    if spec is not None and spec.type is FactType.bytes and isinstance(value, (int, float)):
        return size(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def answer_label(spec: FactSpec | None, value: Value, lang: str = "en") -> str:
    """A quick reply as the user would say it ("during training, not sure which step"), else :func:`fact_value`."""
    if spec is not None and isinstance(value, (str, int)) and not isinstance(value, bool):
        key = f"answer_{spec.id}_{value}"
        if key in STRINGS:
            return t(key, lang)
    return fact_value(spec, value, lang)


def source_label(fact: Mapping[str, object]) -> str:
    """Where a fact came from, from its JSON form: ``train.log:812``, ``symptom:1``, ``--fact``."""
    where = str(fact.get("path") or fact.get("source") or "")
    if fact.get("line") is not None:
        where += f":{fact['line']}"
    return where


def similar_summary(reports: list[dict[str, object]], lang: str) -> str | None:
    """ "3 similar public reports; 2 were resolved as no_grad_ckpt" (None when there are none)."""
    if not reports:
        return None
    counts: dict[str, int] = {}
    for r in reports:
        cat = str(r["cause_category"])
        counts[cat] = counts.get(cat, 0) + 1
    category, k = max(counts.items(), key=lambda kv: (kv[1], -list(counts).index(kv[0])))
    return t("similar_summary", lang).format(n=len(reports), k=k, category=category)
