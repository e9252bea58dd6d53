"""The knowledge-base schema: pydantic models are the single source of truth.

Every YAML file under ``knowledge/`` validates against one of the top-level
models here (:class:`FactSpec`, :class:`Cause`, :class:`Remedy`, :class:`Myth`,
:class:`CasesFile`). The JSON Schema in ``knowledge/schema/`` is generated from
these models (``triage kb schema``) and a test fails when it is stale.
"""

from __future__ import annotations

import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from triage.facts.spec import OPERATORS, FactDefault, FactSpec, FactType, Operator, Strict, Text

#: Bounds of the graded values: a weight of 1000 or a prior of 0.9999 would decide every diagnosis alone.
MAX_WEIGHT = 6.0
MAX_PRIOR = 0.3

__all__ = ["MAX_PRIOR", "MAX_WEIGHT", "OPERATORS", "FactDefault", "FactSpec", "FactType", "Operator", "Strict", "Text"]


class Category(StrEnum):
    """The closed list of cause categories (shared/reference/taxonomy.md)."""

    seq_len = "seq_len"
    padding_waste = "padding_waste"
    no_grad_ckpt = "no_grad_ckpt"
    use_cache_training = "use_cache_training"
    eager_attention = "eager_attention"
    fp32_weights = "fp32_weights"
    trainable_params = "trainable_params"
    optimizer_state = "optimizer_state"
    batch_size = "batch_size"
    fragmentation = "fragmentation"
    leak_growth = "leak_growth"
    eval_on_gpu = "eval_on_gpu"
    vocab_logits = "vocab_logits"
    model_too_big = "model_too_big"
    quant_misconfig = "quant_misconfig"
    multi_gpu_placement = "multi_gpu_placement"
    sharding_config = "sharding_config"
    version_bug = "version_bug"
    other_process = "other_process"
    cpu_ram = "cpu_ram"
    generation_kv = "generation_kv"
    multi_model = "multi_model"
    checkpoint_save_load = "checkpoint_save_load"
    other = "other"


class Status(StrEnum):
    """Maturity of an entity, as in SigmaHQ rules."""

    experimental = "experimental"
    stable = "stable"
    deprecated = "deprecated"


class Reference(Strict):
    """A public source that backs the entity: docs, release notes, an issue or a PR."""

    url: str = Field(pattern=r"^https?://\S+$")
    """Where the source lives."""
    title: str = Field(min_length=1)
    """What the source is, in a few words."""
    note: str | None = None
    """What exactly the source says that matters here (optional)."""


class Sections(Strict):
    """The fixed explanation sections every cause carries."""

    what: Text
    """What it is."""
    why: Text
    """Why it happens."""
    confirm: Text
    """How to confirm it on your run."""
    known_problems: Text | None = None
    """When it looks right but is not (false positives)."""


class Method(StrEnum):
    """How a version claim was checked against the releases themselves."""

    git_tag_contains = "git-tag-contains"
    """The fix (or regression) commit was found and ``git tag --contains <commit>`` named the first release."""
    tag_diff = "tag-diff"
    """The source at the boundary release tags was compared (``git show <tag>:<file>``)."""
    wheel_diff = "wheel-diff"
    """The released packages of the boundary versions were downloaded and their code compared."""
    release_notes = "release-notes"
    """The project's own release notes or changelog for that version say so (weakest: changelogs misfile lines)."""


class Verification(Strict):
    """A record that a version claim was checked against the release itself, not a forum or a merge date."""

    method: Method
    """git-tag-contains, tag-diff, wheel-diff or release-notes."""
    artifact: str = Field(min_length=1)
    """What was read, precisely enough to repeat it: the package, the versions or tags, the file or commit
    (e.g. "bitsandbytes 0.39.0 and 0.39.1 wheels, bitsandbytes/nn/modules.py")."""
    date: datetime.date
    """When it was checked (YYYY-MM-DD)."""
    claim: str | None = None
    """Which statement was checked, when the entity makes more than one."""


# --------------------------------------------------------------------------- conditions


class Leaf(Strict):
    """One test of one fact: ``{fact: gradient_checkpointing, op: eq, value: false}``."""

    fact: str
    """The fact's name (a file stem in knowledge/facts/)."""
    op: Operator
    """The operator; the allowed set depends on the fact's type."""
    value: Any
    """The value to compare against: a list for in/not_in, [low, high] for between,
    a PEP 440 specifier string for version."""


class AllOf(Strict):
    """True when every member is true; false when any member is false."""

    all: list[Condition] = Field(min_length=1)
    """The members."""


class AnyOf(Strict):
    """True when some member is true; false when every member is false."""

    any: list[Condition] = Field(min_length=1)
    """The members."""


class NotOf(Strict):
    """Negation; unknown stays unknown."""

    not_: Condition = Field(alias="not")
    """The negated condition."""


Condition = Leaf | AllOf | AnyOf | NotOf


class Evidence(Strict):
    """A condition and the log-odds evidence it adds to a cause when it is true or false.

    Unknown adds nothing, and makes the facts involved candidates for a question.
    """

    test: Condition
    """The condition to evaluate over the facts."""
    if_true: float = Field(default=0.0, ge=-MAX_WEIGHT, le=MAX_WEIGHT)
    """Log-odds added when the condition is true (at most ±6: e^6 ≈ 400 times likelier)."""
    if_false: float = Field(default=0.0, ge=-MAX_WEIGHT, le=MAX_WEIGHT)
    """Log-odds added when the condition is false (at most ±6)."""
    veto: bool = False
    """When true, a false condition rules the cause out entirely."""
    label: Text | None = None
    """How to describe this evidence to the user (defaults to the condition itself)."""
    label_false: Text | None = None
    """How to describe it when the condition is false, for a label that a plain "not:" would negate twice ("the
    model is not quantized" false: "the model is quantized"); defaults to "not: " and the label."""


class Affects(Strict):
    """A version range of one package affected by a known bug."""

    package: str
    """The distribution name, e.g. transformers."""
    specifier: str
    """The affected versions as a PEP 440 specifier, e.g. '>=4.38.0,<4.39.0'."""
    fixed_in: str | None = None
    """The first release with the fix, if there is one."""
    weight: float = Field(default=2.5, ge=0.0, le=MAX_WEIGHT)
    """Log-odds added when the user's version is in the range (a version outside it vetoes)."""


# --------------------------------------------------------------------------- text signals


class Signal(Strict):
    """A text matcher over what the user wrote or pasted.

    ``regex`` patterns are Python regular expressions (case-insensitive);
    ``keyword`` patterns match as case-insensitive substrings; ``phrase``
    patterns match fuzzily (rapidfuzz partial ratio) so paraphrases count.
    """

    type: Literal["regex", "keyword", "phrase"]
    """How the patterns match."""
    patterns: list[str] = Field(min_length=1)
    """Any one match is enough."""
    weight: float = Field(ge=-MAX_WEIGHT, le=MAX_WEIGHT)
    """Log-odds added once when any pattern matches (at most ±6)."""
    lang: Literal["en", "zh", "any"] = "any"
    """The language of the patterns (documentation; matching is language-blind)."""
    label: str | None = None
    """A short name for the evidence, shown to the user."""
    restates: str | None = None
    """The fact this signal stands in for (e.g. gradient_checkpointing for "no gradient
    checkpointing"): once that fact is known, from the readers or the user, the signal
    adds nothing, so the same observation is never counted twice."""


# --------------------------------------------------------------------------- entities


class Related(Strict):
    """A typed link to another entity."""

    id: str
    """The other entity's id."""
    type: Literal["see-also", "obsoletes", "renamed", "merged", "corrects"] = "see-also"
    """How the two relate."""


class Cause(Strict):
    """Why the GPU (or host) ran out of memory."""

    kind: Literal["cause"]
    id: str
    """kebab-case, equal to the file stem; never reused."""
    category: Category
    """One label of the closed taxonomy."""
    status: Status = Status.experimental
    title: Text
    """A short name for the condition (not the fix)."""
    summary: Text
    """One or two sentences: what happens and why it costs memory."""
    explanation: Sections
    prior: float = Field(gt=0.0, le=MAX_PRIOR)
    """Base rate among fine-tuning OOM reports, before any evidence (at most 0.3: no single cause is most OOMs)."""
    when: list[Evidence] = Field(default_factory=list)
    """Conditions over facts and the evidence each adds."""
    affects: list[Affects] = Field(default_factory=list)
    """For version bugs: the affected releases (matched against version facts)."""
    signals: list[Signal] = Field(default_factory=list)
    """Text matchers over the user's own words and logs."""
    remedies: list[str] = Field(default_factory=list)
    """Remedy ids, best first."""
    references: list[Reference] = Field(default_factory=list)
    related: list[Related] = Field(default_factory=list)
    verified: list[Verification] = Field(default_factory=list)
    """How the version claims (``affects``, ``fixed_in``) were checked against the releases; lint
    requires it for version bugs and any cause with ``affects`` (KB023)."""


class Steps(Strict):
    """How to apply a remedy, per framework. Any subset; text may contain code."""

    hf_trainer: str | None = None
    """HF Trainer / TRL arguments."""
    pytorch: str | None = None
    """Plain PyTorch."""
    peft: str | None = None
    """peft calls."""
    axolotl: str | None = None
    """axolotl YAML keys."""
    llama_factory: str | None = None
    """LLaMA-Factory YAML keys."""
    deepspeed: str | None = None
    """DeepSpeed config JSON."""
    shell: str | None = None
    """Environment variables or shell commands."""


Level = Literal["none", "low", "medium", "high"]


class Cost(Strict):
    """What a remedy costs."""

    speed: Level = "none"
    """Slowdown of training."""
    quality: Level = "none"
    """Risk to model quality or training signal."""
    note: Text | None = None
    """The cost in words."""


class Requirement(Strict):
    """A package version a remedy needs."""

    package: str
    specifier: str
    """PEP 440 specifier the installed version must satisfy."""
    reason: str | None = None


#: Relative values a remedy's ``changes`` may use instead of a number: "half" of the user's
#: current value, or gradient accumulation "scaled" to keep the effective batch.
RELATIVE_CHANGES: dict[str, frozenset[str]] = {
    "batch_size": frozenset({"half"}),
    "max_length": frozenset({"half"}),
    "lora_r": frozenset({"half"}),
    "grad_accum": frozenset({"scaled"}),
}


class Remedy(Strict):
    """A change that lowers memory use or removes the cause."""

    kind: Literal["remedy"]
    id: str
    status: Status = Status.experimental
    title: Text
    summary: Text
    steps: Steps
    changes: dict[str, Any] = Field(default_factory=dict)
    """The remedy as a change to the run: fact name -> new value. The estimator
    computes its saving as estimate(before) - estimate(after)."""
    cost: Cost = Field(default_factory=Cost)
    requires: list[Requirement] = Field(default_factory=list)
    """Versions this remedy needs."""
    prerequisites: list[Evidence] = Field(default_factory=list)
    """Conditions over facts that must hold (e.g. an Ampere GPU for FlashAttention-2);
    a false one marks the remedy not applicable."""
    conflicts: list[str] = Field(default_factory=list)
    """Remedy ids that cannot be combined with this one."""
    references: list[Reference] = Field(default_factory=list)
    related: list[Related] = Field(default_factory=list)
    verified: list[Verification] = Field(default_factory=list)
    """How the version claims (``requires``, a ``<package>_version`` change) were checked against the
    releases; lint requires it for version-gated remedies (KB023)."""


class Verdict(StrEnum):
    """The fact-check verdict on a community claim."""

    false = "false"
    partly = "partly"
    unverifiable = "unverifiable"


def _verdict_from_yaml(value: object) -> object:
    return "false" if value is False else value


class Myth(Strict):
    """A popular community claim that is false or only partly true."""

    kind: Literal["myth"]
    id: str
    status: Status = Status.experimental
    claim: Text
    """The claim, in the thread's words (zh) and in English."""
    verdict: Annotated[Verdict, BeforeValidator(_verdict_from_yaml)]
    """false, partly or unverifiable (a bare YAML ``false`` is read as the verdict "false")."""
    correction: Text
    """What is true instead, with versions and numbers."""
    signals: list[Signal] = Field(min_length=1)
    """How to recognise the claim in a user's text."""
    seed_claims: list[str] = Field(default_factory=list)
    """Claim ids in shared/reference/seed-claims.md (L7, V2 ...)."""
    references: list[Reference] = Field(default_factory=list)
    related: list[Related] = Field(default_factory=list)
    verified: list[Verification] = Field(default_factory=list)
    """How the versions quoted in the correction were checked against the releases (optional)."""


Entity = Annotated[FactSpec | Cause | Remedy | Myth, Field(discriminator="kind")]


# --------------------------------------------------------------------------- cases


class Case(Strict):
    """One behaviour test of a cause, run against the whole knowledge base."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    """kebab-case; unique within the file."""
    expect: Literal["fire", "rank", "silent", "todo-fire", "todo-rank", "todo-silent"]
    """fire: the cause must score as likely (more likely than not); rank: it must rank within
    ``top_k`` (the leading explanations), likely or not; silent: it must not score as likely.
    todo-*: a known gap (reported, never fails the build)."""
    symptom: str | None = None
    """What the user wrote or pasted."""
    facts: dict[str, Any] = Field(default_factory=dict)
    """Facts given as if by --fact NAME=VALUE."""
    top_k: int | None = Field(default=None, ge=1)
    """When set, the cause must also rank within the top k of the whole knowledge base (required by rank)."""
    note: str | None = None

    @property
    def shows_cause(self) -> bool:
        """Whether the case must bring its cause out (fire or rank), as opposed to keeping it silent."""
        return self.expect in ("fire", "rank")

    @model_validator(mode="after")
    def _rank_needs_top_k(self) -> Case:
        if self.expect.endswith("rank") and self.top_k is None:
            raise ValueError("expect: rank needs top_k (the cause must rank within the top k)")
        return self


class CasesFile(Strict):
    """``<id>.cases.yaml``: the cases of one cause."""

    cause: str
    """The cause id (equal to the file's stem without .cases)."""
    cases: list[Case] = Field(min_length=1)
