"""``triage run`` end to end: pass-through, exit codes, the diagnosis and its sources, the log copy."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, triage_run

OOM = FIXTURES / "ingest" / "oom"

PRINT_AND_EXIT = """
    import sys
    sys.stdout.write("loading model\\n")
    sys.stdout.flush()
    sys.stderr.write(open(sys.argv[1], encoding="utf-8").read())
    sys.exit(int(sys.argv[2]))
"""


def json_diagnosis(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "diagnosis.json").read_text())


def where(fact: dict) -> dict:
    """A fact's value and where it came from (the contract may add more keys)."""
    return {k: fact[k] for k in ("value", "source", "path", "line", "excerpt") if k in fact}


@pytest.mark.parametrize(
    ("fixture", "error_kind"),
    [
        ("legacy.txt", "cuda_oom"),  # cuda runtime error (2) / THCudaCheck
        ("torch20_backward.log", "cuda_oom"),  # <= 2.0: (GPU 0; ... total capacity; ...)
        ("torch21_other_process.txt", "cuda_oom"),  # 2.1: total capacity of ... Process N has ...
        ("torch23_fragmented.txt", "cuda_oom"),  # 2.3+: torch.OutOfMemoryError, expandable_segments hint
        ("cublas.txt", "cublas_alloc"),
        ("cpu_allocator.txt", "host_oom"),
        ("torchrun_sigkill.log", "host_oom"),  # a worker killed, torchrun's own exit 1
    ],
)
def test_an_oom_of_each_generation_is_diagnosed_with_sources(tmp_path, run_env, script, fixture, error_kind):
    train = script("train.py", PRINT_AND_EXIT)
    text = (OOM / fixture).read_bytes()
    out = triage_run(
        [
            *("--format", "json", "--output", str(tmp_path / "diagnosis.json"), "--log-to", str(tmp_path / "run.log")),
            *("--", sys.executable, train, str(OOM / fixture), "1", "--per_device_train_batch_size", "4"),
            *("--gradient_checkpointing", "True"),
        ],
        run_env,
        tmp_path,
    )
    assert out.returncode == 1, out.stderr[-2000:]
    assert out.stdout == b"loading model\n"  # passed through untouched, nothing of triage's on stdout
    assert out.stderr.startswith(text)  # the traceback first, byte for byte, then triage's lines
    said = out.stderr[len(text) :].decode()
    assert said.startswith("triage: the command ran out of")
    assert f"kept in {tmp_path / 'run.log'}" in said
    data = json_diagnosis(tmp_path)
    facts = data["facts"]
    assert facts["error_kind"]["value"] == error_kind
    assert facts["error_kind"]["source"] == "log"
    line = facts["error_kind"]["line"]
    # log:N is the line of the copy that says it (stdout's line comes first in the copy)
    copy = (tmp_path / "run.log").read_bytes()
    assert copy == b"loading model\n" + text
    assert copy.decode().splitlines()[line - 1].strip() in text.decode()
    assert where(facts["batch_size"]) == {
        "value": 4,
        "source": "config",
        "path": "command line",
        "excerpt": "--per_device_train_batch_size 4",
    }
    assert facts["gradient_checkpointing"]["path"] == "command line"


def test_text_output_looks_like_diagnose_with_sources(tmp_path, run_env, script):
    train = script("train.py", PRINT_AND_EXIT)
    out = triage_run(
        ["--", sys.executable, train, str(OOM / "torch23_fragmented.txt"), "1", "--max_seq_length", "2048"],
        run_env,
        tmp_path,
    )
    assert out.returncode == 1
    said = out.stderr.decode()
    assert "Likely causes" in said and "Caching-allocator fragmentation" in said
    assert "max_length = 2048 (command line)" in said
    assert "error_kind = cuda_oom (log:" in said
    kept = said.rsplit("kept in ", 1)[1].strip()
    assert Path(kept).parent == Path(run_env["TMPDIR"]) and Path(kept).is_file()


def test_markdown_and_chinese(tmp_path, run_env, script):
    train = script("train.py", PRINT_AND_EXIT)
    out = triage_run(
        ["--format", "markdown", "--lang", "zh", "--", sys.executable, train, str(OOM / "torch20_backward.log"), "1"],
        run_env,
        tmp_path,
    )
    assert out.returncode == 1
    said = out.stderr.decode()
    assert "triage: 命令因显存不足而失败（退出码 1）" in said
    assert "## " in said  # markdown headings


def test_a_failure_that_is_not_an_oom_says_so_in_one_line(tmp_path, run_env, script):
    train = script("train.py", PRINT_AND_EXIT)
    (tmp_path / "err.txt").write_text('Traceback (most recent call last):\n  File "t.py", line 1\nKeyError: "x"\n')
    out = triage_run([sys.executable, train, str(tmp_path / "err.txt"), "3"], run_env, tmp_path)  # no "--"
    assert out.returncode == 3
    said = out.stderr.decode()[len((tmp_path / "err.txt").read_text()) :]
    start = (
        "triage: the command failed (exit 3); triage saw no out-of-memory error in its output. (its output is kept in "
    )
    assert said.startswith(start) and said.count("\n") == 1
    assert Path(said[len(start) :].rstrip(")\n")).read_text().endswith('KeyError: "x"\n')


def test_success_prints_nothing_extra_and_keeps_no_default_copy(tmp_path, run_env, script):
    ok = script("ok.py", "import sys\nprint('done')\nsys.stderr.write('warn\\n')\n")
    out = triage_run(["--", sys.executable, ok], run_env, tmp_path)
    assert (out.returncode, out.stdout, out.stderr) == (0, b"done\n", b"warn\n")
    assert os.listdir(run_env["TMPDIR"]) == []


def test_success_with_memory_figures_prints_one_peak_line(tmp_path, run_env, script):
    ok = script(
        "ok.py",
        """
        for step, gib in enumerate([10.5, 21.25, 19.0]):
            print(f"step {step} max_memory_allocated: {gib} GiB", flush=True)
        """,
    )
    out = triage_run(["--", sys.executable, ok], run_env, tmp_path)
    assert out.returncode == 0
    assert out.stderr.decode() == "triage: highest memory figure in the output: max_memory_allocated 21.2 GiB (log:2)\n"


def test_exit_codes_pass_through(tmp_path, run_env, script):
    for code in (0, 2, 42, 255):
        out = triage_run(["--", sys.executable, "-c", f"raise SystemExit({code})"], run_env, tmp_path)
        assert out.returncode == code
    out = triage_run(["--", "sh", "-c", "kill -TERM $$"], run_env, tmp_path)
    assert out.returncode == 128 + 15
    assert "ended by SIGTERM (exit 143)" in out.stderr.decode()


def test_stdout_and_stderr_stay_separate_and_bars_keep_their_carriage_returns(tmp_path, run_env, script):
    bars = script(
        "bars.py",
        """
        import sys, time
        for i in range(0, 101, 25):
            sys.stderr.write(f"\\rTraining:  {i}%|{'#' * (i // 10):<10}| {i}/100 [00:0{i // 25}<00:04, 25.00it/s]")
            sys.stderr.flush()
            time.sleep(0.01)
        sys.stderr.write("\\n")
        print("out line")
        """,
    )
    out = triage_run(["--log-to", str(tmp_path / "bars.log"), "--", sys.executable, bars], run_env, tmp_path)
    assert out.returncode == 0
    assert out.stdout == b"out line\n"
    bars_written = "".join(
        f"\rTraining:  {i}%|{'#' * (i // 10):<10}| {i}/100 [00:0{i // 25}<00:04, 25.00it/s]" for i in range(0, 101, 25)
    )
    assert out.stderr == (bars_written + "\n").encode()
    assert (tmp_path / "bars.log").read_bytes().count(b"\r") == 5


def test_sigkill_without_a_cgroup_counter_is_a_probable_host_oom(tmp_path, run_env, script):
    kill = script(
        "kill.py", "import os, signal\nprint('tokenizing', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    out = triage_run(
        ["--format", "json", "--output", str(tmp_path / "diagnosis.json"), "--", sys.executable, kill],
        run_env,
        tmp_path,
    )
    assert out.returncode == 137
    assert "ran out of host RAM (not GPU memory) (exit 137)" in out.stderr.decode()
    fact = json_diagnosis(tmp_path)["facts"]["error_kind"]
    assert fact["value"] == "host_oom" and fact["path"] == "exit status"
    assert json_diagnosis(tmp_path)["causes"][0]["id"] == "host-ram-oom"


def test_sigkill_with_the_oom_kill_counter_rising_is_a_host_ram_kill(tmp_path, run_env, script):
    events = tmp_path / "memory.events"
    events.write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n")
    run_env["TRIAGE_MEMORY_EVENTS"] = str(events)
    kill = script(
        "kill.py",
        """
        import os, signal, sys
        path = sys.argv[1]
        # what the kernel does when its OOM killer picks this process
        text = open(path).read()
        open(path, "w").write(text.replace("oom_kill 1", "oom_kill 2"))
        os.kill(os.getpid(), signal.SIGKILL)
        """,
    )
    out = triage_run(
        ["--format", "json", "--output", str(tmp_path / "diagnosis.json"), "--", sys.executable, kill, str(events)],
        run_env,
        tmp_path,
    )
    assert out.returncode == 137
    fact = json_diagnosis(tmp_path)["facts"]["error_kind"]
    assert where(fact) == {
        "value": "host_oom",
        "source": "env",
        "path": "cgroup memory.events",
        "excerpt": "oom_kill 1 -> 2",
    }
    assert json_diagnosis(tmp_path)["causes"][0]["id"] == "host-ram-oom"


def test_sigkill_with_the_counter_unchanged_is_not_called_an_oom(tmp_path, run_env, script):
    events = tmp_path / "memory.events"
    events.write_text("oom 0\noom_kill 0\n")
    run_env["TRIAGE_MEMORY_EVENTS"] = str(events)
    kill = script("kill.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    out = triage_run(["--", sys.executable, kill], run_env, tmp_path)
    assert out.returncode == 137
    assert "cgroup's OOM-kill counter did not change" in out.stderr.decode()
    assert "Likely causes" not in out.stderr.decode()


def test_the_machine_is_asked(tmp_path, run_env, script):
    """nvidia-smi (a stand-in on PATH), the interpreter's packages, PYTORCH_CUDA_ALLOC_CONF, CUDA_VISIBLE_DEVICES."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        'test "$1" = "--query-gpu=name,memory.total,memory.used" || exit 9\n'
        "echo 'NVIDIA GeForce RTX 3090, 24576, 3\nNVIDIA GeForce RTX 4090, 24564, 2100'\n"
    )
    smi.chmod(0o755)
    site = tmp_path / "site"
    for name, version in (("torch", "2.3.1"), ("transformers", "4.41.2")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    run_env["PATH"] = f"{bin_dir}{os.pathsep}{run_env['PATH']}"
    run_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), run_env.get("PYTHONPATH")) if p)
    run_env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    run_env["CUDA_VISIBLE_DEVICES"] = "1"
    train = script("train.py", PRINT_AND_EXIT)
    out = triage_run(
        [
            *("--format", "json", "--output", str(tmp_path / "diagnosis.json"), "--"),
            *(sys.executable, train, str(OOM / "torch20_backward.log"), "1"),
        ],
        run_env,
        tmp_path,
    )
    assert out.returncode == 1, out.stderr[-1500:]
    facts = json_diagnosis(tmp_path)["facts"]
    assert facts["torch_version"]["value"] == "2.3.1" and facts["torch_version"]["path"] == "importlib.metadata"
    assert facts["transformers_version"]["value"] == "4.41.2"
    assert where(facts["expandable_segments"]) == {
        "value": True,
        "source": "env",
        "path": "environment",
        "excerpt": "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
    }
    # CUDA_VISIBLE_DEVICES=1: the second GPU nvidia-smi lists, and what others used on it before the run
    assert facts["gpu_name"]["value"] == "NVIDIA GeForce RTX 4090" and facts["gpu_name"]["path"] == "nvidia-smi"
    assert where(facts["other_process_bytes"]) == {
        "value": 2100 * 1024**2,
        "source": "env",
        "path": "nvidia-smi",
        "excerpt": "GPU 1: 2100 MiB used",
    }
    assert facts["gpu_memory_bytes"]["value"] == 24564 * 1024**2


def test_bad_input_is_one_line(tmp_path, run_env):
    cases = [
        ([], 2, "triage: no command given: triage run -- <command ...>"),
        (["--"], 2, "triage: no command given: triage run -- <command ...>"),
        (["--", "no-such-command-xyz", "--x"], 127, "triage: no-such-command-xyz: command not found"),
        (["--log-to", str(tmp_path / "no" / "dir.log"), "--", "true"], 3, "triage: --log-to "),
        (["--log-to", str(tmp_path), "--", "true"], 3, "triage: --log-to "),
    ]
    for args, code, start in cases:
        out = triage_run(args, run_env, tmp_path)
        lines = out.stderr.decode().splitlines()
        assert (out.returncode, len(lines)) == (code, 1), (args, out.stderr)
        assert lines[0].startswith(start)
    not_exec = tmp_path / "x.sh"
    not_exec.write_text("echo hi\n")
    out = triage_run(["--", str(not_exec)], run_env, tmp_path)
    assert out.returncode == 126 and out.stderr.decode().count("\n") == 1


def test_log_to_never_overwrites_a_file_the_command_uses(tmp_path, run_env):
    config = tmp_path / "x.yaml"
    config.write_text("micro_batch_size: 2\n")
    out = triage_run(["--log-to", str(config), "--", "cat", str(config)], run_env, tmp_path)
    assert out.returncode == 3 and "the command uses this file" in out.stderr.decode()
    assert config.read_text() == "micro_batch_size: 2\n"


def test_every_run_error_is_said_in_both_languages():
    """Each RunError raised names a message that exists in English and Chinese with the same fields."""
    import re
    import string

    from triage.render.strings import STRINGS

    root = Path(__file__).parent.parent.parent / "triage"
    sources = [*(root / "capture").glob("*.py"), root / "api.py"]
    raised = re.findall(
        r"RunError\(\s*f?\"[^\"]*\",\s*\d+,\s*\"(\w+)\"((?:,\s*\w+=[^,)]+)*)", "".join(p.read_text() for p in sources)
    )
    assert len(raised) >= 8
    for key, params in raised:
        entry = STRINGS[f"run_error_{key}"]
        fields = {name for _, name, _, _ in string.Formatter().parse(entry["en"]) if name}
        assert fields == set(re.findall(r"(\w+)=", params)), key
        assert fields == {name for _, name, _, _ in string.Formatter().parse(entry["zh"]) if name}, key


def test_what_the_oom_message_says_of_other_processes_beats_nvidia_smi_before_the_run(tmp_path, run_env, script):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'Tesla T4, 15360, 0'\n")
    smi.chmod(0o755)
    run_env["PATH"] = f"{bin_dir}{os.pathsep}{run_env['PATH']}"
    train = script("train.py", PRINT_AND_EXIT)
    out = triage_run(
        [
            *("--format", "json", "--output", str(tmp_path / "diagnosis.json"), "--"),
            *(sys.executable, train, str(OOM / "torch21_other_process.txt"), "1"),
        ],
        run_env,
        tmp_path,
    )
    assert out.returncode == 1
    facts = json_diagnosis(tmp_path)["facts"]
    assert facts["other_process_bytes"]["source"] == "log" and facts["other_process_bytes"]["value"] > 0
    assert facts["gpu_name"]["path"] == "nvidia-smi"


def test_a_background_child_holding_the_output_does_not_keep_triage_waiting(tmp_path, run_env):
    """The command exits while something it started still holds its stdout: triage ends after a short grace."""
    import time

    start = time.monotonic()
    out = triage_run(["--", "sh", "-c", "sleep 25 & echo started"], run_env, tmp_path, timeout=60)
    assert (out.returncode, out.stdout) == (0, b"started\n")
    assert time.monotonic() - start < 15


def test_a_launcher_on_path_gives_its_gpus_and_its_interpreter(tmp_path, run_env, script):
    """A console script like torchrun: its options are facts, its #! interpreter is asked for versions."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "torchrun"
    launcher.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "args = sys.argv[1:]\n"
        "while args[0].startswith('--'):\n"  # a stand-in: skip the launcher's options, run the script once
        "    args = args[1:] if '=' in args[0] else args[2:]\n"
        "os.execv(sys.executable, [sys.executable, *args])\n"
    )
    launcher.chmod(0o755)
    site = tmp_path / "site"
    info = site / "peft-0.11.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: peft\nVersion: 0.11.1\n")
    run_env["PATH"] = f"{bin_dir}{os.pathsep}{run_env['PATH']}"
    run_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), run_env.get("PYTHONPATH")) if p)
    train = script("train.py", PRINT_AND_EXIT)
    out = triage_run(
        [
            *("--format", "json", "--output", str(tmp_path / "diagnosis.json"), "--"),
            *("env", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
            *("torchrun", "--nproc_per_node", "4", "--master_port=29501", train),
            *(str(OOM / "torch23_fragmented.txt"), "1", "--per_device_train_batch_size", "2"),
        ],
        run_env,
        tmp_path,
    )
    assert out.returncode == 1, out.stderr[-1500:]
    facts = json_diagnosis(tmp_path)["facts"]
    assert where(facts["gpu_count"]) == {
        "value": 4,
        "source": "config",
        "path": "command line",
        "excerpt": "--nproc_per_node 4",
    }
    assert facts["distributed"]["value"] == "ddp"
    assert facts["batch_size"]["value"] == 2
    assert facts["peft_version"]["value"] == "0.11.1" and facts["peft_version"]["path"] == "importlib.metadata"
    assert facts["expandable_segments"]["value"] is True and facts["expandable_segments"]["path"] == "environment"
