import pytest

from triage.estimate.components.optimizer_memory import master_weights, optimizer_state, optimizer_temps

from .conftest import context_of

ADAPTERS = 4_194_304  # LLaMA-7B LoRA r=8 on q,v


def test_adamw_keeps_two_fp32_states_per_lora_parameter():
    state = optimizer_state(context_of())
    assert state.name == "optimizer_state" and state.bytes == ADAPTERS * 8


def test_an_8bit_adamw_keeps_about_a_quarter_and_sgd_nothing():
    adamw = optimizer_state(context_of()).bytes
    eight = optimizer_state(context_of(optimizer="adamw_bnb_8bit")).bytes
    assert eight / adamw == pytest.approx((1 + 4 / 256) / 4)
    assert optimizer_state(context_of(optimizer="sgd")).bytes == 0


def test_adafactor_on_a_full_finetune_is_a_tiny_fraction_of_adamw():
    adamw = optimizer_state(context_of(finetune_method="full")).bytes
    adafactor = optimizer_state(context_of(finetune_method="full", optimizer="adafactor")).bytes
    assert 0 < adafactor < adamw / 100


def test_galore_states_are_much_smaller_than_adamw():
    adamw = optimizer_state(context_of(finetune_method="full")).bytes
    galore = optimizer_state(context_of(finetune_method="full", optimizer="galore_adamw")).bytes
    assert 0 < galore < adamw / 4


def test_a_paged_optimizer_keeps_its_state_outside_the_allocated_counter():
    paged = optimizer_state(context_of(optimizer="paged_adamw_32bit"))
    assert paged.name == "optimizer_state_paged" and paged.bytes == ADAPTERS * 8


def test_zero1_shards_the_state_and_offload_empties_it():
    single = optimizer_state(context_of(finetune_method="full")).bytes
    sharded = optimizer_state(context_of(finetune_method="full", zero_stage=1, gpu_count=4))
    assert "/ 4 GPUs (ZeRO-1)" in sharded.formula
    # DeepSpeed keeps torch.optim states in fp32: twice the bf16 state, over 4 GPUs
    assert sharded.bytes == 2 * single // 4
    assert optimizer_state(context_of(finetune_method="full", zero_stage=2, offload=True)).bytes == 0


def test_deepspeed_keeps_fp32_master_weights_of_a_16_bit_full_finetune():
    ctx = context_of(finetune_method="full", zero_stage=2, gpu_count=2)
    master = master_weights(ctx)
    assert master is not None and master.bytes == ctx.run.arch.total_params() * 4 // 2
    assert master_weights(context_of(finetune_method="full")) is None  # no DeepSpeed
    assert master_weights(context_of(zero_stage=2, gpu_count=2)) is None  # LoRA adapters are fp32 already


def test_foreach_adamw_makes_one_full_size_temporary_and_fused_none():
    ctx = context_of(finetune_method="full", optimizer="adamw_torch")
    assert optimizer_temps(ctx).bytes == 2 * ctx.run.arch.total_params()
    assert optimizer_temps(context_of(finetune_method="full")).bytes == 0
