from triage.estimate import derived_facts, estimate, fingerprint
from triage.estimate.estimator import GiB


def test_logits_allocation_is_recognised():
    facts = {
        "model_name": "llama-3-8b",
        "batch_size": 2,
        "max_length": 4096,
        "torch_dtype": "bf16",
        "gradient_checkpointing": True,
        "oom_requested_bytes": int(3.91 * GiB),
    }
    fp = fingerprint(facts)
    assert fp is not None and fp.best is not None
    assert fp.best.name.startswith("logits_fp32") and fp.confidence == "high"


def test_eager_scores_allocation_is_recognised(scenario):
    fp = fingerprint(dict(scenario, oom_requested_bytes=2 * GiB))
    assert fp is not None and fp.best is not None and fp.best.name == "attention_scores_fp32"


def test_mlp_activation_is_recognised():
    facts = {
        "model_name": "llama-2-7b",
        "batch_size": 4,
        "max_length": 2048,
        "torch_dtype": "bf16",
        "attn_implementation": "sdpa",
        "oom_requested_bytes": 4 * 2048 * 11008 * 2,
    }
    fp = fingerprint(facts)
    assert fp is not None and fp.best is not None and fp.best.name == "mlp_activation"


def test_unmatched_request_has_no_culprit(scenario):
    fp = fingerprint(dict(scenario, oom_requested_bytes=3 * 1024 * 1024 * 7 + 12345))
    assert fp is not None and (fp.best is None or fp.confidence in ("low", "none"))
    assert fingerprint(scenario) is None


def test_derived_facts(scenario):
    facts = {f.name: f for f in derived_facts(scenario)}
    assert facts["weights_exceed_gpu"].value is False
    assert facts["does_not_fit_at_batch_1"].value is True  # eager at 2048 needs ~50 GB even at batch 1
    assert facts["largest_component"].value == "attention_scores"
    assert facts["estimated_peak_bytes"].value == estimate(scenario).peak_bytes
    assert all(f.source.kind == "derived" for f in facts.values())
    big = {f.name: f.value for f in derived_facts(dict(scenario, model_name="llama-2-13b", torch_dtype="fp32"))}
    assert big["weights_exceed_gpu"] is True
    assert derived_facts({"batch_size": 2}) == []
