import pytest

from triage.estimate.architecture import ArchitectureError, find_architecture, from_hf_config, load_hf_config, presets

from .conftest import FIXTURES


@pytest.mark.parametrize("arch", [a for a in presets() if a.params], ids=lambda a: a.id)
def test_dimensions_reproduce_the_published_parameter_count(arch):
    assert arch.total_params() == arch.params


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("llama2-7b", "llama-2-7b"),
        ("Llama-2-7b-hf", "llama-2-7b"),
        ("meta-llama/Meta-Llama-3-8B", "llama-3-8b"),
        ("LLaMA-7B", "llama-7b"),
        ("qwen2.5-7b", "qwen2.5-7b"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
        ("mistralai/Mistral-7B-Instruct-v0.2", "mistral-7b"),
        ("meta-llama/Llama-3.2-1B-Instruct", "llama-3.2-1b"),
        ("google/gemma-2-9b-it", "gemma-2-9b"),
        ("EleutherAI/pythia-1.4b", "pythia-1.4b"),
        ("microsoft/phi-2", "phi-2"),
        ("tiiuae/falcon-7b", "falcon-7b"),
        ("llama-2-13b-chat", "llama-2-13b"),
        ("Llama-3.1-8B-Instruct", "llama-3.1-8b"),
    ],
)
def test_names_users_type_find_the_preset(typed, expected):
    found = find_architecture(typed)
    assert found is not None and found.id == expected


def test_fuzzy_lookup_tolerates_typos_but_never_changes_the_size():
    typo = find_architecture("lama-2-7b-hf")
    assert typo is not None and typo.id == "llama-2-7b"
    assert find_architecture("llama-2-3b") is None
    assert find_architecture("totally-unknown-model") is None


def test_hf_config_json_gives_the_same_model_as_the_preset():
    arch = load_hf_config(FIXTURES / "llama-2-7b-config.json")
    assert arch.total_params() == 6_738_415_616
    qwen = load_hf_config(FIXTURES / "qwen2.5-0.5b-config.json")
    assert qwen.tied and qwen.kv_heads == 2 and qwen.total_params() == 494_032_768


def test_unsupported_config_is_a_clear_error():
    with pytest.raises(ArchitectureError, match="not supported"):
        from_hf_config({"model_type": "t5", "hidden_size": 512})
    with pytest.raises(ArchitectureError, match="mixture-of-experts"):
        from_hf_config({"model_type": "mistral", "num_local_experts": 8, "hidden_size": 4096})
