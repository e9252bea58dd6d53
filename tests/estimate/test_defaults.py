from triage.estimate import apply_changes, run_from_facts
from triage.estimate.defaults import DEFAULTS

LLAMA = {"model_name": "llama-2-7b"}


def test_the_run_takes_the_tables_defaults_and_states_them_with_its_reasons():
    run = run_from_facts(LLAMA)
    stated = {a.fact: a for a in run.assumptions}
    for fact, field in (("batch_size", "batch"), ("max_length", "seq"), ("lora_r", "lora_r")):
        assert getattr(run, field) == DEFAULTS[fact].value
        assert stated[fact].value == DEFAULTS[fact].value and stated[fact].reason == DEFAULTS[fact].reason


def test_halving_an_unstated_value_halves_the_same_default():
    after = apply_changes(LLAMA, {"batch_size": "half", "max_length": "half", "lora_r": "half"})
    for fact in ("batch_size", "max_length", "lora_r"):
        assert after[fact] == DEFAULTS[fact].value // 2


def test_keeping_the_effective_batch_starts_from_the_default_batch():
    after = apply_changes(LLAMA, {"batch_size": 2, "grad_accum": "scaled"})
    assert after["grad_accum"] == DEFAULTS["batch_size"].value * DEFAULTS["grad_accum"].value // 2
