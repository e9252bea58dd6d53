"""Facts: the ground floor every stage stands on.

- :mod:`triage.facts.spec`: what a fact is (:class:`FactSpec`, its type, its operators);
- :mod:`triage.facts.values`: the one place a raw value becomes a typed one;
- :mod:`triage.facts.core`: a typed :class:`Fact` with its :class:`Source`, and the :class:`FactSet`.

Nothing here imports any other part of triage.
"""

from triage.facts.core import Fact, FactSet, Source, make_fact, parse_assignment
from triage.facts.spec import OPERATORS, FactDefault, FactSpec, FactType, Operator, Strict, Text
from triage.facts.values import (
    FALSE_WORDS,
    TRUE_WORDS,
    FactError,
    Value,
    coerce,
    parse_bool,
    parse_bytes,
    unit_bytes,
)

__all__ = [
    "FALSE_WORDS",
    "OPERATORS",
    "TRUE_WORDS",
    "Fact",
    "FactDefault",
    "FactError",
    "FactSet",
    "FactSpec",
    "FactType",
    "Operator",
    "Source",
    "Strict",
    "Text",
    "Value",
    "coerce",
    "make_fact",
    "parse_assignment",
    "parse_bool",
    "parse_bytes",
    "unit_bytes",
]
