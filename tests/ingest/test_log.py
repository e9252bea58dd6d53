from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from triage.ingest.lines import iter_file_lines, iter_text_lines
from triage.ingest.log import read_log_lines


def read(path: str) -> dict[str, tuple[object, int | None]]:
    reading = read_log_lines(iter_file_lines(path))
    return {f.name: (f.raw, f.line) for f in reading.found}


def test_backward_phase_and_step_with_lines(fixture_path):
    got = read(fixture_path("oom/torch20_backward.log"))
    assert got["phase"][0] == "backward"
    assert got["oom_step"] == (35, 5)
    assert got["error_kind"] == ("cuda_oom", 21)


def test_each_phase(fixture_path):
    expected = {
        "eval_phase.log": "evaluation",
        "merge_phase.log": "merging",
        "generation_phase.log": "generation",
        "saving_phase.log": "saving",
        "optimizer_phase.log": "optimizer",
        "loading_phase.log": "loading",
        "torch23_fragmented.txt": "forward",
    }
    for name, phase in expected.items():
        assert read(fixture_path(f"oom/{name}"))["phase"][0] == phase, name


def test_eval_step_is_the_training_bar_not_the_eval_bar(fixture_path):
    assert read(fixture_path("oom/eval_phase.log"))["oom_step"][0] == 500


def test_host_kill_during_loading_from_the_last_marker(fixture_path):
    got = read(fixture_path("oom/host_killed.log"))
    assert got["error_kind"] == ("host_oom", 3)
    assert got["phase"] == ("loading", 2)


def test_torchrun_sigkill_is_host_oom(fixture_path):
    assert read(fixture_path("oom/torchrun_sigkill.log"))["error_kind"][0] == "host_oom"


def test_no_executable_batch_wins_over_earlier_ooms(fixture_path):
    got = read(fixture_path("oom/no_executable_batch.log"))
    assert got["error_kind"] == ("no_executable_batch", 5)


def test_expandable_segments_only_from_the_setting(fixture_path):
    assert read(fixture_path("oom/expandable_on.log"))["expandable_segments"] == (True, 1)
    assert "expandable_segments" not in read(fixture_path("oom/torch23_fragmented.txt"))


def test_expandable_segments_said_as_the_fix_is_not_the_runs_setting():
    def said(text: str) -> dict[str, object]:
        return {f.name: f.raw for f in read_log_lines(iter_text_lines(text)).found}

    fixed = "CUDA out of memory\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True 之后就不爆了\n"
    assert "expandable_segments" not in said(fixed)
    assert "expandable_segments" not in said("OOM\nsetting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True fixed it\n")
    assert said("OOM\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n")["expandable_segments"] is True
    assert said("OOM\nPYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, still OOM\n")["expandable_segments"] is True


def test_memory_growth(fixture_path):
    assert read(fixture_path("oom/memory_growing.log"))["memory_growth"][0] == "growing"
    assert read(fixture_path("oom/memory_spike.log"))["memory_growth"][0] == "spike"


def test_crlf_ansi_and_tqdm_carriage_returns(fixture_path):
    got = read(fixture_path("oom/crlf_ansi_tqdm.log"))
    assert got["error_kind"] == ("cuda_oom", 3)
    assert got["oom_step"] == (42, 2)


def test_binary_junk_and_missing_file(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 1000 + b"\xff\xfe\x00" * 5000)
    read_log_lines(iter_file_lines(str(junk)))
    import pytest

    from triage.ingest.errors import IngestError

    with pytest.raises(IngestError, match="cannot read"):
        list(iter_file_lines(str(tmp_path / "missing.log")))
    with pytest.raises(IngestError, match="directory"):
        list(iter_file_lines(str(tmp_path)))


def test_utf16_and_gbk_logs(tmp_path):
    text = (
        "显存不足\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity; "
        "6.00 GiB already allocated; 14.88 MiB free; 6.50 GiB reserved in total by PyTorch)\n"
    )
    for encoding in ("utf-16", "gb18030"):
        path = tmp_path / f"log.{encoding}"
        path.write_bytes(text.encode(encoding))
        got = read(str(path))
        assert got["oom_requested_bytes"] == (20 * 1024**2, 2), encoding


def test_overlong_line_keeps_head_and_tail(tmp_path):
    path = tmp_path / "long.log"
    bar = "".join(f"\r{i}%|##| {i}/1000 [00:01<00:10]" for i in range(0, 1000, 1)) * 3
    tail = "\nTraceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory.\n"
    path.write_text("x" * 100_000 + bar + tail)
    got = read(str(path))
    assert got["oom_step"][0] == 999
    assert got["error_kind"][0] == "cuda_oom"


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=4000))
def test_arbitrary_bytes_never_raise(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("b") / "x.log"
    path.write_bytes(data)
    a = read_log_lines(iter_file_lines(str(path)))
    b = read_log_lines(iter_file_lines(str(path)))
    assert a.found == b.found


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *"abc 0123456789/%|[]\r\n\tGiBM:.",
                "Traceback (most recent call last)",
                "out of memory",
                " step ",
                "Killed",
                "显存",
                "GiB",
                "memory_allocated=",
                '  File "x.py", line 1, in backward',
                "\x1b[31m",
            ]
        )
    ).map("".join)
)
def test_log_shaped_text_never_raises(text):
    a = read_log_lines(iter_text_lines(text))
    assert a.found == read_log_lines(iter_text_lines(text)).found


def _kinds(text: str) -> list[tuple[object, int | None]]:
    reading = read_log_lines(iter_text_lines(text))
    return [(f.raw, f.line) for f in reading.found if f.name == "error_kind"]


def test_a_traceback_cut_before_its_exception_names_no_error_kind():
    # open-r1-multimodal#4 and trl#2688 (development records) paste a traceback that stops at "..." or a closing fence:
    # what was raised is not in it, so it is not "another error" either
    cut = '[rank7]: Traceback (most recent call last):\n[rank7]:   File "grpo.py", line 183\n[rank7]:   ...\n'
    assert _kinds(cut) == []
    fenced = 'Traceback (most recent call last):\n  File "train.py", line 173\n    trainer = GRPOTrainer(\n```\n'
    assert _kinds(fenced) == []


def test_a_traceback_that_ends_in_another_exception_is_another_error():
    text = (
        'Traceback (most recent call last):\n  File "train.py", line 23, in verify\n    raise RuntimeError(s)\n'
        "RuntimeError: Step 1 model has not been trained.\n"
    )
    assert _kinds(text) == [("other", 4)]
    ranked = "[rank0]: Traceback (most recent call last):\n[rank0]:   File \"a.py\", line 1\n[rank0]: KeyError: 'x'\n"
    assert _kinds(ranked) == [("other", 3)]


def test_ipython_names_the_exception_on_the_traceback_header():
    # unsloth#338 (a development record): Jupyter prints "RuntimeError    Traceback (most recent call last)" first
    text = "RuntimeError          Traceback (most recent call last)\nCell In[8], line 1\n----> 1 trainer.train()\n"
    assert _kinds(text) == [("other", 1)]


def _phase(text: str) -> object:
    return {f.name: f.raw for f in read_log_lines(iter_text_lines(text)).found}.get("phase")


def test_a_loading_bar_at_its_end_is_not_where_it_failed():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB.\n"
    # transformers 4.x and 5.x (core_model_loading.py: desc="Loading weights") finish loading, then fail
    assert _phase("Loading checkpoint shards: 100%|██████████| 4/4 [00:05<00:00,  1.21s/it]\n" + oom) is None
    assert _phase("Loading weights: 100%|██████████| 291/291 [00:05<00:00, 52.1it/s]\n" + oom) is None
    assert _phase("Loading weights: 291/291 [00:05<00:00]\n" + oom) is None
    # a bar that stopped part of the way is the load failing
    assert _phase("Loading weights:  45%|████▌     | 130/291 [00:03<00:04]\n" + oom) == "loading"
