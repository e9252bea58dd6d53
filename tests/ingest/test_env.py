from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from triage.ingest.env import read_env
from triage.ingest.lines import iter_file_lines, iter_text_lines

GiB = 1024**3


def read(path: str) -> dict[str, tuple[object, int | None]]:
    return {f.name: (f.raw, f.line) for f in read_env(iter_file_lines(path))}


def test_transformers_env(fixture_path):
    got = read(fixture_path("env/transformers_env.txt"))
    assert got["transformers_version"] == ("4.36.2", 3)
    assert got["torch_version"] == ("2.1.2+cu121", 10)
    assert got["accelerate_version"] == ("0.25.0", 8)
    assert got["os"] == ("linux", 4)


def test_accelerate_env(fixture_path):
    got = read(fixture_path("env/accelerate_env.txt"))
    assert got["os"][0] == "wsl"
    assert got["gpu_name"][0] == "NVIDIA GeForce RTX 4090"
    # the report names the card only: gpu_memory_bytes is the catalogue's total as nvidia-smi shows
    # it for a 4090 (24564 MiB), not the 24 GB it is sold as
    assert got["gpu_memory_bytes"][0] == 24564 * 1024**2
    assert got["compute_capability"][0] == 8.9
    assert got["distributed"][0] == "deepspeed"
    assert got["zero_stage"][0] == 2
    assert got["offload"][0] is True
    assert got["host_ram_bytes"][0] == int(31.25 * GiB)


def test_collect_env(fixture_path):
    got = read(fixture_path("env/collect_env.txt"))
    assert got["torch_version"] == ("2.1.0+cu121", 2)
    assert got["gpu_count"][0] == 2
    assert got["gpu_memory_bytes"][0] == 80 * GiB
    assert got["transformers_version"] == ("4.35.2", 31)


def test_pip_freeze_and_list(fixture_path):
    freeze = read(fixture_path("env/pip_freeze.txt"))
    assert freeze["torch_version"] == ("2.3.0", 8)
    assert freeze["flash_attn_version"][0] == "2.5.8"
    assert "transformers_version" not in freeze  # installed from git: no version to read
    listed = read(fixture_path("env/pip_list.txt"))
    assert listed["transformers_version"] == ("4.31.0", 7)


def test_nvidia_smi(fixture_path):
    got = read(fixture_path("env/nvidia_smi.txt"))
    assert got["gpu_name"] == ("NVIDIA GeForce RTX 3090", 9)
    assert got["gpu_memory_bytes"] == (24576 * 1024**2, 10)
    # Xorg 180 MiB + ollama 4200 MiB; the python process is taken to be the training
    assert got["other_process_bytes"][0] == (180 + 4200) * 1024**2
    old = read(fixture_path("env/nvidia_smi_old.txt"))
    assert old["gpu_count"][0] == 2 and old["gpu_memory_bytes"][0] == 16160 * 1024**2
    assert "other_process_bytes" not in old  # "No running processes found" lists none
    csv = read(fixture_path("env/nvidia_smi_query.csv"))
    assert float(csv["compute_capability"][0]) == 9.0 and csv["gpu_memory_bytes"][0] == 81559 * 1024**2


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises(text):
    assert read_env(iter_text_lines(text)) == read_env(iter_text_lines(text))
