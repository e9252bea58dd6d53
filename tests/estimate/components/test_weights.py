import pytest

from triage.estimate.components.distributed import sharding
from triage.estimate.components.weights import autocast_copies, live_weights, weights

from .conftest import run_of

LLAMA_7B_PARAMS = 6_738_415_616


def test_bf16_weights_are_two_bytes_per_parameter_and_fp32_four():
    assert weights(run_of()).bytes == 2 * LLAMA_7B_PARAMS
    assert weights(run_of(torch_dtype="fp32")).bytes == 4 * LLAMA_7B_PARAMS


def test_4bit_weights_are_about_a_quarter_of_bf16_and_8bit_about_half():
    bf16 = weights(run_of()).bytes
    nf4 = weights(run_of(quantization="4bit", prepare_kbit_training=False)).bytes
    int8 = weights(run_of(quantization="8bit", prepare_kbit_training=False)).bytes
    # the embeddings and lm_head stay bf16, so a little more than a quarter / a half
    assert 0.25 < nf4 / bf16 < 0.33
    assert 0.5 < int8 / bf16 < 0.55


def test_double_quant_saves_0_0466_bytes_per_quantized_parameter():
    plain = run_of(quantization="4bit", double_quant=False, prepare_kbit_training=False)
    dq = run_of(quantization="4bit", double_quant=True, prepare_kbit_training=False)
    saved = weights(plain).bytes - weights(dq).bytes
    assert saved / plain.arch.linear_params() == pytest.approx(4 / 64 - 1 / 64 - 4 / 16384, abs=1e-4)


def test_prepare_kbit_training_upcasts_what_is_not_quantized():
    plain = weights(run_of(quantization="4bit", prepare_kbit_training=False))
    prepared = weights(run_of(quantization="4bit", prepare_kbit_training=True))
    run = run_of()
    other = run.arch.total_params() - run.arch.linear_params()
    assert prepared.bytes - plain.bytes == 2 * other
    assert "upcasts" in prepared.formula


def test_zero3_keeps_a_shard_and_the_working_set():
    run = run_of(finetune_method="full", distributed="deepspeed", zero_stage=3, gpu_count=8)
    loaded = weights(run)
    live = live_weights(run, sharding(run), loaded)
    assert loaded.bytes / 8 < live.bytes < loaded.bytes / 4
    assert "sharded over 8 GPUs" in live.formula


def test_a_device_map_split_holds_about_half_the_layers_on_each_of_two_gpus():
    run = run_of(distributed="model_parallel", gpu_count=2)
    loaded = weights(run)
    live = live_weights(run, sharding(run), loaded)
    assert loaded.bytes * 0.45 < live.bytes < loaded.bytes * 0.55


def test_a_single_gpu_holds_every_weight():
    run = run_of()
    loaded = weights(run)
    assert live_weights(run, sharding(run), loaded) is loaded


def test_autocast_keeps_16_bit_copies_of_fp32_weights_one_layer_at_a_time_with_checkpointing():
    assert autocast_copies(run_of()) is None  # bf16 weights computed in bf16: nothing to cast
    off = autocast_copies(run_of(torch_dtype="fp32", mixed_precision="bf16"))
    on = autocast_copies(run_of(torch_dtype="fp32", mixed_precision="bf16", gradient_checkpointing=True))
    assert off is not None and on is not None
    assert off.bytes > 2 * run_of().arch.linear_params()
    assert on.bytes < off.bytes / 10
