"""Quantify a session: the memory estimate, each remedy's saving on this run, and the plan that fits.

This is the stage around the diagnosis: :func:`derive` adds the estimator's
derived facts before causes are scored (weights alone exceed the GPU, ...),
:func:`saver` gives the engine each remedy's saving so it can rank remedies by
what they buy on *this* run, and :func:`quantify` runs the planner over the
remedies the diagnosis found applicable. Without a known model the estimate
is absent and :attr:`Memory.missing` says what it needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from triage.engine.conditions import version_in
from triage.engine.diagnose import Diagnosis, remedy_status
from triage.engine.questions import Question, ease_of, moot
from triage.engine.scoring import version_fact
from triage.estimate import (
    NOT_ESTIMABLE,
    Estimate,
    Fingerprint,
    Plan,
    Target,
    derived_facts,
    estimate,
    fingerprint,
    plan,
    saving_detail,
    seen_per_param,
)
from triage.estimate.alternatives import Alternative, alternatives
from triage.estimate.changes import MODELED
from triage.facts import Fact, FactSet, Source
from triage.ingest.model_names import is_moe
from triage.kb.models import FactSpec, Remedy


@dataclass(frozen=True)
class Outcome:
    """One remedy applied to this run: the settings it moves, the estimate after and the verdict."""

    saving_bytes: int | None
    """Expected device total before minus after; None when it cannot be sized (see ``unsized``)."""
    after_bytes: int
    """Expected device total with the remedy applied."""
    verdict: str
    """The run's verdict after the change: fits, borderline, does_not_fit or unknown (no GPU)."""
    targets: tuple[Target, ...]
    """Each setting moved, with its value on the run and after (relative changes resolved)."""
    unsized: str | None = None
    """Why the saving cannot be sized (``length_distribution``), when it cannot."""


#: How much the estimate's derived facts count as evidence when they contradict what the user saw.
DOUBTED_WEIGHT = 0.5


@dataclass(frozen=True)
class Doubt:
    """The user says the run trained, the estimate says it cannot fit at all: one of them is wrong."""

    trained_steps: int | None
    """The step it failed at, when known (None: "it trained for a while")."""
    low_bytes: int
    """The low end of the estimate's device total, already over the GPU."""
    capacity_bytes: int


def doubt(facts: FactSet, est: Estimate | None) -> Doubt | None:
    """A :class:`Doubt` when the run trained before the OOM but even the low end of the estimate is
    over the GPU (verdict ``does_not_fit``); then the estimate's derived facts count
    :data:`DOUBTED_WEIGHT` as evidence, and every face says what changes at the failing step."""
    if est is None or est.capacity_bytes is None or est.verdict != "does_not_fit":
        return None
    step = facts.value("oom_step")
    steps = step if isinstance(step, int) and not isinstance(step, bool) and step > 0 else None
    if steps is None and facts.value("trained_before_oom") is not True:
        return None
    if facts.value("phase") in ("loading", "merging"):
        return None
    return Doubt(steps, est.device_total.low, est.capacity_bytes)


@dataclass(frozen=True)
class Memory:
    """What the estimator says about a run."""

    estimate: Estimate | None
    """None when the run cannot be estimated (see ``missing``)."""
    missing: str | None
    """Why there is no estimate: what the user should give."""
    plan: Plan | None
    """The cheapest set of applicable remedies that fits; None without an estimate or a GPU."""
    fingerprint: Fingerprint | None
    """Which predicted tensor the failing allocation most likely was."""
    outcomes: Mapping[str, Outcome] = field(default_factory=dict)
    """Per remedy id: the remedy applied alone to this run (every remedy with a modelled change)."""
    alternatives: tuple[Alternative, ...] = ()
    """The run under the other value of each assumed setting that moves the estimate by more than 10 %."""
    doubt: Doubt | None = None
    """Set when the estimate contradicts what the user saw (it trained, yet cannot fit at all)."""
    missing_zh: str = ""
    """``missing`` in Chinese, when the estimator says it in Chinese."""

    def missing_in(self, lang: str) -> str | None:
        """Why there is no estimate, in ``lang``."""
        return self.missing_zh if lang == "zh" and self.missing_zh else self.missing


def try_estimate(facts: FactSet) -> tuple[Estimate | None, str | None]:
    """The estimate, or None and the reason it cannot be made."""
    try:
        return estimate(facts), None
    except NOT_ESTIMABLE as exc:
        return None, str(exc).strip("'\"")


#: The run settings each derived fact rests on. A derived fact is evidence only when none of
#: them was an assumption of the estimator: "fits at batch 1" computed from an assumed
#: max_length says nothing about the user's run.
DEPENDS_ON: dict[str, frozenset[str]] = {
    "weights_exceed_gpu": frozenset({"quantization"}),
    "whole_weights_exceed_gpu": frozenset({"quantization"}),
    "weights_gpu_share": frozenset({"quantization"}),
    "does_not_fit_at_batch_1": frozenset({"max_length", "gradient_checkpointing", "quantization"}),
    # the state of a full fine-tune is 8 times a LoRA run's weights; spread over an assumed 2 GPUs it says nothing
    "state_gpu_share": frozenset({"finetune_method", "quantization", "gpu_count"}),
    "largest_component": frozenset({"max_length", "batch_size", "gradient_checkpointing"}),
    "estimated_peak_bytes": frozenset({"max_length", "batch_size", "gradient_checkpointing"}),
}


def derive(facts: FactSet) -> FactSet:
    """``facts`` plus what follows from them (:func:`implied`) and the estimator's derived facts that rest on what the
    user said; stated facts win."""
    facts = implied(facts)
    seen = [f for f in seen_per_param(facts) if f.name not in facts]
    facts = facts.with_facts(seen) if seen else facts
    try:
        est = estimate(facts)
        derived = derived_facts(facts, est=est)
    except NOT_ESTIMABLE:
        return facts
    assumed = {a.fact for a in est.assumptions}
    kept = [f for f in derived if f.name not in facts and not DEPENDS_ON.get(f.name, frozenset()) & assumed]
    if not _quantization_known(facts) and any(f.name in _TOO_BIG_IF_UNQUANTIZED and f.value is True for f in kept):
        kept = _even_in_8bit(facts, kept)
    return facts.with_facts(kept)


def implied(facts: FactSet) -> FactSet:
    """``facts`` plus what follows from one of them by definition, so the interview does not ask it:

    - the step it failed at says whether the run trained first (``trained_before_oom``, from the step's source);
    - an OOM while the model loads came before any training step (``trained_before_oom`` false, from the phase's);
    - a model whose name says it is a mixture of experts is one (``moe``, from the name's source).
    """
    more: list[Fact] = []
    name = facts.facts.get("model_name")
    if "moe" not in facts and name is not None and is_moe(str(name.value)):
        more.append(Fact("moe", True, name.source))
    step, phase = facts.facts.get("oom_step"), facts.facts.get("phase")
    if "trained_before_oom" in facts:
        pass
    elif step is not None and isinstance(step.value, int) and not isinstance(step.value, bool):
        more.append(Fact("trained_before_oom", step.value > 0, step.source))
    elif phase is not None and phase.value == "loading":
        more.append(Fact("trained_before_oom", False, phase.source))
    return facts.with_facts(more) if more else facts


#: Derived facts whose "true" rests on the weights' size, hence on the quantization.
_TOO_BIG_IF_UNQUANTIZED = frozenset(name for name, on in DEPENDS_ON.items() if "quantization" in on)


def _quantization_known(facts: FactSet) -> bool:
    """Whether the run's quantization is stated or implied by its method (QLoRA is 4-bit, a full fine-tune none)."""
    return "quantization" in facts or facts.value("finetune_method") in ("qlora", "full")


def _even_in_8bit(facts: FactSet, derived: list[Fact]) -> list[Fact]:
    """``derived`` with its "too big" facts kept only where they hold even for an 8-bit base.

    The estimator sizes an unstated quantization as none without calling it an assumption, and "the
    weights do not fit" is then weak evidence: a 13B model fits a 24 GB card in 8 bits (qlora#225). It
    stays evidence, sized in 8 bits, when even that does not fit (13B on a 12 GB card); "they fit"
    always stays, since quantizing only makes them smaller. 4-bit loading is left out: users who
    load in 4 bits say so (QLoRA, load_in_4bit), and the interview asks when it matters.
    """
    eight = facts.with_facts([Fact("quantization", "8bit", Source("derived", excerpt="an 8-bit base, for comparison"))])
    try:
        too_big = {f.name: f for f in derived_facts(eight, est=estimate(eight)) if f.value is True}
    except NOT_ESTIMABLE:
        too_big = {}
    out = []
    for f in derived:
        if f.name not in _TOO_BIG_IF_UNQUANTIZED or f.value is not True:
            out.append(f)
        elif f.name in too_big:
            said = too_big[f.name].source.excerpt
            out.append(
                Fact(f.name, True, Source("derived", excerpt=f"{said}, even with an 8-bit base" if said else None))
            )
    return out


def unlocking_upgrades(facts: FactSet, remedy: Remedy) -> dict[str, str]:
    """The upgrades that would satisfy the remedy's unmet ``>=`` version requirements, as fact changes
    (``{"transformers_version": "4.36.0"}`` for SDPA on a 4.31 run); empty when none is unmet."""
    out: dict[str, str] = {}
    for req in remedy.requires:
        name = version_fact(req.package)
        have = facts.value(name)
        clauses = [c.strip() for c in req.specifier.split(",") if c.strip()]
        if have is None or version_in(str(have), req.specifier) or len(clauses) != 1:
            continue
        if clauses[0].startswith(">=") and name in MODELED:
            out[name] = clauses[0][2:].strip()
    return out


def unlock(facts: FactSet, remedy: Remedy) -> dict[str, str]:
    """The upgrades that make ``remedy`` applicable, as fact changes (``{"transformers_version": "4.36.0"}``);
    empty unless unmet ``>=`` version requirements are all that keep it from the run (a failing
    prerequisite, another unmet specifier or a change the run already has is not cured by upgrading).

    Every unmet requirement counts here, modelled by the estimator or not (``torch_version`` too):
    the user has to install all of them.
    """
    if remedy_status(remedy, facts)[0] is not False:
        return {}
    upgrades: dict[str, str] = {}
    for req in remedy.requires:
        name = version_fact(req.package)
        have = facts.value(name)
        if have is None or version_in(str(have), req.specifier):
            continue
        clauses = [c.strip() for c in req.specifier.split(",") if c.strip()]
        if len(clauses) != 1 or not clauses[0].startswith(">=") or clauses[0].startswith(">=="):
            return {}
        upgrades[name] = clauses[0][2:].strip()
    if not upgrades:
        return {}
    source = Source("derived", excerpt="an upgrade that unlocks " + remedy.id)
    upgraded = facts.with_facts(Fact(name, version, source) for name, version in upgrades.items())
    return upgrades if remedy_status(remedy, upgraded)[0] is not False else {}


def unlocked(remedy: Remedy, upgrades: Mapping[str, str]) -> Remedy:
    """``remedy`` with the upgrades that unlock it among its changes: the planner prices the upgrade
    (:func:`triage.estimate.planner.remedy_cost`) and the plan's step lists it."""
    return remedy.model_copy(update={"changes": {**upgrades, **remedy.changes}})


def outcome(facts: FactSet, est: Estimate, remedy: Remedy) -> Outcome | None:
    """``remedy`` applied alone to the run (None when it changes nothing modelled or cannot be applied).

    A remedy that needs a newer library than the run has is applied with the upgrade that unlocks it,
    so its outcome reads "transformers_version 4.31.0 → 4.36.0, attn_implementation eager → sdpa: ...".
    """
    if not remedy.changes:
        return None
    try:
        detail = saving_detail(facts, {**unlocking_upgrades(facts, remedy), **remedy.changes}, before=est)
    except NOT_ESTIMABLE:
        return None
    if set(detail.unmodeled) >= set(remedy.changes):
        return None  # the estimator does not model any of it: no saving to state, not "~0"
    after = detail.after
    return Outcome(
        None if detail.unsized else detail.bytes,
        after.device_total.expected,
        after.verdict,
        detail.targets,
        detail.unsized,
    )


def saver(
    facts: FactSet, est: Estimate | None, outcomes: dict[str, Outcome] | None = None
) -> Callable[[Remedy], int | None] | None:
    """A function giving a remedy's saving in bytes on this run (None when it has no modelled change
    or the saving cannot be sized); each remedy's whole :class:`Outcome` is kept in ``outcomes``."""
    if est is None:
        return None

    def saving_of(remedy: Remedy) -> int | None:
        result = outcome(facts, est, remedy)
        if result is None:
            return None
        if outcomes is not None:
            outcomes[remedy.id] = result
        return result.saving_bytes

    return saving_of


#: Facts a general memory lever may change: a remedy that changes only these is a plan candidate
#: for every run, whichever cause it is filed under (batch size with accumulation, checkpointing,
#: attention, optimizer, fused loss, length, method, quantization, dtype, evaluation settings).
#: Distribution, hardware, versions and data-dependent settings come only from the diagnosis.
LEVERS = frozenset(
    {
        "batch_size",
        "grad_accum",
        "gradient_checkpointing",
        "attn_implementation",
        "optimizer",
        "fused_loss",
        "max_length",
        "finetune_method",
        "quantization",
        "lora_r",
        "torch_dtype",
        "eval_batch_size",
        "eval_accumulation_steps",
        "preprocess_logits",
        "num_beams",
        "max_new_tokens",
        "expandable_segments",
    }
)


def plan_candidates(diagnosis: Diagnosis, library: Iterable[Remedy] = ()) -> list[Remedy]:
    """What the planner may combine: the diagnosis' applicable remedies, then every general lever of
    ``library`` (the knowledge base's remedies) that is not known not to apply.

    A remedy the run already has, or whose prerequisite fails, is never a candidate; one that only
    a newer library keeps from the run is a candidate with the upgrade among its changes
    (:func:`unlock`); two remedies making the same change count once.
    """
    facts = diagnosis.session.facts
    out: list[Remedy] = []
    seen: set[tuple[tuple[str, str], ...]] = set()

    def add(remedy: Remedy) -> None:
        key = tuple(sorted((k, str(v).lower()) for k, v in remedy.changes.items()))
        if key not in seen:
            seen.add(key)
            out.append(remedy)

    for rr in diagnosis.remedies:
        if rr.applicable is not False and rr.remedy.changes:
            add(rr.remedy)
        elif rr.remedy.changes and (upgrades := unlock(facts, rr.remedy)):
            add(unlocked(rr.remedy, upgrades))
    for remedy in sorted(library, key=lambda r: r.id):
        if not remedy.changes or not set(remedy.changes) <= LEVERS:
            continue
        if remedy_status(remedy, facts)[0] is not False:
            add(remedy)
        elif upgrades := unlock(facts, remedy):
            add(unlocked(remedy, upgrades))
    return out


def quantify(
    diagnosis: Diagnosis,
    est: Estimate | None,
    missing: str | None,
    *,
    library: Iterable[Remedy] = (),
    outcomes: Mapping[str, Outcome] | None = None,
) -> Memory:
    """The plan and fingerprint for a diagnosed session whose estimate is ``est``.

    ``library``: remedies beyond the diagnosis' that the planner may use (see :func:`plan_candidates`);
    ``outcomes``: the remedies already applied by :func:`saver` (the others listed are computed here).
    """
    facts = diagnosis.session.facts
    if est is None:
        try:
            estimate(facts)
            missing_zh = ""
        except NOT_ESTIMABLE as exc:
            missing_zh = getattr(exc, "zh", "")
        return Memory(None, missing, None, None, missing_zh=missing_zh)
    known = dict(outcomes or {})
    for rr in diagnosis.remedies:
        if rr.remedy.id not in known:
            got = outcome(facts, est, rr.remedy)
            if got is not None:
                known[rr.remedy.id] = got
    candidates = plan_candidates(diagnosis, library)
    try:
        best = plan(facts, candidates) if est.capacity_bytes else None
    except NOT_ESTIMABLE:
        best = None
    try:
        print_ = fingerprint(facts, est)
    except NOT_ESTIMABLE:
        print_ = None
    try:
        others = tuple(alternatives(facts, est))
    except NOT_ESTIMABLE:
        others = ()
    return Memory(est, None, best, print_, known, others, doubt(facts, est))


#: Assumed settings shown with both figures but not asked: the GPU count moves the per-rank estimate of a
#: sharded run a lot yet tells nothing about the cause, and asking it cost the interview two of 42 records'
#: top-1 after six answers (bench_interview's every-fifth dev subset: 0.476 without the question, 0.429 with).
NOT_ASKED = frozenset({"gpu_count"})


def memory_questions(memory: Memory, specs: Mapping[str, FactSpec], facts: FactSet) -> list[Question]:
    """A question for each assumed setting whose other value moves the estimate by more than 10 %, unless ``facts``
    make it moot (:func:`~triage.engine.questions.moot`: a run that failed while loading has no step to ask about).

    Its ``gain`` is the share by which the answer moves the expected device total (capped at 1),
    on the scale of the cause questions' bits: a setting that moves the estimate by 40 % ranks with
    a question expected to gain 0.4 bits about the cause, and one that flips the verdict counts 1.
    """
    out = []
    est = memory.estimate
    for alt in memory.alternatives:
        spec = specs.get(alt.fact)
        if spec is None or not spec.askable or alt.fact in NOT_ASKED or moot(alt.fact, facts):
            continue
        flips = est is not None and alt.estimate.verdict != est.verdict
        gain = 1.0 if flips else min(1.0, abs(alt.change))
        out.append(Question(alt.fact, gain, ease_of(spec), (alt.assumed, alt.value)))
    return out
