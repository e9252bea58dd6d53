from triage.estimate.components.activations import layer_saving
from triage.estimate.components.attention import (
    attention_mask,
    attention_scores,
    causal_mask_buffer,
    saved_per_token,
)

from .conftest import run_of


def scores(**facts):
    run = run_of(**facts)
    return attention_scores(run, layer_saving(run))


def test_eager_attention_scores_grow_with_the_square_of_the_length():
    short, long = scores(attn_implementation="eager", max_length=1024), scores(attn_implementation="eager")
    assert short is not None and long is not None
    assert long.bytes == 4 * short.bytes


def test_sdpa_and_flash_attention_keep_no_scores():
    assert scores(attn_implementation="sdpa") is None
    assert scores(attn_implementation="flash_attention_2") is None


def test_checkpointing_keeps_the_scores_of_the_one_layer_being_recomputed():
    off, on = scores(attn_implementation="eager"), scores(attn_implementation="eager", gradient_checkpointing=True)
    assert off is not None and on is not None
    assert on.bytes < off.bytes / 20 and "only the layer being recomputed" in on.formula


def test_old_sdpa_repeats_the_kv_heads_of_gqa():
    old = saved_per_token(run_of(model_name="llama-3-8b", transformers_version="4.47.0"))
    new = saved_per_token(run_of(model_name="llama-3-8b", transformers_version="4.48.0"))
    assert old[0] > new[0] and old[1] == new[1] == 0


def test_the_4d_mask_is_built_for_eager_and_for_padded_sdpa():
    assert attention_mask(run_of()) is None
    eager = attention_mask(run_of(attn_implementation="eager"))
    padded = attention_mask(run_of(padding="longest"))
    assert eager is not None and padded is not None and eager.bytes == padded.bytes == 2048**2 * 2


def test_transformers_4_38_registers_a_causal_mask_buffer():
    buffer = causal_mask_buffer(run_of(transformers_version="4.38.2"))
    assert buffer is not None and "#29484" in buffer.formula
    assert causal_mask_buffer(run_of(transformers_version="4.39.0")) is None


def test_falcon_multi_query_sdpa_falls_back_to_the_math_kernel():
    from triage.estimate import estimate

    from .conftest import BASE

    facts = dict(BASE, model_name="falcon-7b", lora_target_modules="query_key_value", max_length=1024)
    falcon = estimate(dict(facts, attn_implementation="sdpa"))
    a = falcon.run.arch
    # fp32 softmax output of the math kernel (torch >= 2.5), every layer: measured 4 B per score with the oracle
    assert falcon.sizes["attention_scores"].bytes == a.layers * a.heads * 1024**2 * 4
    old_torch = estimate(dict(facts, attn_implementation="sdpa", torch_version="2.4.1"))
    assert old_torch.sizes["attention_scores"].bytes == a.layers * a.heads * 1024**2 * 2
    # grouped-query Llama keeps SDPA's flash kernel (no mask, enable_gqa): nothing quadratic
    assert "attention_scores" not in estimate(dict(BASE, model_name="llama-3-8b")).sizes


def test_falcon_and_gpt2_eager_softmax_stays_in_the_compute_dtype():
    from triage.estimate.components.attention import score_bytes

    from .conftest import run_of

    assert score_bytes(run_of(attn_implementation="eager")) == 4 + 2  # Llama: fp32 softmax + bf16 probabilities
    falcon = run_of(model_name="falcon-7b", lora_target_modules="query_key_value", attn_implementation="eager")
    assert score_bytes(falcon) == 2
