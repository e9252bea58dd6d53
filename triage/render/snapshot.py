"""The memory snapshot beside the estimate: the ``snapshot`` object of the output contract, and its text.

A snapshot (``triage diagnose --snapshot``) says what was live on the device
when it ran out, by component (:mod:`triage.ingest.snapshot`); the estimator
says what it expected at the run's peak. Both are put in the same components
here so a person can see which one the estimate got wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from triage.ingest.snapshot import COMPONENTS
from triage.render.strings import t
from triage.render.wrap import width, wrap

if TYPE_CHECKING:
    from triage.ingest.snapshot import SnapshotMemory
    from triage.quantify import Memory

GIB = 1024**3
Number = float


class Model(BaseModel):
    """As :class:`triage.render.output.Model` (which imports these): unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True)


#: The estimator's components (``triage/estimate/components``) in the snapshot's components.
ESTIMATE_COMPONENT = {
    "weights": "weights",
    "lora_adapters": "weights",
    "modules_to_save": "weights",
    "master_weights": "weights",
    "gradients": "gradients",
    "tied_embedding_grads": "gradients",
    "optimizer_state": "optimizer_state",
    "optimizer_temps": "optimizer_state",
    "activations": "activations",
    "attention_scores": "activations",
    "recompute": "activations",
    "attention_mask": "activations",
    "autocast_copies": "activations",
    "eval_forward": "activations",
    "generation_prefill": "activations",
    "logits_loss": "logits_loss",
    "eval_logits": "logits_loss",
    "kv_cache": "kv_cache",
}


class SnapshotRow(Model):
    component: str
    """weights, gradients, optimizer_state, activations, logits_loss, kv_cache or other."""
    snapshot_gib: Number
    """Live at the snapshot."""
    estimate_gib: Number | None
    """The estimator's bytes for the same component at its peak (None without an estimate)."""


class LiveBlockOut(Model):
    gib: Number
    component: str
    where: str


class SnapshotOut(Model):
    """``triage diagnose --snapshot``: live memory at the OOM by component, beside the estimate."""

    path: str
    device: int
    allocated_gib: Number
    reserved_gib: Number
    requested_gib: Number | None = None
    """The allocation that failed (the snapshot's ``oom`` event)."""
    device_free_gib: Number | None = None
    without_stack_gib: Number
    """Live memory with no recorded allocation stack (counted in ``other``)."""
    estimate_phase: str | None = None
    """The estimator's peak the ``estimate_gib`` column describes (``backward: start of backward...``)."""
    rows: list[SnapshotRow]
    largest: list[LiveBlockOut]
    notes: list[str]


def _gib(n: int | None) -> float | None:
    return None if n is None else round(n / GIB, 3)


def estimate_by_component(components: Mapping[str, int]) -> dict[str, int]:
    """The estimator's live bytes per snapshot component (unknown names in ``other``)."""
    out = dict.fromkeys(COMPONENTS, 0)
    for name, n in components.items():
        out[ESTIMATE_COMPONENT.get(name, "other")] += n
    return out


def snapshot_dict(snap: SnapshotMemory | None, memory: Memory | None, lang: str = "en") -> dict[str, Any] | None:
    """The ``snapshot`` object of the output, or None without a snapshot (the estimate's moment in ``lang``)."""
    if snap is None:
        return None
    est = memory.estimate if memory is not None else None
    theirs = estimate_by_component(est.components) if est is not None else None
    rows = [
        {
            "component": name,
            "snapshot_gib": _gib(snap.components.get(name, 0)),
            "estimate_gib": None if theirs is None else _gib(theirs[name]),
        }
        for name in COMPONENTS
    ]
    return {
        "path": snap.path,
        "device": snap.device,
        "allocated_gib": _gib(snap.allocated),
        "reserved_gib": _gib(snap.reserved),
        "requested_gib": _gib(snap.requested),
        "device_free_gib": _gib(snap.device_free),
        "without_stack_gib": _gib(snap.without_stack),
        "estimate_phase": f"{est.peak.name}: {est.peak.detail_in(lang)}" if est is not None else None,
        "rows": rows,
        "largest": [{"gib": _gib(b.bytes), "component": b.component, "where": b.where} for b in snap.largest],
        "notes": list(snap.notes),
    }


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _head(data: Mapping[str, Any], lang: str) -> str:
    text = t("snapshot_head", lang).format(
        path=data["path"], device=data["device"], allocated=data["allocated_gib"], reserved=data["reserved_gib"]
    )
    if data.get("requested_gib") is not None:
        text += t("snapshot_failed", lang).format(requested=data["requested_gib"])
    return text


def _cells(*cells: tuple[str, int, str]) -> str:
    """Cells padded to display widths: (text, width, '<' or '>')."""
    out = []
    for text, cols, align in cells:
        pad = " " * max(0, cols - width(text))
        out.append(text + pad if align == "<" else pad + text)
    return "  " + " ".join(out)


def snapshot_text(data: Mapping[str, Any] | None, lang: str) -> list[str]:
    """Plain-text lines: a two-column table of components (snapshot, estimate) and the largest live blocks."""
    if not data:
        return []
    out = [t("snapshot_title", lang), *wrap(_head(data, lang), 80, "  ", "    ")]
    out.append(
        _cells(
            (t("snapshot_component", lang), 18, "<"),
            (t("snapshot_live", lang), 12, ">"),
            (t("snapshot_estimate", lang), 14, ">"),
        )
    )
    for row in data["rows"]:
        if row["snapshot_gib"] or row["estimate_gib"]:
            name = t("component_" + row["component"], lang)
            out.append(
                _cells((name, 18, "<"), (_num(row["snapshot_gib"]), 12, ">"), (_num(row["estimate_gib"]), 14, ">"))
            )
    if data.get("estimate_phase"):
        out += wrap(f"({t('snapshot_estimate_at', lang)} {data['estimate_phase']})", 80, "  ", "   ")
    for block in data["largest"][:3]:
        line = f"- {block['gib']:.2f} GiB {t('component_' + block['component'], lang)}: {block['where']}"
        out += wrap(line, 80, "  ", "    ")
    out += wrap(f"({t('snapshot_unverified', lang)})", 80, "  ", "   ")
    for note in data["notes"]:
        out += wrap(f"({note})", 80, "  ", "   ")
    return [*out, ""]


def snapshot_markdown(data: Mapping[str, Any] | None, lang: str) -> list[str]:
    """The same as a markdown table."""
    if not data:
        return []
    out = [f"### {t('snapshot_title', lang)}", "", _head(data, lang), ""]
    out += [f"| {t('snapshot_component', lang)} | {t('snapshot_live', lang)} | {t('snapshot_estimate', lang)} |"]
    out.append("|---|---|---|")
    for row in data["rows"]:
        if row["snapshot_gib"] or row["estimate_gib"]:
            name = t("component_" + row["component"], lang)
            out.append(f"| {name} | {_num(row['snapshot_gib'])} | {_num(row['estimate_gib'])} |")
    out.append("")
    if data.get("estimate_phase"):
        out += [f"{t('snapshot_estimate_at', lang)} {data['estimate_phase']}", ""]
    for block in data["largest"][:3]:
        out.append(f"- {block['gib']:.2f} GiB {t('component_' + block['component'], lang)}: `{block['where']}`")
    out += ["", f"_{t('snapshot_unverified', lang)}_", ""]
    out += [f"- {note}" for note in data["notes"]]
    return out
