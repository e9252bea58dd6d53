"""Choose what to ask next: the unknown fact with the highest expected information gain.

For each askable unknown fact and each answer it could take, the likelihood of
that answer under each cause is read off the cause's own evidence: an answer
that adds ``w`` log-odds to a cause is ``e^w`` times likelier under it. The
gain is the entropy of the current cause distribution minus the expected
entropy after the answer. Ties go to the question that is easier to answer.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from packaging.specifiers import InvalidSpecifier

from triage.engine.conditions import leaves, specifier
from triage.engine.scoring import Scored, Scorer, evidence_of
from triage.facts import Fact, FactSet, Source, Value
from triage.kb.models import FactSpec, FactType, Leaf

#: Fact types answered with a number.
NUMBERS = frozenset({FactType.int, FactType.float, FactType.bytes})
#: Stop asking when the top cause is at least this probable ...
CONFIDENT = 0.8
#: ... or when no question is expected to gain this many bits.
MIN_GAIN = 0.02


#: Facts whose question arises only within a context, and that context: the ZeRO stage of a DeepSpeed run.
ASKED_WITHIN: Mapping[str, tuple[str, str]] = {
    "zero_stage": ("distributed", "deepspeed"),
    "offload": ("distributed", "deepspeed"),
}

#: Settings of a training run, not asked of a user who only runs the model (:func:`only_runs_the_model`):
#: "which trainer?" or "is gradient checkpointing on?" has no answer there, and asking it wastes a turn.
TRAINING_ONLY = frozenset(
    {
        "trainer_type", "gradient_checkpointing", "zero_stage", "optimizer", "lora_r", "grad_accum",
        "prepare_kbit_training", "packing", "trained_before_oom", "ref_model_separate", "modules_to_save",
        "optimizer_in_backward", "lora_target_modules", "lora_dropout", "trainable_params_b",
    }
)  # fmt: skip


def only_runs_the_model(facts: FactSet) -> bool:
    """Whether the run only generates with the model: it fails while generating, and no fine-tuning method and no
    trainer is known (an RL trainer's rollouts are generation too, and name their trainer). A user who answers
    "how are you fine-tuning?" with "I'm only running inference" is read as generating."""
    return (
        facts.value("phase") == "generation"
        and facts.value("finetune_method") is None
        and facts.value("trainer_type") is None
    )


#: What a training step shows or sets, not asked when the OOM came while the model loaded: no step ran, so the
#: memory did not grow from step to step, and no batch, sequence, checkpointing, attention kernel or optimizer
#: state had taken any memory yet. (Not the method, the quantization or the trainer: a 4-bit load or a DPO
#: reference model changes what loading takes.)
STEP_ONLY = frozenset(
    {
        "memory_growth", "oom_step", "trained_before_oom", "gradient_checkpointing", "batch_size", "max_length",
        "grad_accum", "packing", "padding", "group_by_length", "optimizer", "optimizer_in_backward",
        "attn_implementation", "use_cache", "eval_batch_size", "eval_accumulation_steps", "preprocess_logits",
        "max_new_tokens", "num_beams",
    }
)  # fmt: skip


def moot(name: str, facts: FactSet) -> bool:
    """Whether the question about ``name`` has no sense given ``facts``: a user who only runs the model is not asked
    about training (:data:`TRAINING_ONLY`), one whose run failed while loading not about steps (:data:`STEP_ONLY`)."""
    if name in TRAINING_ONLY and only_runs_the_model(facts):
        return True
    return name in STEP_ONLY and facts.value("phase") == "loading"


#: The chance that a user can answer each question, learnt from the development split of the corpus:
#: the share of in-scope development records whose thread states the fact (or something the readers
#: read as it: the GPU's name answers its memory), as ``bench/bench_interview.py --answerability``
#: counts it and prints this table. ``fact|context=value`` is the share within that context
#: (:data:`ASKED_WITHIN`). Threads under-report what a user could look up (whether gradient
#: checkpointing is on is stated in 10 % of them), so a question about a setting a user must look
#: for ranks below one about what they saw at a glance (when it happened, the model, the GPU) unless
#: its answer tells much more. A fact that no record names is not measured: its written ``ease`` is put
#: on the same scale by :data:`UNMEASURED_SCALE`. Held-out records are not counted.
ANSWERED: Mapping[str, float] = {
    "attn_implementation": 0.03,
    "batch_size": 0.24,
    "bitsandbytes_version": 0.0,
    "compute_capability": 0.49,
    "deepspeed_version": 0.01,
    "device_map": 0.02,
    "distributed": 0.3,
    "error_kind": 0.9,
    "eval_batch_size": 0.02,
    "finetune_method": 0.45,
    "flash_attn_version": 0.0,
    "framework": 0.0,
    "gpu_count": 0.59,
    "gpu_memory_bytes": 0.5,
    "gpu_name": 0.59,
    "gradient_checkpointing": 0.08,
    "host_ram_bytes": 0.0,
    "last_change": 0.0,
    "lora_r": 0.02,
    "max_length": 0.16,
    "max_new_tokens": 0.01,
    "memory_growth": 0.12,
    "mixed_precision": 0.11,
    "model_name": 0.78,
    "model_params_b": 0.65,
    "moe": 0.04,
    "num_beams": 0.0,
    "offload": 0.04,
    "offload|distributed=deepspeed": 0.19,
    "oom_step": 0.05,
    "optimizer": 0.02,
    "os": 0.04,
    "packing": 0.01,
    "padding": 0.0,
    "peft_version": 0.01,
    "phase": 0.98,
    "quantization": 0.13,
    "resume_from_checkpoint": 0.0,
    "torch_dtype": 0.13,
    "torch_version": 0.07,
    "trained_before_oom": 0.38,
    "trainer_type": 0.19,
    "transformers_version": 0.06,
    "trl_version": 0.0,
    "zero_stage": 0.11,
    "zero_stage|distributed=deepspeed": 0.66,
}


#: The median of measured share over written ``ease`` among the measured facts (printed with the table).
UNMEASURED_SCALE = 0.07
#: The least chance given to a question the corpus records: rare answers still count when they tell much.
MIN_ANSWERED = 0.05


#: How often each answer is given, among the development threads that answer the question: enum and
#: yes/no facts that at least half of the threads answer, and configuration settings (dtype, launcher,
#: method, quantization, trainer, attention, checkpointing) that at least 15 threads state, since a
#: config is stated whatever its values. An observation stated by few threads (memory that grew, the
#: OS) is stated when it is notable, so its shares would not stand for users' and it keeps a uniform
#: guess. Printed by ``bench/bench_interview.py --answerability`` with :data:`ANSWERED`. Most OOMs are
#: CUDA OOMs: asking the error's kind tells less than a uniform guess over its values says; fp32 is 17 %
#: of the dtypes threads state, not a third.
ANSWER_VALUES: Mapping[str, Mapping[str, float]] = {
    "attn_implementation": {"eager": 0.3, "flash_attention_2": 0.63, "sdpa": 0.07},
    "distributed": {"ddp": 0.1, "deepspeed": 0.55, "fsdp": 0.18, "model_parallel": 0.11, "none": 0.05},
    "error_kind": {"cublas_alloc": 0.0, "cuda_oom": 0.81, "host_oom": 0.15, "other": 0.03},
    "finetune_method": {"freeze": 0.01, "full": 0.53, "lora": 0.36, "qlora": 0.11},
    "gradient_checkpointing": {"False": 0.31, "True": 0.69},
    "mixed_precision": {"bf16": 0.39, "fp16": 0.61},
    "phase": {
        "backward": 0.01,
        "evaluation": 0.07,
        "forward": 0.03,
        "generation": 0.12,
        "loading": 0.21,
        "merging": 0.02,
        "optimizer": 0.01,
        "saving": 0.04,
        "training": 0.5,
    },
    "quantization": {"4bit": 0.61, "8bit": 0.27, "none": 0.13},
    "torch_dtype": {"bf16": 0.33, "fp16": 0.51, "fp32": 0.16},
    "trainer_type": {
        "custom": 0.13,
        "dpo": 0.11,
        "grpo": 0.23,
        "orpo": 0.02,
        "ppo": 0.13,
        "sft": 0.26,
        "trainer": 0.12,
    },
}


#: Added to every answer's share before normalising, so an answer no thread gave can still be given.
UNSEEN_ANSWER = 0.02


def answer_prior(name: str, values: Sequence[Value]) -> list[float]:
    """The chance of each of ``values`` as the answer about ``name`` before any cause is assumed:
    its share among development threads (:data:`ANSWER_VALUES`), uniform for a fact without one."""
    shares = ANSWER_VALUES.get(name)
    if not shares:
        return [1 / len(values)] * len(values)
    raw = [shares.get(str(v), 0.0) + UNSEEN_ANSWER for v in values]
    return [r / sum(raw) for r in raw]


#: Settings of one phase of the run, which a user who knows the OOM happened in that phase has in front of
#: them (the evaluation call and its arguments): asked there as readily as the setting threads state most
#: often (``batch_size`` in :data:`ANSWERED`). Threads rarely state them because few are about evaluation,
#: so their measured share says nothing about such a user.
PHASE_SETTINGS: Mapping[str, frozenset[str]] = {
    "evaluation": frozenset(
        {"do_eval", "compute_metrics", "preprocess_logits", "eval_accumulation_steps", "eval_batch_size"}
    ),
}


def ease_of(spec: FactSpec, facts: FactSet | None = None) -> float:
    """The chance a user can answer the question about ``spec`` (see :data:`ANSWERED`), given ``facts``."""
    name = spec.id
    if facts is not None and name in PHASE_SETTINGS.get(str(facts.value("phase")), ()):
        return max(ANSWERED.get("batch_size", MIN_ANSWERED), _base_ease(spec, facts))
    return _base_ease(spec, facts)


#: Coarse answers a user can make finer at a glance: who says the run worked before ("it worked yesterday",
#: ``last_change: worked_before``) knows what they did since, unlike who says it failed "during training" and cannot
#: tell the forward pass from the backward one. After such an answer the finer question is asked at the fact's
#: written ease. Threads do not measure it: the record format never asked gatherers for ``last_change``, so its
#: share in :data:`ANSWERED` is that of the format, not of users.
REFINABLE: Mapping[str, frozenset[str]] = {"last_change": frozenset({"worked_before"})}


def refinable(spec: FactSpec, facts: FactSet | None) -> frozenset[str] | None:
    """The finer values of the fact's coarse value, when the user can tell which (:data:`REFINABLE`); else None."""
    said = str(facts.value(spec.id)) if facts is not None else ""
    if said not in REFINABLE.get(spec.id, frozenset()) or not spec.implies or said not in spec.implies:
        return None
    return frozenset(spec.implies[said])


def _base_ease(spec: FactSpec, facts: FactSet | None = None) -> float:
    name = spec.id
    if refinable(spec, facts) is not None:
        return spec.ease
    if name in ASKED_WITHIN and facts is not None:
        ctx, value = ASKED_WITHIN[name]
        if str(facts.value(ctx)) == value and f"{name}|{ctx}={value}" in ANSWERED:
            return max(MIN_ANSWERED, ANSWERED[f"{name}|{ctx}={value}"])
    if name in ANSWERED:
        return max(MIN_ANSWERED, ANSWERED[name])
    return spec.ease * UNMEASURED_SCALE


#: Derived facts the user cannot be asked, and the inputs they are computed from: one group per input,
#: the question asked first. "Do the weights alone exceed the GPU?" is not a question a user can
#: answer, but "which model?" and "which GPU?" are, at a glance, and together they answer it.
DERIVED_FROM: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "weights_exceed_gpu": (("model_name", "model_params_b"), ("gpu_name", "gpu_memory_bytes")),
    "whole_weights_exceed_gpu": (("model_name", "model_params_b"), ("gpu_name", "gpu_memory_bytes")),
    "weights_gpu_share": (("model_name", "model_params_b"), ("gpu_name", "gpu_memory_bytes")),
    "state_gpu_share": (
        ("model_name", "model_params_b"),
        ("gpu_name", "gpu_memory_bytes"),
        ("finetune_method",),
        ("gpu_count",),
    ),
}


@dataclass(frozen=True)
class Question:
    """A question worth asking, with how much it is expected to tell."""

    fact: str
    gain: float
    """Expected information gain over the cause distribution, in bits."""
    ease: float
    values: tuple[Value, ...]
    """The answers considered (quick replies in the interview)."""


def entropy(dist: Mapping[str, float]) -> float:
    """Shannon entropy in bits."""
    return -sum(p * math.log2(p) for p in dist.values() if p > 0)


def _numeric_candidates(points: list[float]) -> list[float]:
    pts = sorted(set(points))
    if not pts:
        return []
    out = [pts[0] - max(1.0, abs(pts[0]) * 0.5)]
    out += [(a + b) / 2 for a, b in itertools.pairwise(pts)]
    out += pts
    out.append(pts[-1] + max(1.0, abs(pts[-1]) * 0.5))
    return sorted(set(out))


def candidate_values(spec: FactSpec, tests: list[Leaf]) -> list[Value]:
    """The answers worth distinguishing for ``spec``, derived from the tests that use it."""
    if spec.type is FactType.bool:
        return [True, False]
    if spec.type is FactType.enum:
        return list(spec.values or [])
    if spec.type in NUMBERS:
        points: list[float] = []
        for t in tests:
            values = t.value if isinstance(t.value, list) else [t.value]
            points += [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        least = spec.minimum if spec.minimum is not None else 0.0
        most = spec.maximum if spec.maximum is not None else math.inf
        nums = [n for n in _numeric_candidates(points) if least <= n <= most]
        if spec.type is FactType.float:
            return list[Value](nums)
        # a midpoint rounds onto its neighbour (1.5 GPUs to 2): each whole number once, or the gain counts it twice
        return list[Value](sorted({round(n) for n in nums if least <= round(n) <= most}))
    if spec.type is FactType.version:
        versions: set[str] = set()
        for t in tests:
            try:
                versions.update(s.version.rstrip(".*") for s in specifier(str(t.value)))
            except InvalidSpecifier:
                continue
        return sorted(versions | {"0.1"})
    return []


class QuestionPlanner:
    """Ranks unknown facts by expected information gain over the current ranking."""

    def __init__(self, scorer: Scorer, specs: Mapping[str, FactSpec]) -> None:
        self.scorer = scorer
        self.specs = specs
        self.tests: dict[str, list[Leaf]] = {}
        self.users: dict[str, list[str]] = {}
        for cid, cause in scorer.causes.items():
            for ev in evidence_of(cause):
                for leaf in leaves(ev.test):
                    self.tests.setdefault(leaf.fact, []).append(leaf)
                    if cid not in self.users.setdefault(leaf.fact, []):
                        self.users[leaf.fact].append(cid)

    def gain(
        self,
        name: str,
        facts: FactSet,
        scored: Mapping[str, Scored],
        dist: Mapping[str, float],
        *,
        derived: bool = False,
    ) -> Question | None:
        """The expected gain of asking about ``name``, or None when it cannot help.

        ``derived``: also for a fact the user is not asked (the gain of learning it from its inputs).
        """
        spec = self.specs.get(name)
        if spec is None or not (spec.askable or derived):
            return None
        if moot(name, facts):
            return None  # only runs the model: no trainer to ask about; failed while loading: no step
        values = candidate_values(spec, self.tests.get(name, []))
        coarse = refinable(spec, facts)
        if coarse is not None:
            values = [v for v in values if v in coarse]  # "it worked before": which of the changes since
        if len(values) < 2:
            return None
        prior = answer_prior(name, values)
        causes = [cid for cid in self.users.get(name, []) if cid in dist]
        # likelihood[cid][i]: relative likelihood of answer i under cause cid
        likelihood: dict[str, list[float]] = {}
        for cid in causes:
            base = scored[cid].score
            raw = []
            for value, share in zip(values, prior, strict=True):
                hypo = facts.with_facts([Fact(name, value, Source("answer"))])
                s = self.scorer.score_one(scored[cid].cause, hypo)
                raw.append(0.0 if s.excluded else share * math.exp(max(-30.0, min(30.0, s.score - base))))
            total = sum(raw)
            likelihood[cid] = [r / total for r in raw] if total > 0 else list(prior)
        expected = 0.0
        for i in range(len(values)):
            joint = {cid: p * (likelihood[cid][i] if cid in likelihood else prior[i]) for cid, p in dist.items()}
            p_answer = sum(joint.values())
            if p_answer <= 0:
                continue
            expected += p_answer * entropy({cid: j / p_answer for cid, j in joint.items()})
        gain = entropy(dist) - expected
        if gain <= 1e-9:
            return None
        return Question(name, gain, ease_of(spec, facts), tuple(values))

    def rank(self, facts: FactSet, scored: list[Scored], dist: Mapping[str, float], limit: int = 5) -> list[Question]:
        """The best questions first: expected gain times ease (the chance a user can answer at all).

        A question most users cannot answer gains nothing in expectation, however much its answer
        would tell; ties (to 0.001 bits) go to the easier one.
        """
        by_id = {s.cause.id: s for s in scored}
        names = sorted({n for s in scored if not s.excluded for n in s.unknown} | self._refinable(facts))
        found = [q for n in names if (q := self.gain(n, facts, by_id, dist)) is not None]
        found = self._inputs_of_derived(found, names, facts, by_id, dist)
        found.sort(key=lambda q: (-round(q.gain * q.ease, 3), -q.ease, q.fact))
        return found[:limit]

    def _refinable(self, facts: FactSet) -> set[str]:
        """The facts whose coarse value the user can make finer (:data:`REFINABLE`) and some cause tests."""
        return {n for n in REFINABLE if n in self.specs and n in self.tests and refinable(self.specs[n], facts)}

    def _inputs_of_derived(
        self,
        found: list[Question],
        names: list[str],
        facts: FactSet,
        by_id: Mapping[str, Scored],
        dist: Mapping[str, float],
    ) -> list[Question]:
        """``found`` plus the questions about the inputs of unknown derived facts (:data:`DERIVED_FROM`).

        Asking for one input is worth the derived fact's gain times the chance that the other inputs
        are (or will be) known: 1 when the user gave them, else the chance they can answer them.
        """
        best = {q.fact: q for q in found}
        for name in names:
            groups = DERIVED_FROM.get(name)
            if groups is None or name in facts:
                continue
            derived = self.gain(name, facts, by_id, dist, derived=True)
            if derived is None:
                continue
            known = [any(f in facts for f in group) for group in groups]
            for i, group in enumerate(groups):
                ask = self.specs.get(group[0])
                if known[i] or ask is None or not ask.askable or moot(ask.id, facts):
                    continue
                others = 1.0
                for j, other in enumerate(groups):
                    if j != i and not known[j]:
                        spec = self.specs.get(other[0])
                        others *= ease_of(spec, facts) if spec is not None else 0.0
                g = derived.gain * others
                have = best.get(ask.id)
                if have is None:
                    best[ask.id] = Question(ask.id, g, ease_of(ask, facts), ())
                elif g > have.gain:
                    best[ask.id] = replace(have, gain=g)
        return list(best.values())


def pending_veto(top: Scored | None, questions: Sequence[Question]) -> Question | None:
    """A question about a necessary condition (a ``veto``) of the top cause that is still unknown.

    A cause is not confidently the answer while something that would rule it out is unasked.
    """
    if top is None:
        return None
    vetoes = {leaf.fact for ev in evidence_of(top.cause) if ev.veto for leaf in leaves(ev.test)}
    return next((q for q in questions if q.fact in vetoes), None)


def should_stop(dist: Mapping[str, float], questions: Sequence[Question], top: Scored | None = None) -> bool:
    """Whether the interview has nothing left worth asking.

    It stops when no question would gain enough, or when the top cause is
    confident and none of its necessary conditions is still unknown.
    """
    if not questions or questions[0].gain < MIN_GAIN:
        return True
    confident = bool(dist) and max(dist.values()) >= CONFIDENT
    return confident and pending_veto(top, questions) is None
