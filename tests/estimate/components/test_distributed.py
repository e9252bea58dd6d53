import pytest

from triage.estimate.components.distributed import comm_buffers, sharding

from .conftest import context_of, run_of


@pytest.mark.parametrize(
    ("stage", "state", "grads", "params"),
    [(0, 1, 1, 1), (1, 4, 1, 1), (2, 4, 4, 1), (3, 4, 4, 4)],
)
def test_each_zero_stage_shards_one_more_kind_of_state(stage, state, grads, params):
    shards = sharding(run_of(distributed="deepspeed", zero_stage=stage, gpu_count=4))
    assert (shards.state, shards.grads, shards.params) == (state, grads, params)


def test_fsdp_full_shard_is_sized_like_zero3_and_ddp_shards_nothing():
    fsdp = sharding(run_of(distributed="fsdp", gpu_count=2))
    assert (fsdp.state, fsdp.grads, fsdp.params) == (2, 2, 2)
    ddp = sharding(run_of(distributed="ddp", gpu_count=2))
    assert (ddp.state, ddp.grads, ddp.params) == (1, 1, 1)


def test_ddp_buckets_are_a_second_copy_of_the_gradients():
    ctx = context_of(finetune_method="full", distributed="ddp", gpu_count=2)
    buckets = comm_buffers(ctx)
    assert buckets is not None and buckets.bytes == ctx.trainable.gradient_bytes
    assert comm_buffers(context_of(finetune_method="full")) is None


def test_zero2_buckets_are_hidden_squared():
    buckets = comm_buffers(context_of(distributed="deepspeed", zero_stage=2, gpu_count=2))
    assert buckets is not None and buckets.bytes == 2 * 4096 * 4096 * 2
