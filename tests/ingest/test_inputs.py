from __future__ import annotations

import io
import os
import sys
import threading
from pathlib import Path

import pytest

from triage.facts import Fact, Source
from triage.ingest.errors import IngestError
from triage.ingest.inputs import gather
from triage.ingest.sniff import sniff

GiB = 1024**3


def by_name(gathered):
    return {f.name: f for f in gathered.facts}


def test_sources_and_lines(specs, fixture_path):
    log = fixture_path("oom/torch20_backward.log")
    g = gather(specs, logs=[log], configs=[fixture_path("config/sft_config.yaml")])
    facts = by_name(g)
    assert facts["oom_requested_bytes"].source.kind == "log"
    assert facts["oom_requested_bytes"].source.path == log
    assert facts["oom_requested_bytes"].source.line == 21
    assert "Tried to allocate 500.00 MiB" in facts["oom_requested_bytes"].source.excerpt
    assert facts["batch_size"].source.kind == "config" and facts["batch_size"].value == 2
    assert "CUDA out of memory" in g.text


def test_conflict_config_beats_symptom(specs, fixture_path):
    g = gather(specs, symptoms=["bs=16, max_length 512"], configs=[fixture_path("config/sft_config.yaml")])
    facts = by_name(g)
    assert facts["batch_size"].value == 2
    names = {c.name: c for c in g.conflicts}
    assert names["batch_size"].kept.source.kind == "config"
    assert names["batch_size"].dropped.value == 16
    assert "believed" in names["batch_size"].describe()


def test_env_beats_log_and_cli_beats_all(specs, fixture_path):
    cli = Fact("batch_size", 1, Source("cli", excerpt="batch_size=1"))
    g = gather(
        specs,
        symptoms=["torch 2.0.1"],
        envs=[fixture_path("env/pip_freeze.txt")],
        configs=[fixture_path("config/sft_config.yaml")],
        cli_facts=[cli],
    )
    facts = by_name(g)
    assert facts["torch_version"].value == "2.3.0" and facts["torch_version"].source.kind == "env"
    assert facts["batch_size"].source.kind == "cli"
    assert {c.name for c in g.conflicts} >= {"torch_version", "batch_size"}


def test_close_sizes_do_not_conflict(specs, fixture_path):
    # nvidia-smi says 24576MiB, the OOM message says 23.69 GiB: the same GPU
    g = gather(specs, logs=[fixture_path("oom/torch20_backward.log")], envs=[fixture_path("env/nvidia_smi.txt")])
    assert "gpu_memory_bytes" not in {c.name for c in g.conflicts}
    assert by_name(g)["gpu_memory_bytes"].source.kind == "env"


_SMALL_CARD_OOM = (
    "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 4; 3.82 GiB total capacity; 2.94 GiB already allocated; "
    "6.62 MiB free; 3.06 GiB reserved in total by PyTorch)"
)


def test_message_card_against_the_card_the_user_names(specs, fixture_path):
    # "my card has 80GB" while the message's card has 3.82 GiB: the run used another GPU (VisualGLM-6B#57)
    facts = by_name(gather(specs, symptoms=[f"我显卡的显存明明是80GB，为什么却提示只有很少？\n{_SMALL_CARD_OOM}"]))
    assert facts["oom_capacity_stated_share"].value == 0.05
    assert facts["gpu_memory_bytes"].value == int(3.82 * GiB)  # the card that ran out is the one measured
    # the same card in both: nvidia-smi's 24576MiB and the log's 23.69 GiB
    same = by_name(
        gather(specs, logs=[fixture_path("oom/torch20_backward.log")], envs=[fixture_path("env/nvidia_smi.txt")])
    )
    assert same["oom_capacity_stated_share"].value >= 0.95
    # a card given as a flag counts as said, and a message alone (nothing stated) derives nothing
    cli = Fact("gpu_memory_bytes", 40 * GiB, Source("cli", excerpt="--gpu-memory 40GiB"))
    assert by_name(gather(specs, symptoms=[_SMALL_CARD_OOM], cli_facts=[cli]))["oom_capacity_stated_share"].value == 0.1
    assert "oom_capacity_stated_share" not in by_name(gather(specs, symptoms=[_SMALL_CARD_OOM]))


def test_pasted_oom_message_as_symptom(specs, fixture_path):
    text = Path(fixture_path("oom/torch23_fragmented.txt")).read_text(encoding="utf-8")
    facts = by_name(gather(specs, symptoms=[text]))
    assert facts["fragmentation_ratio"].value > 0.4
    assert facts["fragmentation_ratio"].source.kind == "symptom"
    assert "expandable_segments" not in facts
    facts = by_name(gather(specs, symptoms=["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n" + text]))
    assert facts["expandable_segments"].value is True


def test_unknown_keys_are_listed(specs, fixture_path):
    path = fixture_path("config/training_args.json")
    assert gather(specs, configs=[path]).unknown_keys == [(path, "my_custom_flag")]


def test_input_sniffing(specs, fixture_path):
    g = gather(
        specs,
        inputs=[
            fixture_path("oom/eval_phase.log"),
            fixture_path("env/collect_env.txt"),
            fixture_path("config/axolotl.yaml"),
            fixture_path("env/pip_freeze.txt"),
        ],
    )
    kinds = dict(g.read_as)
    assert kinds[fixture_path("oom/eval_phase.log")] == "log"
    assert kinds[fixture_path("env/collect_env.txt")] == "env"
    assert kinds[fixture_path("env/pip_freeze.txt")] == "env"
    assert kinds[fixture_path("config/axolotl.yaml")] == "config:axolotl"
    assert sniff('{"r": 8, "peft_type": "LORA", "target_modules": ["q_proj"]}', "adapter_config.json") == "config"


def test_stdin_once(specs, monkeypatch, fixture_path):
    data = Path(fixture_path("oom/torch21_other_process.txt")).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    facts = by_name(gather(specs, logs=["-"]))
    assert facts["other_process_bytes"].value == 577 * 1024**2
    assert facts["other_process_bytes"].source.path == "<stdin>"
    with pytest.raises(IngestError, match="only once"):
        gather(specs, logs=["-"], configs=["-"])


def test_unreadable_file_is_one_line_error(specs, tmp_path):
    with pytest.raises(IngestError, match="cannot read") as info:
        gather(specs, logs=[str(tmp_path / "nope.log")])
    assert "\n" not in str(info.value)


def test_text_is_capped(specs, tmp_path):
    big = tmp_path / "big.log"
    with big.open("w") as fh:
        for _ in range(20):
            fh.write(
                "Traceback (most recent call last):\n"
                + '  File "x.py", line 1, in f\n' * 300
                + "torch.OutOfMemoryError: CUDA out of memory.\n"
                + "noise\n" * 50
            )
    g = gather(specs, symptoms=["x" * 70_000], logs=[str(big)])
    assert len(g.text) <= 64 * 1024


# -- hostile inputs ----------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_input_on_a_named_pipe_is_sniffed_and_read_from_one_open(specs, tmp_path):
    """The review's L7: the sniffer used to drain the pipe, and the reader then waited for ever."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = b"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    writer = threading.Thread(target=lambda: fifo.write_bytes(text))
    writer.start()
    g = gather(specs, inputs=[str(fifo)])
    writer.join(5)
    assert g.read_as == [(str(fifo), "log")]
    assert by_name(g)["oom_requested_bytes"].value == 2 * GiB


def test_input_that_is_a_hostile_config_gets_the_config_refusal(specs, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 10_000 + "]" * 10_000)
    with pytest.raises(IngestError, match="nested more than 64 levels"):
        gather(specs, inputs=[str(path)])


def test_input_on_a_device_is_refused(specs):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    with pytest.raises(IngestError, match="it is a device"):
        gather(specs, inputs=["/dev/zero"])
