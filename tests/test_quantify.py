"""The quantify stage: derived facts count as evidence only when they rest on what the user said."""

from __future__ import annotations

from triage.facts import Fact, FactSet, Source
from triage.quantify import derive


def facts(**values):
    return FactSet().with_facts(Fact(k, v, Source("cli")) for k, v in values.items())


def test_derived_facts_that_rest_on_assumed_settings_are_withheld():
    got = derive(facts(model_name="llama2-7b", gpu_name="RTX 3090"))
    assert "weights_exceed_gpu" in got and got.value("weights_exceed_gpu") is False
    assert "does_not_fit_at_batch_1" not in got  # max_length and checkpointing were assumed
    assert got["weights_exceed_gpu"].source.kind == "derived"


def test_with_the_settings_stated_the_estimate_becomes_evidence():
    got = derive(
        facts(
            model_name="llama2-7b",
            gpu_name="RTX 3090",
            max_length=2048,
            gradient_checkpointing=False,
            quantization="none",
            batch_size=4,
            finetune_method="lora",
        )
    )
    assert got.value("does_not_fit_at_batch_1") is True
    assert got.value("largest_component") == "activations"


def test_stated_facts_win_over_derived_ones():
    got = derive(facts(model_name="llama2-13b", gpu_name="RTX 3090", weights_exceed_gpu=False))
    assert got["weights_exceed_gpu"].source.kind == "cli"


def test_without_a_model_nothing_is_derived():
    assert len(derive(facts(gpu_name="RTX 3090"))) == 1


def test_weights_too_big_is_no_evidence_while_the_quantization_is_unknown():
    # "13B On 24GB go OOM" (artidoro/qlora#225, development split): 13B fits in 8 or 4 bits
    assert "weights_exceed_gpu" not in derive(facts(model_params_b=13.0, gpu_name="RTX 3090"))
    assert derive(facts(model_params_b=13.0, gpu_name="RTX 3090", quantization="none")).value("weights_exceed_gpu")
    assert derive(facts(model_params_b=13.0, gpu_name="RTX 3090", finetune_method="full")).value("weights_exceed_gpu")
    assert "weights_exceed_gpu" not in derive(facts(model_params_b=13.0, gpu_name="RTX 3090", finetune_method="lora"))


def test_weights_that_fit_unquantized_fit_whatever_the_quantization():
    got = derive(facts(model_params_b=7.0, gpu_name="RTX 3090"))
    assert got.value("weights_exceed_gpu") is False


def test_weights_too_big_even_in_8_bits_stay_evidence():
    # 13B in 8 bits is ~13 GB: it cannot fit a 12 GB card whatever the unstated quantization short of 4 bits
    got = derive(facts(model_params_b=13.0, gpu_name="RTX 3060", gpu_memory_bytes=12 * 1024**3))
    assert got.value("weights_exceed_gpu") is True
    assert "8-bit" in (got["weights_exceed_gpu"].source.excerpt or "")


def test_memory_seen_in_use_is_divided_by_the_parameters():
    # 28 GiB seen for a 7B model: 4.3 bytes per parameter, float32's size (plus the CUDA context)
    got = derive(facts(model_params_b=7.0, used_memory_bytes=28 * 2**30))
    assert got.value("observed_bytes_per_param") == 4.29
    assert got["observed_bytes_per_param"].source.kind == "derived"
    assert "28.0 GiB seen in use for 7B parameters" in got["observed_bytes_per_param"].source.excerpt


def test_no_ratio_without_both_figures_or_for_a_small_model():
    assert "observed_bytes_per_param" not in derive(facts(used_memory_bytes=28 * 2**30))
    assert "observed_bytes_per_param" not in derive(facts(model_params_b=7.0))
    # 0.5B parameters: the CUDA context alone would look like several bytes per parameter
    assert "observed_bytes_per_param" not in derive(facts(model_params_b=0.5, used_memory_bytes=3 * 2**30))


def test_the_weights_share_of_the_card_is_derived_with_the_dtype_it_assumes():
    # DeepSpeed#655 (development split): 11B in fp16 fits a 24 GB card by a hair; the share says how little is left
    got = derive(facts(model_params_b=11.0, gpu_name="RTX 3090", torch_dtype="fp16", finetune_method="full"))
    assert got.value("weights_exceed_gpu") is False
    assert 0.9 < got.value("weights_gpu_share") < 1.0
    assert "fp16" in got["weights_gpu_share"].source.excerpt
    assert derive(facts(model_params_b=7.0, gpu_name="A100 80GB")).value("weights_gpu_share") < 0.25
    in_4bit = derive(facts(model_params_b=70.0, gpu_name="A100 80GB", quantization="4bit"))
    assert in_4bit.value("weights_gpu_share") < 0.6


def test_the_whole_model_against_one_card_is_derived_apart_from_the_shard_a_card_holds():
    # 32B in bf16 over 4 x A100 40GB with ZeRO-3: each card holds a shard, but a process that loads the whole
    # model (prediction with the same launcher) needs 60 GiB on one card
    sharded = facts(
        model_params_b=32.0,
        gpu_name="A100 40GB",
        gpu_count=4,
        distributed="deepspeed",
        zero_stage=3,
        torch_dtype="bf16",
        quantization="none",
    )
    got = derive(sharded)
    assert got.value("weights_exceed_gpu") is False
    assert got.value("whole_weights_exceed_gpu") is True
    assert "all the weights" in (got["whole_weights_exceed_gpu"].source.excerpt or "")
    # one card and no sharding: the two agree
    alone = derive(facts(model_params_b=7.0, gpu_name="RTX 3090", torch_dtype="bf16"))
    assert alone.value("whole_weights_exceed_gpu") is alone.value("weights_exceed_gpu") is False


def test_a_full_fine_tunes_state_is_weighed_against_all_its_gpus():
    # 7B full fine-tune on one 80 GB card, dtype unstated: sized as mixed precision (fp32 weights and AdamW
    # states, 16 B a parameter, how Trainer and DeepSpeed train), it cannot fit before a single activation
    one = derive(facts(model_params_b=7.0, gpu_memory_bytes=80 * 2**30, finetune_method="full"))
    assert one.value("state_gpu_share") > 1.2
    assert "mixed precision" in (one["state_gpu_share"].source.excerpt or "")
    # trained in pure bf16, the same state is half as large and fits
    pure = derive(facts(model_params_b=7.0, gpu_memory_bytes=80 * 2**30, finetune_method="full", torch_dtype="bf16"))
    assert 0.6 < pure.value("state_gpu_share") < 0.7
    # 13B on 4 x 32 GB: ZeRO-3 over all four still leaves ~50 GiB a card, whatever stage the run used
    four = derive(facts(model_params_b=13.0, gpu_memory_bytes=32 * 2**30, gpu_count=4, finetune_method="full"))
    assert four.value("state_gpu_share") > 1.5
    assert "spread over 4 GPUs" in (four["state_gpu_share"].source.excerpt or "")
    # eight 80 GB cards hold a 7B full fine-tune's state once it is sharded
    eight = derive(facts(model_params_b=7.0, gpu_memory_bytes=80 * 2**30, gpu_count=8, finetune_method="full"))
    assert eight.value("state_gpu_share") < 0.2


def test_the_state_is_not_weighed_on_an_assumed_method_or_gpu_count():
    # the method decides whether the state is 16 B or a LoRA's few MB a parameter
    assert "state_gpu_share" not in derive(facts(model_params_b=7.0, gpu_memory_bytes=80 * 2**30))
    # DeepSpeed named without a GPU count: the estimator sizes 2 GPUs, which says nothing about the user's
    ds = facts(model_params_b=7.0, gpu_memory_bytes=80 * 2**30, finetune_method="full", distributed="deepspeed")
    assert "state_gpu_share" not in derive(ds)


def test_a_model_named_as_a_mixture_of_experts_is_one_whatever_said_the_name():
    got = derive(facts(model_name="Qwen/Qwen3-30B-A3B"))
    assert got.value("moe") is True and got["moe"].source.kind == "cli"
    assert "moe" not in derive(facts(model_name="Qwen/Qwen2.5-7B"))
    # what the user said wins over the name
    assert derive(facts(model_name="Qwen/Qwen3-30B-A3B", moe=False)).value("moe") is False
