"""Three-valued evaluation of condition trees."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from triage.engine.conditions import describe, describe_negated, evaluate, version_in
from triage.facts import Fact, FactSet, Source
from triage.kb.models import AllOf, AnyOf, Leaf, NotOf

SRC = Source("cli")


def facts(**values):
    return FactSet().with_facts(Fact(k, v, SRC) for k, v in values.items())


GC_OFF = Leaf(fact="gradient_checkpointing", op="eq", value=False)
LONG = Leaf(fact="max_length", op="ge", value=1024)


def test_leaf_true_false_unknown():
    assert evaluate(GC_OFF, facts(gradient_checkpointing=False)) is True
    assert evaluate(GC_OFF, facts(gradient_checkpointing=True)) is False
    assert evaluate(GC_OFF, facts()) is None


@pytest.mark.parametrize(
    ("gc", "length", "all_", "any_"),
    [
        (False, 2048, True, True),
        (False, 512, False, True),
        (True, 512, False, False),
        (None, 512, False, None),  # all is false as soon as one member is false, even with another unknown
        (None, 2048, None, True),  # any is true as soon as one member is true
        (None, None, None, None),
    ],
)
def test_kleene_all_any(gc, length, all_, any_):
    values = {}
    if gc is not None:
        values["gradient_checkpointing"] = gc
    if length is not None:
        values["max_length"] = length
    fs = facts(**values)
    assert evaluate(AllOf(all=[GC_OFF, LONG]), fs) is all_
    assert evaluate(AnyOf(any=[GC_OFF, LONG]), fs) is any_


def test_not_keeps_unknown():
    assert evaluate(NotOf(**{"not": GC_OFF}), facts()) is None
    assert evaluate(NotOf(**{"not": GC_OFF}), facts(gradient_checkpointing=True)) is True


def test_operators():
    fs = facts(max_length=2048, phase="backward", model_name="meta-llama/Llama-2-7b-hf", transformers_version="4.38.1")
    assert evaluate(Leaf(fact="max_length", op="between", value=[1024, 4096]), fs) is True
    assert evaluate(Leaf(fact="phase", op="in", value=["forward", "backward"]), fs) is True
    assert evaluate(Leaf(fact="phase", op="not_in", value=["forward", "backward"]), fs) is False
    assert evaluate(Leaf(fact="model_name", op="contains", value="llama-2"), fs) is True
    assert evaluate(Leaf(fact="model_name", op="regex", value=r"7b-hf$"), fs) is True
    assert evaluate(Leaf(fact="transformers_version", op="version", value=">=4.38.0,<4.39.0"), fs) is True
    assert evaluate(Leaf(fact="transformers_version", op="version", value=">=4.39"), fs) is False


def test_versions_are_pep440_not_strings():
    # "4.9" < "4.31" as versions, though not as strings
    assert version_in("4.9.0", "<4.31")
    assert not version_in("4.31.0", "<4.9")
    assert version_in("2.1.0rc1", ">=2.1.0.dev0")


def test_describe():
    assert describe(AllOf(all=[GC_OFF, LONG])) == "gradient_checkpointing = false and max_length ≥ 1024"


def test_describe_says_lists_and_byte_counts_as_people_write_them():
    assert describe(Leaf(fact="phase", op="in", value=["loading", "saving"])) == "phase is one of loading, saving"
    assert describe(Leaf(fact="host_ram_bytes", op="le", value=64 * 2**30)) == "host_ram_bytes ≤ 64 GiB"
    assert describe(Leaf(fact="other_process_bytes", op="ge", value=512 * 2**20)) == "other_process_bytes ≥ 512 MiB"
    assert describe(Leaf(fact="max_length", op="ge", value=4096)) == "max_length ≥ 4096"


def test_describe_negated_says_what_holds_when_the_test_is_false():
    assert describe_negated(LONG) == "max_length < 1024"
    assert describe_negated(GC_OFF) == "gradient_checkpointing = true"
    assert describe_negated(Leaf(fact="offload", op="ne", value=True)) == "offload = true"
    assert describe_negated(Leaf(fact="phase", op="in", value=["forward", "backward"])) == (
        "phase is none of forward, backward"
    )
    assert describe_negated(NotOf(**{"not": LONG})) == "max_length ≥ 1024"
    assert describe_negated(AllOf(all=[GC_OFF, LONG])) == "not (gradient_checkpointing = false and max_length ≥ 1024)"


@given(st.one_of(st.none(), st.booleans()), st.one_of(st.none(), st.integers(0, 10_000)))
def test_all_is_conjunction_when_known(gc, length):
    values = {k: v for k, v in {"gradient_checkpointing": gc, "max_length": length}.items() if v is not None}
    fs = facts(**values)
    a, b = evaluate(GC_OFF, fs), evaluate(LONG, fs)
    result = evaluate(AllOf(all=[GC_OFF, LONG]), fs)
    if a is not None and b is not None:
        assert result is (a and b)
    # negation commutes with unknown: not(all) == any(not)
    neg = evaluate(NotOf(**{"not": AllOf(all=[GC_OFF, LONG])}), fs)
    alt = evaluate(AnyOf(any=[NotOf(**{"not": GC_OFF}), NotOf(**{"not": LONG})]), fs)
    assert neg is alt


def test_byte_sizes_in_conditions():
    fs = facts(other_process_bytes=2 * 1024**3)
    assert evaluate(Leaf(fact="other_process_bytes", op="ge", value="1GiB"), fs) is True
    assert evaluate(Leaf(fact="other_process_bytes", op="between", value=["1GiB", "3 GiB"]), fs) is True
    assert evaluate(Leaf(fact="other_process_bytes", op="lt", value="512MiB"), fs) is False
