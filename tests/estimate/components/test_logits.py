from triage.estimate.components.logits import logits_loss

from .conftest import run_of


def test_the_unfused_loss_keeps_three_fp32_copies_of_the_logits():
    run = run_of()
    assert logits_loss(run).bytes == 3 * run.tokens * run.arch.vocab * 4


def test_the_loss_block_grows_with_the_tokens():
    assert logits_loss(run_of(batch_size=2)).bytes == 2 * logits_loss(run_of()).bytes


def test_a_fused_loss_is_a_small_fraction_on_a_large_vocabulary():
    plain = logits_loss(run_of(model_name="llama-3-8b")).bytes
    fused = logits_loss(run_of(model_name="llama-3-8b", fused_loss=True))
    assert fused.bytes < plain / 5 and "chunk" in fused.formula
