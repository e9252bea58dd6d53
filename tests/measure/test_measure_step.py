"""The fake step is the real step: same allocations, byte for byte (tiny Llama on CPU)."""

from __future__ import annotations

import pytest
from builders import TINY_LLAMA

from triage.measure import MeasureSpec

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

from triage.measure import measure

CFG = TINY_LLAMA
BASE = MeasureSpec(name="tiny-llama", hf_config=CFG, seq=128, batch=2, lora_r=16)


@pytest.mark.parametrize(
    ("label", "spec", "study_bytes"),
    [
        ("lora sdpa", BASE, 21930496),
        ("lora eager", BASE.with_(attn="eager"), 27533824),
        ("lora sdpa gc", BASE.with_(gc=True), 12553728),
        ("lora dropout 0.1", BASE.with_(lora_dropout=0.1), 22323712),
        ("full FT fused", BASE.with_(method="full"), 37664768),
        ("full FT eager gc sgd", BASE.with_(method="full", optimizer="sgd", attn="eager", gc=True), 18574336),
    ],
)
def test_fake_peak_equals_real_cpu_peak(label: str, spec: MeasureSpec, study_bytes: int) -> None:
    fake = measure(spec, mode="fake")
    real = measure(spec, mode="real")
    assert fake.peak_bytes == real.peak_bytes, label
    assert fake.breakdown == real.breakdown, label
    # and equals the independent implementation in shared/reference/exact-measurement.md
    assert fake.peak_bytes == study_bytes, label


def test_breakdown_adds_up_and_names_the_peak() -> None:
    m = measure(BASE)
    assert sum(m.breakdown.values()) == m.peak_bytes
    assert m.phase == "backward"
    assert "log_softmax_backward" in m.op
    assert m.params_trainable == 4 * 16 * (256 + 256) * 2  # r·(d_in+d_out) on q,v in 4 layers


def test_gradient_checkpointing_lowers_the_peak_and_eager_raises_it() -> None:
    sdpa = measure(BASE).peak_bytes
    assert measure(BASE.with_(gc=True)).peak_bytes < sdpa < measure(BASE.with_(attn="eager")).peak_bytes


def test_full_finetune_holds_grads_and_optimizer_state() -> None:
    m = measure(BASE.with_(method="full"))
    weights = m.breakdown["weights"]
    assert m.breakdown["optimizer_state"] >= 2 * weights * 0.99  # m and v in the param dtype


def test_qlora_runs_on_fake_tensors() -> None:
    pytest.importorskip("bitsandbytes")
    lora = measure(BASE)
    qlora = measure(BASE.with_(method="qlora"))
    assert qlora.peak_bytes == 17312256  # exact-measurement.md, "QLoRA nf4 sdpa"
    assert qlora.breakdown["weights"] < lora.breakdown["weights"]
