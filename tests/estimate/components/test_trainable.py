import pytest

from triage.estimate import RunError
from triage.estimate.components.trainable import (
    gradients,
    lora_adapters,
    modules_to_save,
    tied_embedding_grads,
    trainable,
    unknown_targets,
)

from .conftest import context_of, run_of


def test_lora_r8_on_q_and_v_of_llama_7b_is_4_2m_fp32_parameters():
    ctx = context_of()
    assert ctx.trainable.params == 4_194_304
    adapters = lora_adapters(ctx)
    assert adapters is not None and adapters.bytes == 4_194_304 * 4


def test_twice_the_rank_is_twice_the_adapters_and_all_linear_is_more():
    r8 = trainable(run_of()).params
    assert trainable(run_of(lora_r=16)).params == 2 * r8
    assert trainable(run_of(lora_target_modules="all-linear")).params > 4 * r8


def test_a_given_trainable_count_wins():
    assert trainable(run_of(trainable_params_b=0.01)).params == 10_000_000


def test_targets_that_match_no_module_are_an_error_and_stray_ones_are_reported():
    with pytest.raises(RunError, match="match no module"):
        trainable(run_of(lora_target_modules="query_key_value"))
    assert unknown_targets(run_of(lora_target_modules="q_proj,v_proj,foo_proj")) == {"foo_proj"}


def test_modules_to_save_keeps_a_trainable_copy_of_each_matrix():
    run = run_of(modules_to_save="embed_tokens,lm_head")
    copies = modules_to_save(run)
    assert copies is not None and copies.bytes == 2 * 32000 * 4096 * 2
    assert trainable(run).total_params == trainable(run_of()).params + 2 * 32000 * 4096
    assert modules_to_save(run_of(modules_to_save="score")) is None


def test_a_full_finetune_keeps_a_gradient_per_parameter_in_its_dtype():
    ctx = context_of(finetune_method="full")
    assert gradients(ctx).bytes == 2 * ctx.run.arch.total_params()


def test_zero2_shards_the_gradients_and_a_fused_step_keeps_only_one():
    full = gradients(context_of(finetune_method="full")).bytes
    assert gradients(context_of(finetune_method="full", zero_stage=2, gpu_count=4)).bytes == full // 4
    fused = gradients(context_of(finetune_method="full", optimizer_in_backward=True))
    assert fused.bytes < full / 50 and "fused into backward" in fused.formula


def test_zero_offload_moves_the_gradients_off_the_gpu():
    assert gradients(context_of(finetune_method="full", zero_stage=2, offload=True)).bytes == 0


def test_tied_embeddings_cost_two_extra_gradient_copies_in_a_full_finetune():
    ctx = context_of(model_name="qwen2.5-0.5b", finetune_method="full")
    tied = tied_embedding_grads(ctx)
    a = ctx.run.arch
    assert tied is not None and tied.bytes == 2 * a.vocab * a.hidden * 2
    assert tied_embedding_grads(context_of(model_name="qwen2.5-0.5b")) is None  # LoRA
    assert tied_embedding_grads(context_of(finetune_method="full")) is None  # Llama: untied


def test_fsdp_and_zero3_shard_the_adapters_and_cpu_offload_moves_them_off_the_gpu():
    one = lora_adapters(context_of())
    fsdp = lora_adapters(context_of(distributed="fsdp", zero_stage=3, gpu_count=4))
    zero3 = lora_adapters(context_of(distributed="deepspeed", zero_stage=3, gpu_count=2))
    zero2 = lora_adapters(context_of(distributed="deepspeed", zero_stage=2, gpu_count=2))
    offload = lora_adapters(context_of(distributed="fsdp", zero_stage=3, gpu_count=2, offload=True))
    assert one is not None and fsdp is not None and zero3 is not None and zero2 is not None
    assert fsdp.bytes == one.bytes // 4 and zero3.bytes == one.bytes // 2
    assert zero2.bytes == one.bytes  # ZeRO-2 keeps every parameter whole on each GPU
    assert offload is not None and offload.bytes == 0 and "offloaded to CPU" in offload.formula


def test_peft_before_0_12_keeps_adapters_in_the_base_dtype_and_later_releases_in_fp32():
    params = trainable(run_of()).params
    old = context_of(peft_version="0.11.1")
    new = context_of(peft_version="0.12.0")
    old_adapters, new_adapters = lora_adapters(old), lora_adapters(new)
    assert old_adapters is not None and new_adapters is not None
    assert old_adapters.bytes == params * 2 and new_adapters.bytes == params * 4
    assert "before 0.12" in old_adapters.formula
    # their gradients follow (and so does a torch AdamW state, in the parameter's dtype)
    assert gradients(old).bytes == params * 2 and gradients(new).bytes == params * 4
    # over a 4-bit base (uint8 storage) peft 0.11 leaves them in fp32 too
    qlora = lora_adapters(context_of(peft_version="0.11.1", finetune_method="qlora", quantization="4bit"))
    assert qlora is not None and qlora.bytes == params * 4
