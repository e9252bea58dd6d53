import pytest

from triage.estimate import apply_changes, estimate, saving, saving_detail
from triage.estimate.estimator import GiB


@pytest.mark.parametrize(
    "changes",
    [
        {"gradient_checkpointing": True},
        {"attn_implementation": "sdpa"},
        {"attn_implementation": "flash_attention_2"},
        {"batch_size": 1, "grad_accum": "scaled"},
        {"quantization": "4bit"},
        {"quantization": "8bit"},
        {"optimizer": "adamw_bnb_8bit"},
        {"optimizer": "paged_adamw_8bit"},
        {"optimizer": "adafactor"},
        {"max_length": 1024},
        {"max_length": "half"},
        {"fused_loss": True},
        {"lora_r": 4},
        {"distributed": "deepspeed", "zero_stage": 3, "gpu_count": 2},
        {"expandable_segments": True},
    ],
)
def test_each_remedy_saves_memory_on_the_scenario(scenario, changes):
    assert saving(scenario, changes) > 0


def test_savings_are_quantified_per_remedy(scenario):
    gib = {
        name: saving(scenario, ch) / GiB
        for name, ch in {
            "gc": {"gradient_checkpointing": True},
            "sdpa": {"attn_implementation": "sdpa"},
            "half_len": {"max_length": 1024},
            "8bit_optim": {"optimizer": "adamw_bnb_8bit"},
        }.items()
    }
    # the eager s² scores dominate this run: sdpa and checkpointing save ~100 GiB, an 8-bit optimizer ~0
    assert gib["gc"] > 100 and gib["sdpa"] > 80 and gib["half_len"] > 50
    assert 0 < gib["8bit_optim"] < 0.05


def test_use_cache_false_saves_nothing(scenario):
    assert saving(scenario, {"use_cache": False}) == 0


def test_batch_1_keeps_the_effective_batch(scenario):
    after = apply_changes(dict(scenario, grad_accum=2), {"batch_size": 1, "grad_accum": "scaled"})
    assert after["batch_size"] == 1 and after["grad_accum"] == 8


def test_4bit_turns_lora_into_qlora_and_modules_to_save_none_drops_the_copies(scenario):
    assert apply_changes(scenario, {"quantization": "4bit"})["finetune_method"] == "qlora"
    with_mts = dict(scenario, modules_to_save="embed_tokens,lm_head")
    assert estimate(with_mts).sizes["modules_to_save"].bytes == 2 * 32000 * 4096 * 2
    assert saving(with_mts, {"modules_to_save": "none"}) > 2 * 32000 * 4096 * 2


def test_offload_on_a_single_gpu_means_zero_offload():
    full = {
        "model_name": "llama-2-7b",
        "finetune_method": "full",
        "gpu_name": "a100-80gb",
        "batch_size": 1,
        "max_length": 512,
        "gradient_checkpointing": True,
        "torch_dtype": "bf16",
    }
    detail = saving_detail(full, {"offload": True})
    assert detail.after.run.distributed == "deepspeed" and detail.bytes > 20 * GiB


def test_eval_accumulation_steps_saves_in_evaluation():
    ev = {
        "model_name": "llama-2-7b",
        "phase": "evaluation",
        "compute_metrics": True,
        "eval_samples": 2000,
        "max_length": 512,
        "torch_dtype": "bf16",
        "gpu_name": "3090",
    }
    assert saving(ev, {"eval_accumulation_steps": 4}) > 50 * GiB
    assert saving(ev, {"preprocess_logits": True}) > 50 * GiB


def test_unmodeled_changes_are_reported(scenario):
    detail = saving_detail(scenario, {"dataloader_num_workers": 2})
    assert detail.bytes == 0 and detail.unmodeled == ("dataloader_num_workers",)


def test_kill_other_process_change_uses_a_size_string(scenario):
    busy = dict(scenario, other_process_bytes="6GiB")
    assert saving(busy, {"other_process_bytes": "0GiB"}) == 6 * GiB
