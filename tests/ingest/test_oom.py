from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.ingest.logscan import Line
from triage.ingest.oom import find_reports, findings, parse_message

GiB = 1024**3
MiB = 1024**2


def facts_of(text: str) -> dict[str, object]:
    report = parse_message(text)
    assert report is not None
    return {f.name: f.raw for f in findings(report)}


def test_pre_21_message_numbers_and_derived_fragmentation(fixture_path):
    text = Path(fixture_path("oom/torch20_backward.log")).read_text(encoding="utf-8").splitlines()[-1]
    got = facts_of(text)
    assert got["error_kind"] == "cuda_oom"
    assert got["oom_requested_bytes"] == 500 * MiB
    assert got["gpu_memory_bytes"] == int(23.69 * GiB)
    assert got["torch_allocated_bytes"] == int(21.5 * GiB)
    assert got["oom_free_bytes"] == int(312.94 * MiB)
    # reserved 22.80 - allocated 21.50 = 1.30 GiB unallocated
    assert abs(got["torch_reserved_unallocated_bytes"] - 1.3 * GiB) < MiB
    assert abs(got["fragmentation_ratio"] - 1.3 / 22.8) < 0.001
    assert got["oom_deficit_bytes"] == 500 * MiB - int(312.94 * MiB)


def test_21_message_with_capacty_typo_and_other_process(fixture_path):
    got = facts_of(Path(fixture_path("oom/torch21_other_process.txt")).read_text(encoding="utf-8"))
    assert got["gpu_memory_bytes"] == int(15.90 * GiB)
    assert got["oom_free_bytes"] == int(8.44 * MiB)
    assert got["other_process_bytes"] == 577 * MiB
    assert got["process_total_bytes"] == int(15.32 * GiB)
    assert got["torch_reserved_unallocated_bytes"] == int(410.41 * MiB)


def test_23_fragmented_message_has_large_ratio_and_no_other_process(fixture_path):
    got = facts_of(Path(fixture_path("oom/torch23_fragmented.txt")).read_text(encoding="utf-8"))
    assert got["torch_reserved_unallocated_bytes"] == int(8.90 * GiB)
    assert got["fragmentation_ratio"] > 0.4
    assert got["other_process_bytes"] == 0
    # the hint alone says nothing about whether expandable_segments was on
    assert "expandable_segments" not in got


def test_private_pools_parsed(fixture_path):
    report = parse_message(Path(fixture_path("oom/torch23_private_pools.txt")).read_text(encoding="utf-8"))
    assert report is not None
    assert report.private_pools == 4 * GiB
    assert report.device == 1
    assert report.reserved_unallocated == int(6.5 * GiB)


def test_wrapped_message_is_joined(fixture_path):
    text = Path(fixture_path("oom/wrapped.txt")).read_text(encoding="utf-8")
    lines = [Line(i, t) for i, t in enumerate(text.splitlines(), 1)]
    reports = find_reports(lines)
    assert reports[0].line == 1
    assert reports[0].allocated == int(7.23 * GiB)
    assert reports[0].reserved_unallocated == int(301.94 * MiB)


def test_truncated_message_keeps_what_survived(fixture_path):
    report = parse_message(Path(fixture_path("oom/truncated.txt")).read_text(encoding="utf-8"))
    assert report is not None and report.truncated
    assert report.requested == int(3725.29 * GiB)
    assert report.capacity is None


def test_container_process_line_is_taken_as_this_process(fixture_path):
    report = parse_message(Path(fixture_path("oom/container_process.txt")).read_text(encoding="utf-8"))
    got = {f.name: (f.raw, f.note) for f in findings(report)}
    assert got["other_process_bytes"][0] == 0
    assert "3652628" in got["other_process_bytes"][1]


def test_host_and_adjacent_signatures(fixture_path):
    assert facts_of(Path(fixture_path("oom/cpu_allocator.txt")).read_text(encoding="utf-8")) == {
        "error_kind": "host_oom",
        "oom_requested_bytes": 26843545600,
    }
    assert facts_of("slurmstepd: error: Detected 1 oom-kill event(s)")["error_kind"] == "host_oom"
    assert facts_of("exits with return code = -9")["error_kind"] == "host_oom"
    assert facts_of(Path(fixture_path("oom/cublas.txt")).read_text(encoding="utf-8"))["error_kind"] == "cublas_alloc"
    no_batch = facts_of("RuntimeError: No executable batch size found, reached zero.")
    assert no_batch["error_kind"] == "no_executable_batch"
    assert facts_of(Path(fixture_path("oom/legacy.txt")).read_text(encoding="utf-8"))["error_kind"] == "cuda_oom"
    assert facts_of(Path(fixture_path("oom/bitsandbytes.txt")).read_text(encoding="utf-8"))["error_kind"] == "cuda_oom"
    assert facts_of(Path(fixture_path("oom/mps.txt")).read_text(encoding="utf-8"))["oom_requested_bytes"] == 256_000_000


def test_dmesg_out_of_memory_is_host_not_cuda():
    assert facts_of("Out of memory: Killed process 4242 (python)")["error_kind"] == "host_oom"


def test_text_without_oom_gives_nothing():
    assert parse_message("loss 0.5 at step 3; all good") is None


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_never_raises_and_is_deterministic(text):
    a = parse_message(text)
    assert a == parse_message(text)
    if a is not None:
        findings(a)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.01, 900), st.floats(1, 90), st.floats(0, 90), st.floats(0, 90), st.floats(0, 90))
def test_generated_21_messages_round_trip(req, cap, free, alloc, unalloc):
    text = (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {req:.2f} MiB. GPU 0 has a total "
        f"capacity of {cap:.2f} GiB of which {free:.2f} GiB is free. Of the allocated memory {alloc:.2f} GiB "
        f"is allocated by PyTorch, and {unalloc:.2f} GiB is reserved by PyTorch but unallocated."
    )
    report = parse_message(text)
    assert report is not None
    assert report.requested == int(float(f"{req:.2f}") * MiB)
    assert report.reserved_unallocated == int(float(f"{unalloc:.2f}") * GiB)


@pytest.mark.parametrize(
    "line",
    [
        # a development record (corpus): the kill lands on the checkpoint-loading progress bar's line
        "Loading checkpoint shards: 0%| | 0/2 [00:00<?, ?it/s]Killed",
        "Loading checkpoint shards:  50%|█████     | 1/2 [00:10<00:10, 10.1s/it]Killed",
        "[1]+  Killed                  python train.py",
    ],
)
def test_killed_after_a_progress_bar_or_job_number_is_host_ram(line):
    assert facts_of(line)["error_kind"] == "host_oom"


@pytest.mark.parametrize(
    ("other", "covers"),
    [("2.00 GiB", False), ("15.00 GiB", True)],
)
def test_whether_the_other_processes_could_have_made_room(other: str, covers: bool) -> None:
    # 40 GiB asked for with 26 GiB free: 14 GiB short; 2 GiB of other processes could not have made room, 15 could
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 40.00 GiB. GPU 0 has a total capacity of "
        f"79.19 GiB of which 26.00 GiB is free. Process 7731 has {other} memory in use. Including non-PyTorch memory, "
        "this process has 38.10 GiB memory in use. Of the allocated memory 37.80 GiB is allocated by PyTorch, and "
        "200.00 MiB is reserved by PyTorch but unallocated."
    )
    assert facts_of(text)["other_process_covers_deficit"] is covers


@pytest.mark.parametrize(
    ("allocated", "free", "reserved", "share"),
    [("1.90 GiB", "0 bytes", "2.01 GiB", 0.92), ("21.50 GiB", "312.94 MiB", "22.80 GiB", 0.02)],
)
def test_a_message_before_21_tells_how_much_of_the_card_is_held_elsewhere(
    allocated: str, free: str, reserved: str, share: float
) -> None:
    text = (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.69 GiB total capacity; "
        f"{allocated} already allocated; {free} free; {reserved} reserved in total by PyTorch)"
    )
    assert facts_of(text)["unaccounted_gpu_share"] == share


def test_a_message_from_21_lists_processes_instead_of_an_unaccounted_share(fixture_path):
    got = facts_of(Path(fixture_path("oom/torch21_other_process.txt")).read_text(encoding="utf-8"))
    assert "unaccounted_gpu_share" not in got


@pytest.mark.parametrize(
    ("text", "share"),
    [
        # illuin-tech/colpali#87 (development): one allocation larger than the whole card
        (
            "CUDA out of memory. Tried to allocate 59.39 GiB. GPU 0 has a total capacity of 23.55 GiB of which 11.38 "
            "GiB is free. Process 1712302 has 12.16 GiB memory in use.",
            2.52,
        ),
        (
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.69 GiB total capacity; "
            "1.90 GiB already allocated; 0 bytes free; 2.01 GiB reserved in total by PyTorch)",
            0.0,
        ),
    ],
)
def test_the_failed_allocation_is_measured_against_the_card(text: str, share: float) -> None:
    assert facts_of(text)["oom_request_gpu_share"] == share


def test_no_share_of_the_card_without_its_capacity() -> None:
    assert "oom_request_gpu_share" not in facts_of(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    )


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # ymcui/Chinese-XLNet#38 (development): TensorFlow's own words for a GPU allocation that failed
        (
            "W tensorflow/core/framework/op_kernel.cc:1401] OP_REQUIRES failed at training_ops.cc:2816 : Resource "
            "exhausted: OOM when allocating tensor with shape[3072,768] and type float on "
            "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
            "cuda_oom",
        ),
        (
            "Resource exhausted: OOM when allocating tensor with shape[1024,1024] and type float on "
            "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
            "host_oom",
        ),
        (
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 8.00GiB.",
            "cuda_oom",
        ),
        # the CUDA driver API's name, and llama.cpp's allocation failure
        (
            "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:628] failed to allocate 7.50G (8053063680 bytes) "
            "from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
            "cuda_oom",
        ),
        ("ggml_backend_cuda_buffer_type_alloc_buffer: cudaMalloc failed: out of memory", "cuda_oom"),
        # cuDNN could not allocate its workspace on a full card
        ("RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED", "cuda_oom"),
    ],
)
def test_tensorflow_and_xla_say_which_memory_ran_out(text: str, kind: str) -> None:
    assert facts_of(text)["error_kind"] == kind


@pytest.mark.parametrize(
    "text",
    [
        # zsh says it in lower case (Baichuan2#138, development)
        "Loading checkpoint shards:   0%|   | 0/3 [00:00<?, ?it/s][1]    26478 killed     python test.py",
        # Windows out of virtual memory (commit charge), in English and Chinese
        "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "
        "caffe2_detectron_ops_gpu.dll",
        "OSError: [WinError 1455] 页面文件太小，无法完成操作。",
        # either case (LlamaFactory#3586, development)
        "RuntimeError: [enforce fail at alloc_cpu.cpp:83] DefaultCPUAllocator: Can't allocate memory: you tried to "
        "allocate 1048576 bytes.",
    ],
)
def test_a_host_kill_or_allocator_failure_in_other_spellings(text: str) -> None:
    assert facts_of(text)["error_kind"] == "host_oom"


def _listing(device: int, processes: str) -> str:
    return (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 252.00 MiB. GPU {device} has a total capacity "
        f"of 23.65 GiB of which 62.19 MiB is free. Including non-PyTorch memory, this process has 384.00 MiB memory "
        f"in use. {processes} Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by "
        "PyTorch but unallocated."
    )


def test_processes_of_one_launch_on_gpu0_are_ranks_sharing_it():
    # the shape of openvla-oft#28 (development): five ranks of one torchrun, all on GPU 0
    siblings = (
        "Process 2343934 has 636.00 MiB memory in use. Process 2343932 has 384.00 MiB memory in use. "
        "Process 2343931 has 384.00 MiB memory in use. Process 2343929 has 21.44 GiB memory in use."
    )
    report = parse_message(_listing(0, siblings))
    assert report is not None
    got = {f.name: (f.raw, f.note) for f in findings(report)}
    assert got["all_ranks_on_gpu0"][0] is True
    assert "2343929, 2343931, 2343932, 2343934" in got["all_ranks_on_gpu0"][1]


@pytest.mark.parametrize(
    ("device", "processes"),
    [
        # a notebook kernel and a job started at different times (QwenLM/Qwen#782, development)
        (0, "Process 4683 has 11.05 GiB memory in use. Process 16753 has 1.71 GiB memory in use."),
        # one other process says nothing about ranks
        (0, "Process 2343929 has 21.44 GiB memory in use."),
        # ranks sharing GPU 1 are not 'all on GPU 0'
        (1, "Process 2343929 has 21.44 GiB memory in use. Process 2343931 has 384.00 MiB memory in use."),
    ],
)
def test_processes_that_are_not_one_launch_on_gpu0_are_not_read_as_ranks(device: int, processes: str):
    report = parse_message(_listing(device, processes))
    assert report is not None
    assert "all_ranks_on_gpu0" not in {f.name for f in findings(report)}
