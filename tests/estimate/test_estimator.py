import statistics

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from triage.estimate import RunError, estimate
from triage.estimate.estimator import GiB

from .conftest import FIXTURES

GB = 1e9
BASE = {
    "model_name": "llama-7b",
    "torch_dtype": "bf16",
    "finetune_method": "lora",
    "lora_r": 8,
    "lora_target_modules": "q_proj,v_proj",
    "batch_size": 1,
    "max_length": 2048,
    "optimizer": "adamw_torch_fused",
}


def test_seed_claims_llama_7b_weights_and_lora():
    e = estimate(BASE)
    assert e.sizes["weights"].bytes == 6_738_415_616 * 2
    assert round(e.sizes["weights"].bytes / GB, 2) == 13.48
    assert e.sizes["lora_adapters"].bytes == 4_194_304 * 4
    assert e.sizes["optimizer_state"].bytes == 4_194_304 * 8  # 33.5 MB of fp32 AdamW state
    assert round(e.sizes["optimizer_state"].bytes / 1e6, 1) == 33.6


def test_nf4_double_quant_is_0_5159_bytes_per_quantized_param():
    dq = estimate(dict(BASE, quantization="4bit", double_quant=True, prepare_kbit_training=False))
    plain = estimate(dict(BASE, quantization="4bit", double_quant=False, prepare_kbit_training=False))
    arch = dq.run.arch
    other = (arch.total_params() - arch.linear_params()) * 2
    assert (dq.sizes["weights"].bytes - other) / arch.linear_params() == pytest.approx(0.5159, abs=1e-4)
    assert (plain.sizes["weights"].bytes - other) / arch.linear_params() == pytest.approx(0.5625, abs=1e-4)


def test_seed_claims_gc_on_and_off_at_2048():
    eager = dict(BASE, transformers_version="4.31.0")
    on = estimate(dict(eager, gradient_checkpointing=True))
    off = estimate(dict(eager, gradient_checkpointing=False))
    assert on.run.attn == "eager"
    assert 15 * GB <= on.device_total.expected <= 17.5 * GB  # "GC on 2048 ≈ 16-17 GB" incl. context
    assert 46 * GB <= off.peak_bytes <= 54 * GB  # "GC off ≈ 50 GB"


#: The rule for the measured reference table: every row's allocated peak within 1 % of the
#: measurement, except the rows the estimator missed by more than 2/3 % when this guard was written,
#: which may miss by 1.5x that error (rounded up to 0.1 %): eager attention under checkpointing,
#: where the recompute of one layer is sized as one block, and QLoRA on all linears after
#: prepare_model_for_kbit_training. The median row stays within 0.25 % (it was 0.07 %).
#: Tighten these when the estimator improves; loosening one needs a reason in the commit.
ROW_TOLERANCE = 0.01
WIDER_ROW_TOLERANCE = {
    "L2-7B LoRA r16 q,v, adamw/fused eager gc=on b=1 s=1024": 0.017,  # was 1.08 %
    "L2-7B LoRA r16 q,v, adamw/fused eager gc=on b=1 s=2048": 0.020,  # was 1.31 %
    "L2-7B LoRA r16 q,v, adamw/fused eager gc=on b=2 s=1024": 0.027,  # was 1.79 %
    "L2-7B LoRA r16 q,v, adamw/fused eager gc=on b=2 s=2048": 0.032,  # was 2.13 %
    "L2-7B QLoRA-nf4 r16 all-linear +kbit-prep, adamw/fused sdpa gc=on b=1 s=512": 0.019,  # was 1.23 %
}
MEDIAN_TOLERANCE = 0.0025


def test_matches_the_measured_reference_table():
    rows = yaml.safe_load((FIXTURES / "reference_peaks.yaml").read_text())["rows"]
    assert len(rows) >= 40
    assert set(WIDER_ROW_TOLERANCE) <= {row["label"] for row in rows}
    errors, misses = [], []
    for row in rows:
        e = estimate(row["facts"])
        error = abs(e.peak_bytes / GiB - row["peak_gib"]) / row["peak_gib"]
        errors.append(error)
        allowed = WIDER_ROW_TOLERANCE.get(row["label"], ROW_TOLERANCE)
        if error > allowed or e.peak_phase != row["phase"]:
            misses.append(
                f"{row['label']}: {e.peak_bytes / GiB:.3f} GiB at {e.peak_phase}, measured {row['peak_gib']} GiB "
                f"at {row['phase']} ({error:.2%} off, {allowed:.1%} allowed)"
            )
    assert not misses, "\n".join(misses)
    assert statistics.median(errors) <= MEDIAN_TOLERANCE


def test_full_finetune_peaks_at_end_of_backward_and_foreach_adds_a_copy():
    full = dict(BASE, finetune_method="full", max_length=512, transformers_version="5.0.0")
    fused = estimate(full)
    assert fused.peak.detail.startswith("end of backward")
    assert fused.peak_bytes == pytest.approx(4 * fused.sizes["weights"].bytes, rel=0.01)
    foreach = estimate(dict(full, optimizer="adamw_torch"))
    assert foreach.peak_phase == "optimizer"
    assert foreach.peak_bytes - fused.peak_bytes == pytest.approx(fused.sizes["weights"].bytes, rel=0.01)


def test_paged_optimizer_state_is_outside_the_allocated_peak():
    paged = estimate(dict(BASE, finetune_method="full", optimizer="paged_adamw_32bit", max_length=512))
    assert "optimizer_state" not in paged.components
    assert paged.sizes["optimizer_state_paged"].bytes > 0


def test_mixed_precision_full_finetune_is_about_18_bytes_per_param():
    e = estimate(
        dict(
            BASE,
            finetune_method="full",
            torch_dtype="fp32",
            mixed_precision="bf16",
            max_length=128,
            gradient_checkpointing=True,
        )
    )
    n = e.run.arch.total_params()
    assert 16 * n <= e.peak_bytes <= 19 * n


def test_prepare_kbit_on_unquantized_model_doubles_the_weights():
    e = estimate(dict(BASE, prepare_kbit_training=True))
    assert e.sizes["weights"].bytes == 4 * e.run.arch.total_params()


def test_zero3_shards_and_offload_empties_the_state():
    full = dict(BASE, finetune_method="full", max_length=512, gradient_checkpointing=True)
    single = estimate(full)
    z3 = estimate(dict(full, distributed="deepspeed", zero_stage=3, gpu_count=8))
    n = single.run.arch.total_params()
    # DeepSpeed's own estimate_zero3_model_states_mem_needs: 18 B/param over the GPUs + the largest layer
    assert 18 * n / 8 <= z3.peak_bytes < single.peak_bytes / 2.5
    off = estimate(dict(full, distributed="deepspeed", zero_stage=2, offload=True, gpu_count=1))
    assert off.sizes["optimizer_state"].bytes == 0
    ddp = estimate(dict(full, distributed="ddp", gpu_count=2))
    assert ddp.sizes["comm_buffers"].bytes > 0 and ddp.peak_bytes > single.peak_bytes


def test_eval_accumulates_logits_and_eval_accumulation_steps_caps_it():
    ev = dict(BASE, phase="evaluation", compute_metrics=True, eval_samples=500, eval_batch_size=8, max_length=512)
    grows = estimate(ev)
    capped = estimate(dict(ev, eval_accumulation_steps=2))
    assert grows.peak_phase == "evaluation"
    assert grows.sizes["eval_logits"].bytes == 2 * 500 * 512 * 32000 * 2
    assert capped.peak_bytes < grows.peak_bytes


def test_generation_kv_cache():
    gen = estimate(dict(BASE, phase="generation", eval_batch_size=1, num_beams=1, max_length=2048, max_new_tokens=2048))
    assert gen.sizes["kv_cache"].bytes == 2 * 32 * 1 * 4096 * 4096 * 2  # 2.1 GB for 4096 tokens


def test_use_cache_in_training_costs_nothing():
    assert estimate(dict(BASE, use_cache=True)).peak_bytes == estimate(dict(BASE, use_cache=False)).peak_bytes


def test_assumptions_are_stated():
    e = estimate({"model_name": "llama-2-7b"})
    stated = {a.fact for a in e.assumptions}
    assert {"batch_size", "max_length", "torch_dtype", "gradient_checkpointing", "optimizer"} <= stated


def test_bad_input_is_a_clear_error():
    with pytest.raises(RunError, match="unknown model"):
        estimate({"model_name": "no-such-model-xyz"})
    with pytest.raises(ValueError, match="unknown optimizer"):
        estimate(dict(BASE, optimizer="adamw_quantum"))
    with pytest.raises(RunError, match="match no module"):
        estimate(dict(BASE, lora_target_modules="query_key_value"))


configs = st.fixed_dictionaries(
    {
        "model_name": st.sampled_from(
            ["llama-2-7b", "llama-3-8b", "qwen2.5-0.5b", "pythia-1b", "phi-2", "gemma-2-2b", "falcon-7b", "phi-3-mini"]
        ),
        "finetune_method": st.sampled_from(["lora", "qlora", "full", "freeze"]),
        "attn_implementation": st.sampled_from(["eager", "sdpa", "flash_attention_2"]),
        "gradient_checkpointing": st.booleans(),
        "batch_size": st.integers(1, 8),
        "max_length": st.integers(16, 4096),
        "optimizer": st.sampled_from(["adamw_torch", "adamw_torch_fused", "adamw_bnb_8bit", "adafactor", "sgd"]),
        "torch_dtype": st.sampled_from(["bf16", "fp16", "fp32"]),
        "fused_loss": st.booleans(),
    }
)


@settings(max_examples=150, deadline=None)
@given(configs, st.integers(1, 4096), st.integers(1, 8))
def test_more_length_or_batch_never_lowers_the_estimate(cfg, extra_len, extra_batch):
    base = estimate(cfg).device_total.expected
    assert estimate(dict(cfg, max_length=cfg["max_length"] + extra_len)).device_total.expected >= base
    assert estimate(dict(cfg, batch_size=cfg["batch_size"] + extra_batch)).device_total.expected >= base


@settings(max_examples=150, deadline=None)
@given(configs)
def test_gradient_checkpointing_never_raises_the_estimate(cfg):
    # Not for freeze tuning: with a single trained layer, checkpointing keeps that layer's input
    # and rebuilds the same activations in backward, so it costs the input more (a real effect).
    assume(cfg["finetune_method"] != "freeze")
    off = estimate(dict(cfg, gradient_checkpointing=False)).peak_bytes
    on = estimate(dict(cfg, gradient_checkpointing=True)).peak_bytes
    assert on <= off


def test_checkpointing_a_single_trained_layer_costs_its_input():
    cfg = {
        "model_name": "falcon-7b",
        "finetune_method": "freeze",
        "attn_implementation": "eager",
        "batch_size": 1,
        "max_length": 1519,
        "torch_dtype": "fp32",
        "fused_loss": True,
        "optimizer": "adamw_torch_fused",
    }
    off = estimate(dict(cfg, gradient_checkpointing=False))
    on = estimate(dict(cfg, gradient_checkpointing=True))
    assert 0 <= on.peak_bytes - off.peak_bytes <= on.components["activations"]


@pytest.mark.parametrize(
    ("version", "said"),
    [("5.0.0rc1", "transformers 5 loads"), ("5.0.0", "transformers 5 loads"), ("5.0.0rc0", None), ("4.57.6", None)],
)
def test_the_weights_dtype_follows_transformers_default_by_release(version, said):
    """No dtype given: from 5.0.0rc1 transformers loads the checkpoint's own dtype (read in the wheels); before, the
    estimator guesses a 16-bit load and says it assumed so."""
    run = {k: v for k, v in BASE.items() if k != "torch_dtype"}
    notes = [a.reason for a in estimate(dict(run, transformers_version=version)).assumptions if a.fact == "torch_dtype"]
    assert len(notes) == 1
    assert (said in notes[0]) if said else ("transformers 5" not in notes[0])
