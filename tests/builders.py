"""Small knowledge-base entities built in code, for engine and interview tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from triage.kb.models import Cause, FactSpec

#: The tiny Llama of shared/reference/exact-measurement.md: hidden 256, intermediate 688,
#: 4 layers, 8 heads, vocab 1000 (the oracle's faithfulness model).
TINY_LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 256,
    "intermediate_size": 688,
    "num_hidden_layers": 4,
    "num_attention_heads": 8,
    "num_key_value_heads": 8,
    "vocab_size": 1000,
    "max_position_embeddings": 512,
}


def spec(id_: str, type_: str, values: list[str] | None = None, ease: float = 1.0, askable: bool = True) -> FactSpec:
    """A fact of the vocabulary whose question is ``"<id>?"``."""
    return FactSpec.model_validate(
        {
            "kind": "fact",
            "id": id_,
            "type": type_,
            "values": values,
            "ease": ease,
            "askable": askable,
            "question": {"en": f"{id_}?", "zh": f"{id_}？"},
            "help": {"en": "h", "zh": "帮助"},
        }
    )


def cause(id_: str, when: list[dict[str, Any]], prior: float = 0.1, signals: Iterable[dict[str, Any]] = ()) -> Cause:
    """A cause of category ``other`` with the given evidence and signals."""
    return Cause.model_validate(
        {
            "kind": "cause",
            "id": id_,
            "category": "other",
            "prior": prior,
            "title": {"en": id_, "zh": id_},
            "summary": {"en": "s", "zh": "摘要"},
            "explanation": {k: {"en": k, "zh": k} for k in ("what", "why", "confirm")},
            "when": when,
            "signals": list(signals),
        }
    )
