"""``triage estimate`` and ``triage fit`` as text and JSON: each component, its bar and its formula."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from triage.render.labels import alternative_label
from triage.render.strings import t
from triage.render.wrap import wrap

if TYPE_CHECKING:
    from triage.estimate import Estimate, FitResult
    from triage.estimate.alternatives import Alternative
    from triage.pipeline import Inputs

GiB = 1024**3
WIDTH = 80


def capacity_bar(used: float, capacity: float, width: int = 40) -> str:
    """``[#####.....]`` filled to ``used / capacity``; `` >`` when it overflows."""
    if capacity <= 0:
        return ""
    filled = max(0, min(width, round(width * used / capacity)))
    return "[" + "#" * filled + "." * (width - filled) + "]" + (" >" if used > capacity else "")


def describe_run(est: Estimate, lang: str = "en") -> str:
    """One line: the model, the method, the dtype, the shape of a step, the GPU."""
    r = est.run
    method = r.method if not r.lora else f"{r.method} r={r.lora_r} ({','.join(r.lora_targets)})"
    quant = f" · {r.quantization}" if r.quantization != "none" else ""
    gpu = f" · {r.gpu.name}" if r.gpu else ""
    accum = f" x accum {r.grad_accum}" if r.grad_accum > 1 else ""
    return (
        f"{r.arch.name} · {method}{quant} · {r.weight_dtype} · b={r.batch} x s={r.seq}{accum} · "
        f"GC {t('value_on' if r.gc else 'value_off', lang)} · {r.attn} · {r.optimizer}{gpu}"
    )


def _inputs(inputs: Inputs | None, lang: str) -> list[str]:
    if inputs is None:
        return []
    out: list[str] = []
    for conflict in inputs.conflicts:
        out += wrap(f"{t('conflict', lang)}: {conflict}", WIDTH, "", "  ")
    for note in inputs.notes:
        out += wrap(f"{t('note', lang)}: {note}", WIDTH, "", "  ")
    if inputs.unknown_keys:
        out += wrap(f"{t('unknown_keys', lang)}: {', '.join(inputs.unknown_keys[:10])}", WIDTH, "", "  ")
    return [*out, ""] if out else []


def _alternatives_json(est: Estimate, alternatives: Sequence[Alternative], lang: str) -> list[dict[str, Any]]:
    expected = est.device_total.expected / GiB
    return [{**a.to_json(), "label": alternative_label(a.to_json(), expected, lang)} for a in alternatives]


def render_estimate(
    est: Estimate, inputs: Inputs | None = None, lang: str = "en", alternatives: Sequence[Alternative] = ()
) -> str:
    """The breakdown for an 80-column terminal; ``alternatives`` (assumed settings that move the
    estimate by more than 10 %) are shown with both figures after the verdict."""
    lines = [*_inputs(inputs, lang), *wrap(describe_run(est, lang), WIDTH, "", "  "), ""]
    peak = est.peak_bytes
    lines += wrap(
        f"{t('est_peak', lang)}: {peak / GiB:.2f} GiB, {est.peak_phase} ({est.peak.detail_in(lang)})", WIDTH, "", "  "
    )
    comps = sorted(est.components.items(), key=lambda kv: -kv[1])
    width = max((len(k) for k, _ in comps), default=10)
    for name, n in comps:
        share = n / peak if peak else 0
        lines.append(f"  {name:<{width}}  {n / GiB:8.2f} GiB  {'#' * max(1, round(20 * share))}")
        if name in est.sizes:
            lines += wrap(est.sizes[name].formula_in(lang), WIDTH, "      ")
    paged = est.sizes.get("optimizer_state_paged")
    if paged is not None and paged.bytes:
        lines += wrap(f"  ({t('est_paged', lang)}: {paged.bytes / GiB:.2f} GiB)", WIDTH, "", "   ")
    band = est.device_total
    lines.append("")
    lines += wrap(
        f"{t('est_device', lang)}: {band.low / GiB:.2f} / {band.expected / GiB:.2f} / {band.high / GiB:.2f} GiB "
        f"({t('est_band', lang)})",
        WIDTH,
    )
    for item in band.items:
        lines.append(f"  + {item.name:<16} {item.expected / GiB:6.2f} GiB ({item.low / GiB:.2f}-{item.high / GiB:.2f})")
        lines += wrap(item.why_in(lang), WIDTH, "      ")
    lines.append("")
    if est.capacity_bytes:
        cap = est.capacity_bytes
        verdict = {"fits": t("fits", lang), "borderline": t("est_borderline", lang)}.get(
            est.verdict, t("does_not_fit", lang)
        )
        lines.append(capacity_bar(band.expected, cap))
        short = "" if est.fits else f" ({t('est_short_by', lang)} {(band.expected - cap) / GiB:.2f} GiB)"
        lines.append(f"{band.expected / GiB:.2f} / {cap / GiB:.2f} GiB: {verdict.upper()}{short}")
        if est.verdict == "borderline":
            lines += wrap(f"  ({t('est_borderline_why', lang)})", WIDTH, "", "   ")
        if est.fits and band.high > cap:
            lines += wrap(f"  ({t('est_high_end', lang)})", WIDTH, "", "   ")
    else:
        lines += wrap(t("est_gpu_unknown", lang), WIDTH)
    if alternatives:
        lines += ["", t("alt_head", lang)]
        for alt in _alternatives_json(est, alternatives, lang):
            lines += wrap(f"- {alt['label']}", WIDTH, "  ", "    ")
    if est.notes:
        lines.append("")
        for note in est.notes_in(lang):
            lines += wrap(f"{t('note', lang)}: {note}", WIDTH, "", "  ")
    if est.assumptions:
        lines += ["", t("est_assumed", lang)]
        for a in est.assumptions:
            lines += wrap(f"- {a.fact} = {a.value}: {a.reason_in(lang)}", WIDTH, "  ", "    ")
    return "\n".join(lines) + "\n"


def inputs_json(inputs: Inputs | None) -> dict[str, Any]:
    """How the inputs were read: files, conflicts, keys not used, notes."""
    if inputs is None:
        return {"read_as": [], "conflicts": [], "unknown_keys": [], "notes": []}
    return {
        "read_as": [{"path": path, "kind": kind} for path, kind in inputs.read_as],
        "conflicts": list(inputs.conflicts),
        "unknown_keys": list(inputs.unknown_keys),
        "notes": list(inputs.notes),
    }


def estimate_json(
    est: Estimate, inputs: Inputs | None = None, alternatives: Sequence[Alternative] = (), lang: str = "en"
) -> dict[str, Any]:
    """The estimate's JSON with how its inputs were read and the alternatives of its assumptions."""
    return {
        **est.to_json(lang),
        "alternatives": _alternatives_json(est, alternatives, lang),
        "inputs": inputs_json(inputs),
    }


def fit_json(result: FitResult, solved: str, inputs: Inputs | None = None, lang: str = "en") -> dict[str, Any]:
    """``triage fit --format json``."""
    est = result.estimate
    return {
        "variable": result.variable,
        "value": result.value,
        "upper": result.upper,
        "target_gib": round(result.target_bytes / GiB, 3),
        "device_expected_gib": round(est.device_total.expected / GiB, 3),
        "peak_allocated_gib": round(est.peak_bytes / GiB, 3),
        "assumptions": [a.to_json(lang) for a in est.assumptions if a.fact != solved],
        "inputs": inputs_json(inputs),
    }


def render_fit(result: FitResult, solved: str, headroom: float, inputs: Inputs | None = None, lang: str = "en") -> str:
    """``triage fit`` as text."""
    est = result.estimate
    head = "\n".join([*_inputs(inputs, lang), describe_run(est, lang)])
    if result.value is None:
        return (
            f"{head}\n{t('fit_nothing', lang).format(var=solved)}: {est.device_total.expected / GiB:.2f} GiB "
            f"> {result.target_bytes / GiB:.2f} GiB.\n"
        )
    capped = f" ({t('fit_upper', lang)})" if result.value == result.upper else ""
    return (
        f"{head}\n{t('fit_largest', lang).format(var=solved)}: {result.value}{capped}: "
        f"{est.device_total.expected / GiB:.2f} GiB {t('expected', lang)}, {t('target', lang)} "
        f"{result.target_bytes / GiB:.2f} GiB ({headroom:.0%} {t('headroom', lang)}).\n"
    )
