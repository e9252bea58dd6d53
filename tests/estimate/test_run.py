import pytest

from triage.estimate import RunError, run_from_facts

LLAMA = {"model_name": "llama-2-7b"}


def assumed(run):
    return {a.fact: a.value for a in run.assumptions}


def test_4bit_means_qlora_and_qlora_means_a_4bit_base():
    assert run_from_facts(dict(LLAMA, quantization="nf4")).method == "qlora"
    run = run_from_facts(dict(LLAMA, finetune_method="qlora"))
    assert run.quantization == "4bit" and assumed(run)["quantization"] == "4bit"


def test_a_quantized_base_is_not_fully_finetuned():
    run = run_from_facts(dict(LLAMA, quantization="8bit", finetune_method="full"))
    assert run.method == "lora" and assumed(run)["finetune_method"] == "lora"


def test_qlora_recipes_prepare_the_model_and_so_checkpoint():
    run = run_from_facts(dict(LLAMA, quantization="4bit"))
    assert run.prepare_kbit and run.gc
    assert assumed(run)["gradient_checkpointing"] is True


def test_all_linear_targets_every_linear_of_the_layer():
    run = run_from_facts(dict(LLAMA, lora_target_modules="all-linear"))
    assert run.lora_targets == tuple(lin.name for lin in run.arch.linears())


def test_the_longest_sample_shortens_unpadded_batches_only():
    assert run_from_facts(dict(LLAMA, max_length=4096, max_sample_tokens=300)).seq == 300
    padded = run_from_facts(dict(LLAMA, max_length=4096, max_sample_tokens=300, padding="max_length"))
    assert padded.seq == 4096 and padded.padded


def test_zero_or_offload_implies_deepspeed_with_a_stated_stage():
    run = run_from_facts(dict(LLAMA, offload=True))
    assert (run.distributed, run.zero_stage, run.gpu_count) == ("deepspeed", 2, 2)
    assert run_from_facts(dict(LLAMA, distributed="fsdp")).zero_stage == 3


def test_flash_attention_on_a_turing_card_is_flagged():
    run = run_from_facts(dict(LLAMA, attn_implementation="fa2", gpu_name="T4"))
    assert run.attn == "flash_attention_2"
    assert any("cannot run it" in a.reason for a in run.assumptions)


def test_bad_values_are_clear_errors():
    with pytest.raises(RunError, match="quantization must be"):
        run_from_facts(dict(LLAMA, quantization="3bit"))
    with pytest.raises(RunError, match="zero_stage must be 0-3"):
        run_from_facts(dict(LLAMA, zero_stage=4))
    with pytest.raises(RunError, match="batch_size must be at least 1"):
        run_from_facts(dict(LLAMA, batch_size=0))


def test_a_mixture_of_experts_sized_as_a_dense_preset_says_what_that_gets_wrong():
    facts = {"model_name": "Qwen/Qwen3-30B-A3B", "model_params_b": 30.0}
    dense = next(a for a in run_from_facts(facts).assumptions if a.fact == "model_name")
    assert "mixture of experts" not in dense.reason
    moe = next(a for a in run_from_facts(dict(facts, moe=True)).assumptions if a.fact == "model_name")
    assert "mixture of experts" in moe.reason and "activations" in moe.reason
    assert "混合专家" in moe.reason_zh
