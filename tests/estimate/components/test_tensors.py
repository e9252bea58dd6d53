from triage.estimate.components.context import context
from triage.estimate.components.optimizer_memory import optimizer_temps
from triage.estimate.components.tensors import large_tensors

from .conftest import run_of


def tensors(**facts):
    ctx = context(run_of(**facts))
    return large_tensors(ctx, {"optimizer_temps": optimizer_temps(ctx)})


def test_the_fp32_logits_are_one_tensor_of_tokens_by_vocabulary():
    assert tensors()["logits_fp32"] == 2048 * 32000 * 4


def test_attention_scores_are_a_tensor_only_where_they_are_materialised():
    assert "attention_scores" not in tensors()
    assert tensors(attn_implementation="eager")["attention_scores_fp32"] == 32 * 2048**2 * 4


def test_foreach_adamw_names_its_temporary():
    assert tensors(finetune_method="full", optimizer="adamw_torch")["foreach_temporary"] > 0
    assert tensors(finetune_method="full")["foreach_temporary"] == 0
