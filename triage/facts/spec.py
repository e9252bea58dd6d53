"""The fact vocabulary's schema: what a fact is, its type, and which operators test it.

This is the ground floor. The knowledge base (``knowledge/facts/*.yaml``) is
validated against :class:`FactSpec`; readers, the estimator, the engine and the
interview all speak of facts through it, and nothing here imports any later
stage.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Strict(BaseModel):
    """Base for every knowledge model: unknown keys are errors, not silently dropped."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True)


class Text(Strict):
    """A piece of user-facing text in both first-class languages."""

    en: str = Field(min_length=1)
    """English text."""
    zh: str = Field(min_length=1)
    """Chinese (simplified) text."""

    def get(self, lang: str) -> str:
        """The text in ``lang`` ("en" or "zh"), falling back to English."""
        return self.zh if lang == "zh" else self.en


class FactType(StrEnum):
    """The type of a fact's value; it decides which operators a condition may use."""

    bool = "bool"
    int = "int"
    float = "float"
    enum = "enum"
    text = "text"
    bytes = "bytes"
    version = "version"


Operator = Literal["eq", "ne", "lt", "le", "gt", "ge", "between", "in", "not_in", "contains", "regex", "version"]

#: The closed set of operators allowed for each fact type (lint KB004).
OPERATORS: dict[FactType, frozenset[str]] = {
    FactType.bool: frozenset({"eq", "ne"}),
    FactType.int: frozenset({"eq", "ne", "lt", "le", "gt", "ge", "between"}),
    FactType.float: frozenset({"eq", "ne", "lt", "le", "gt", "ge", "between"}),
    FactType.bytes: frozenset({"eq", "ne", "lt", "le", "gt", "ge", "between"}),
    FactType.enum: frozenset({"eq", "ne", "in", "not_in"}),
    FactType.text: frozenset({"eq", "ne", "contains", "regex"}),
    FactType.version: frozenset({"version"}),
}


class FactSpec(Strict):
    """A fact of the vocabulary: what engines, readers and the interview talk about."""

    kind: Literal["fact"]
    id: str
    """The fact's name, snake_case, equal to the file stem."""
    type: FactType
    """The value's type."""
    unit: str | None = None
    """The unit of numeric values (tokens, bytes, GiB...)."""
    values: list[str] | None = None
    """For enum facts: the allowed values."""
    implies: dict[str, list[str]] | None = None
    """For enum facts: coarse values that stand for one of several finer ones, for a user who cannot tell which
    (phase ``training``: forward, backward or the optimizer step). A condition on a coarse value is true or false
    only when it holds, or fails, for every value it stands for; otherwise it is unknown."""
    question: Text
    """The question the interview asks to learn this fact."""
    help: Text
    """Where the user can find the answer."""
    ease: float = Field(default=1.0, ge=0.0, le=1.0)
    """How easy the question is to answer (1 = trivial); breaks ties between questions."""
    askable: bool = True
    """False for derived facts the interview must not ask (e.g. parsed from an OOM message)."""
    maximum: float | None = None
    """The largest value a real run can have; larger ones are refused where they enter (a typo, or hostile input)."""
    minimum: float | None = None
    """The smallest value a real run can have (one GPU, a batch of one); smaller ones are refused where they enter,
    and the interview never offers them as answers. Without it a number may be as small as 0."""
    default: FactDefault | None = None
    """The value the estimator takes when the user did not say (the library's own default)."""
    answers: dict[str, list[str]] | None = None
    """For enum and yes/no facts: other words a user types for a value, in either language ("device_map" for
    ``model_parallel``, "float16" for ``fp16``, "一直涨" for ``growing``), keyed by the value (``"true"`` /
    ``"false"`` for yes/no). The interview takes a reply as that value when it is one of these words, or contains
    exactly one value's words and no negation (:func:`triage.interview.interpret`)."""

    @model_validator(mode="after")
    def _coarse_values_are_values(self) -> FactSpec:
        allowed = set(self.values or [])
        for coarse, finer in (self.implies or {}).items():
            if coarse not in allowed or not set(finer) <= allowed or coarse in finer:
                raise ValueError(f"implies: {coarse!r} and what it stands for must be other values of {self.id}")
        return self

    @model_validator(mode="after")
    def _answers_name_values(self) -> FactSpec:
        if not self.answers:
            return self
        if self.type is FactType.bool:
            allowed = {"true", "false"}
        elif self.type is FactType.enum:
            allowed = set(self.values or [])
        else:
            raise ValueError(f"answers: only enum and yes/no facts take other words for their values ({self.id})")
        seen: dict[str, str] = {}
        for value, words in self.answers.items():
            if value not in allowed:
                raise ValueError(f"answers: {value!r} is not a value of {self.id} ({', '.join(sorted(allowed))})")
            for word in words:
                key = word.strip().lower()
                if not key:
                    raise ValueError(f"answers: an empty word for {self.id}={value}")
                if seen.setdefault(key, value) != value:
                    raise ValueError(f"answers: {word!r} stands for both {seen[key]} and {value} in {self.id}")
        return self


class FactDefault(Strict):
    """What a run has when nobody set the fact: the library default, and whether it is a guess."""

    value: bool | int | float | str
    """The default value, in the fact's type."""
    why: Text
    """Where the default comes from (which library, which version), shown with every assumption."""
    assumed: bool = True
    """True when the default is a guess about the user's run, listed as an assumption in every estimate."""
