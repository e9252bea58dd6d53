from triage.estimate.components.activations import activations, layer_saving
from triage.estimate.components.generation import (
    eval_forward,
    eval_logits,
    generation_prefill,
    kv_cache,
    prefill_logits_bytes,
)

from .conftest import run_of

EVAL = {"phase": "evaluation", "compute_metrics": True, "eval_samples": 500, "eval_batch_size": 8, "max_length": 512}


def test_the_kv_cache_grows_with_beams_and_new_tokens():
    one = kv_cache(run_of(phase="generation", eval_batch_size=1, max_new_tokens=2048)).bytes
    assert one == 2 * 32 * 4096 * 4096 * 2
    assert kv_cache(run_of(phase="generation", eval_batch_size=1, max_new_tokens=2048, num_beams=4)).bytes == 4 * one


def test_the_trainer_accumulates_eval_logits_unless_told_otherwise():
    grows = eval_logits(run_of(**EVAL))
    assert grows is not None and grows.bytes == 2 * 500 * 512 * 32000 * 2
    capped = eval_logits(run_of(**EVAL, eval_accumulation_steps=2))
    assert capped is not None and capped.bytes == 2 * 16 * 512 * 32000 * 2
    assert eval_logits(run_of(**EVAL, preprocess_logits=True)) is None


def test_an_eval_forward_keeps_no_activations_only_the_logits_and_one_layer():
    run = run_of(**EVAL)
    training = run_of(batch_size=8, max_length=512)
    forward = eval_forward(run).bytes
    assert forward > run.eval_batch * run.seq * run.arch.vocab * (2 + 8)  # logits + fp32 loss copies
    assert forward < activations(training, layer_saving(training)).bytes / 5


def test_old_transformers_computes_prefill_logits_for_every_prompt_position():
    old = run_of(phase="generation", eval_batch_size=1, transformers_version="4.44.0", max_length=1024)
    new = run_of(phase="generation", eval_batch_size=1, transformers_version="4.45.0", max_length=1024)
    assert prefill_logits_bytes(old) == 1024 * prefill_logits_bytes(new)
    assert "every prompt position" in generation_prefill(old).formula
