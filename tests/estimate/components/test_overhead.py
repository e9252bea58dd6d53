from triage.estimate.components.overhead import allocator, cuda_context, device_band

from .conftest import run_of

GIB = 1024**3


def test_the_band_is_ordered_and_sits_above_the_allocated_peak():
    band = device_band(run_of(gpu_name="3090"), 10 * GIB, 13 * GIB)
    assert 10 * GIB < band.low <= band.expected <= band.high
    assert [i.name for i in band.items] == ["cuda_context", "cublas_workspace", "allocator"]


def test_pre_ampere_boards_have_a_larger_cuda_context():
    assert cuda_context(run_of(gpu_name="V100 16GB")).expected > cuda_context(run_of(gpu_name="3090")).expected


def test_expandable_segments_shrink_the_allocator_slack_and_padding_grows_it():
    plain = allocator(run_of(), 10 * GIB, 13 * GIB).expected
    assert allocator(run_of(expandable_segments=True), 10 * GIB, 13 * GIB).expected < plain
    assert allocator(run_of(padding="longest"), 10 * GIB, 13 * GIB).expected > plain


def test_quantized_weights_add_segment_slack():
    plain = allocator(run_of(), 10 * GIB, 4 * GIB).expected
    assert allocator(run_of(quantization="4bit"), 10 * GIB, 4 * GIB).expected > plain


def test_nccl_only_for_several_processes_and_other_processes_count_in_full():
    names = [i.name for i in device_band(run_of(distributed="ddp", gpu_count=2), GIB, GIB).items]
    assert "nccl" in names
    busy = device_band(run_of(other_process_bytes="6GiB"), GIB, GIB)
    idle = device_band(run_of(), GIB, GIB)
    assert busy.expected - idle.expected == 6 * GIB
