"""The output contract as types: what ``--format json`` promises, and what every renderer reads.

:func:`triage.render.contract.to_dict` builds the diagnosis as plain data and
:func:`validated` checks it against :class:`Output` before any format is
written, so text, markdown, JSON, the interview report and the TUI draw from
one checked object. The JSON Schema in ``docs/schema/output.schema.json`` is
generated from these models (``python -m triage.render.output``); a test
fails when it is stale. Extend the contract, never break it: a new field is
optional, and ``schema_version`` changes its minor number.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from triage.render.outbound import finite
from triage.render.snapshot import SnapshotOut
from triage.render.version import SCHEMA_VERSION

Number = float


class Model(BaseModel):
    """Unknown keys are errors: a field added in code but not here fails the tests."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True)


class EvidenceOut(Model):
    kind: str
    label: str
    weight: Number
    state: str
    facts: list[str] | None = None
    excerpt: str | None = None
    veto: bool | None = None


class CauseOut(Model):
    id: str
    category: str
    """One of the taxonomy's labels (shared/reference/taxonomy.md)."""
    title: str
    summary: str
    score: Number
    probability: Number
    """Shown to the user: the first cause's is calibrated on real reports (triage.engine.calibration), the others
    share the rest in the engine's proportions."""
    fired: bool
    excluded: bool
    evidence: list[EvidenceOut]
    unknown: list[str]
    remedies: list[str]


class RuledOut(Model):
    id: str
    category: str
    title: str
    why_not: list[str]


class Cost(Model):
    speed: str
    quality: str


class Requirement(Model):
    package: str
    specifier: str


class ChangeOut(Model):
    """One setting a remedy moves on this run."""

    fact: str
    before: bool | int | float | str | None
    """The run's value (the estimator's default when the user did not give it)."""
    after: bool | int | float | str | None
    assumed: bool | None = None
    """True when ``after`` is the estimator's assumption, not the remedy's (the GPU count of a one-GPU run
    that a remedy shards: ``gpu_count`` 1 -> 2 until the user says how many)."""


class OutcomeOut(Model):
    """The remedy applied alone to this run, as the estimator sizes it."""

    changes: list[ChangeOut]
    """Each setting moved, relative changes resolved (``max_length: half`` reads 2048 -> 1024)."""
    device_total_after_gib: Number
    """Expected device total with the remedy applied."""
    verdict_after: Literal["fits", "borderline", "does_not_fit", "unknown"]
    saving_unsized: str | None = None
    """Set when the saving cannot be sized from what is known (``length_distribution``); then ignore the size."""
    label: str
    """The same in words, as every format shows it (``render/labels.outcome_label``)."""


class Upgrade(Model):
    """A library upgrade that unlocks a remedy."""

    package: str
    have: str
    """The version the run has."""
    version: str
    """The first version the remedy needs (its ``>=`` requirement, as verified in the knowledge base)."""


class RemedyOut(Model):
    id: str
    title: str
    summary: str
    for_causes: list[str]
    weight: Number
    saving_gib: Number | None
    """GiB saved on this run (negative: the change costs memory); None when it cannot be sized."""
    saving: Literal["saves", "costs", "negligible"] | None = None
    """How ``saving_gib`` reads: every format says it the same way (``render/labels.py``)."""
    applicable: bool | None
    blockers: list[str]
    cost: Cost
    requires: list[Requirement]
    steps: dict[str, str]
    references: list[str]
    outcome: OutcomeOut | None = None
    """The remedy applied to this run (absent without an estimate or a modelled change)."""
    unlocked_by: list[Upgrade] | None = None
    """Set when only a too-old library keeps the remedy from the run: the upgrades that unlock it (its
    ``outcome`` and saving are then with the upgrade applied, and the plan may propose it with the upgrade)."""
    unlock_label: str | None = None
    """``unlocked_by`` in words."""


class MythOut(Model):
    id: str
    claim: str
    verdict: str
    correction: str
    matched: list[str]
    references: list[str]


class FactOut(Model):
    value: bool | int | float | str
    source: str
    type: str
    path: str | None = None
    line: int | None = None
    excerpt: str | None = None


class QuestionOut(Model):
    fact: str
    question: str
    help: str
    gain_bits: Number
    type: str
    values: list[bool | int | float | str]


class ReadAs(Model):
    path: str
    kind: str


class InputsOut(Model):
    read_as: list[ReadAs]
    conflicts: list[str]
    unknown_keys: list[str]
    notes: list[str]


class SimilarReport(Model):
    url: str
    title: str
    cause_category: str
    cause_id: str | None
    similarity: Number
    resolution: str | None = None


class Output(Model):
    """``triage diagnose --format json``."""

    schema_version: str = SCHEMA_VERSION
    triage_version: str
    lang: str
    evidence_state: Literal["indicated", "no_evidence", "out_of_scope"] = "indicated"
    """``no_evidence``: nothing the user gave points at any cause; the order of ``causes`` is only the prior.
    ``out_of_scope``: the report is about an inference server or an image model, which triage does not cover;
    the causes are listed for completeness only."""
    causes: list[CauseOut]
    ruled_out: list[RuledOut]
    remedies: list[RemedyOut]
    myths: list[MythOut]
    facts: dict[str, FactOut]
    questions: list[QuestionOut]
    done: bool
    memory: dict[str, Any] = Field(
        json_schema_extra={
            "description": "the estimate, as triage estimate --format json, with the plan (each step with "
            "its changes, outcome and label), alternatives (the estimate under each unknown setting that "
            "moves it by more than 10 %, with its label) and doubt (set when the user says the run trained but "
            "the estimate says it cannot fit at all)"
        }
    )
    inputs: InputsOut
    similar_reports: list[SimilarReport] = []
    snapshot: SnapshotOut | None = None
    """``--snapshot``: the live memory at the OOM by component, beside the estimate's components."""


def validated(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` checked against :class:`Output` and returned as strict JSON-ready data."""
    return Output.model_validate(finite(data)).model_dump(mode="json", exclude_unset=True)


def schema() -> str:
    """The JSON Schema of :class:`Output`, as committed in ``docs/schema/output.schema.json``."""
    return json.dumps(Output.model_json_schema(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


SCHEMA_PATH = Path("docs") / "schema" / "output.schema.json"


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    args = sys.argv[1:]
    if args == ["--check"]:
        current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.is_file() else ""
        print(f"ok: {SCHEMA_PATH} is current" if current == schema() else f"stale: {SCHEMA_PATH}")
        raise SystemExit(0 if current == schema() else 1)
    if len(args) > 1 or (args and args[0].startswith("-")):
        raise SystemExit("usage: python -m triage.render.output [--check | PATH]")
    target = Path(args[0]) if args else SCHEMA_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(schema(), encoding="utf-8")
    print(f"wrote {target}")
