"""The watcher without torch: it stays light, reads the phase from a stack, never overwrites, and
``python -m triage.watch`` runs a script as Python would (exit code, argv, the exception unchanged)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from triage.ingest.report import Report
from triage.watch import capture

SITE = "/venv/lib/python3.11/site-packages"
TRAINER = [
    ("train.py", "<module>"),
    (f"{SITE}/transformers/trainer.py", "train"),
    (f"{SITE}/transformers/trainer.py", "_inner_training_loop"),
]
STEP = [*TRAINER, (f"{SITE}/transformers/trainer.py", "training_step")]
FWD = [
    (f"{SITE}/transformers/trainer.py", "compute_loss"),
    (f"{SITE}/torch/nn/modules/module.py", "_call_impl"),
    (f"{SITE}/transformers/models/llama/modeling_llama.py", "forward"),
]


@pytest.mark.parametrize(
    ("frames", "phase"),
    [
        ([*STEP, *FWD], "forward"),
        (
            [
                *STEP,
                (f"{SITE}/accelerate/accelerator.py", "backward"),
                (f"{SITE}/torch/_tensor.py", "backward"),
                (f"{SITE}/torch/autograd/__init__.py", "backward"),
                (f"{SITE}/torch/autograd/graph.py", "_engine_run_backward"),
            ],
            "backward",
        ),
        # gradient checkpointing recomputes the forward inside backward: still the backward pass
        (
            [
                *STEP,
                (f"{SITE}/torch/_tensor.py", "backward"),
                (f"{SITE}/torch/utils/checkpoint.py", "recompute_fn"),
                *FWD[1:],
            ],
            "backward",
        ),
        (
            [
                *TRAINER,
                (f"{SITE}/accelerate/optimizer.py", "step"),
                (f"{SITE}/torch/optim/adamw.py", "step"),
                (f"{SITE}/torch/optim/adamw.py", "_init_group"),
            ],
            "optimizer",
        ),
        (
            [
                *TRAINER,
                (f"{SITE}/transformers/trainer.py", "evaluate"),
                (f"{SITE}/transformers/trainer.py", "evaluation_loop"),
                (f"{SITE}/transformers/trainer.py", "prediction_step"),
                *FWD[1:],
            ],
            "evaluation",
        ),
        (
            [
                ("gen.py", "<module>"),
                (f"{SITE}/transformers/generation/utils.py", "generate"),
                (f"{SITE}/transformers/generation/utils.py", "_sample"),
                *FWD[1:],
            ],
            "generation",
        ),
        (
            [
                *TRAINER,
                (f"{SITE}/transformers/trainer.py", "_save_checkpoint"),
                (f"{SITE}/transformers/trainer.py", "save_model"),
            ],
            "saving",
        ),
        ([("load.py", "<module>"), (f"{SITE}/transformers/modeling_utils.py", "from_pretrained")], "loading"),
        ([*TRAINER, ("train.py", "on_step_begin")], "training"),
        ([("script.py", "<module>"), ("script.py", "main")], None),
        ([*TRAINER, (f"{SITE}/deepspeed/runtime/engine.py", "step")], "optimizer"),
    ],
)
def test_the_phase_comes_from_the_stack(frames, phase):
    assert capture.phase_of(frames)[0] == phase


def test_what_counts_as_an_oom():
    class OutOfMemoryError(RuntimeError):
        pass

    assert capture.is_oom(OutOfMemoryError("CUDA out of memory"))
    assert capture.is_oom(RuntimeError("CUDA error: out of memory"))
    assert capture.is_oom(RuntimeError("CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling cublasCreate(handle)"))
    assert not capture.is_oom(RuntimeError("expected scalar type Half"))
    assert not capture.is_oom(ValueError("out of memory"))
    try:
        try:
            raise OutOfMemoryError("CUDA out of memory")
        except OutOfMemoryError as inner:
            raise RuntimeError("No executable batch size found, reached zero.") from inner
    except RuntimeError as outer:
        assert capture.is_oom(outer), "raised while handling an OOM"


def test_an_existing_file_is_never_overwritten(tmp_path):
    first = capture.write_new(tmp_path / "triage-report.json", b"one")
    second = capture.write_new(tmp_path / "triage-report.json", b"two")
    third = capture.write_new(tmp_path / "triage-report.json", b"three")
    assert first.read_bytes() == b"one"
    assert second.name == "triage-report-1.json" and second.read_bytes() == b"two"
    assert third.name == "triage-report-2.json"


def test_importing_triage_and_the_watcher_imports_neither_torch_nor_transformers():
    code = (
        "import sys, triage; w = triage.watch; import triage.watch as m; assert w is m and callable(m); "
        "print(sorted(k for k in ('torch', 'transformers', 'peft') if k in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


SCRIPT = textwrap.dedent(
    """
    import sys

    class OutOfMemoryError(RuntimeError):  # what torch raises, without needing torch here
        pass

    def forward(input_ids):
        raise OutOfMemoryError(
            "CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 11.72 GiB "
            "of which 200.00 MiB is free."
        )

    class Shape:
        shape = (4, 512)

    def training_step(inputs):
        return forward(inputs["input_ids"])

    print("argv", sys.argv[1:], __name__)
    if sys.argv[1] == "exit":
        sys.exit(int(sys.argv[2]))
    if sys.argv[1] == "value":
        raise ValueError("not memory")
    training_step({"input_ids": Shape()})
    """
)


def watch_run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "train.py"
    script.write_text(SCRIPT, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "triage.watch", str(script), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_python_m_triage_watch_writes_the_report_and_the_exception_goes_on(tmp_path):
    done = watch_run(tmp_path, "oom", "--its-own-flag")
    assert done.returncode == 1
    assert "argv ['oom', '--its-own-flag'] __main__" in done.stdout
    assert done.stderr.rstrip().endswith(
        "OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 11.72 GiB "
        "of which 200.00 MiB is free."
    )
    assert "report: triage-report.json" in done.stderr
    report = Report.model_validate_json((tmp_path / "triage-report.json").read_text(encoding="utf-8"))
    assert report.batch is not None and report.batch.shape == [4, 512] and report.batch.frame == "forward"
    assert report.exception.type == "OutOfMemoryError" and report.traceback[-1].name == "forward"
    assert report.cuda_available is False and report.memory is None and report.gpus == []
    assert report.phase == "forward", "a function named forward is the forward pass"
    again = watch_run(tmp_path, "oom")
    assert again.returncode == 1
    assert "triage-report.json exists; wrote triage-report-1.json instead" in again.stderr
    first = json.loads((tmp_path / "triage-report.json").read_text(encoding="utf-8"))
    assert first["created"] == report.created, "the first report is untouched"


@pytest.mark.parametrize(("args", "code"), [(("exit", "7"), 7), (("exit", "0"), 0), (("value",), 1)])
def test_other_endings_are_the_scripts_own_and_write_nothing(tmp_path, args, code):
    done = watch_run(tmp_path, *args)
    assert done.returncode == code
    assert not (tmp_path / "triage-report.json").exists()
    assert "triage.watch" not in done.stderr
    if code == 1:
        assert done.stderr.rstrip().endswith("ValueError: not memory")


def test_usage_errors(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "triage.watch", str(tmp_path / "missing.py")], capture_output=True, text=True
    )
    assert done.returncode == 2 and "cannot open" in done.stderr
    done = subprocess.run([sys.executable, "-m", "triage.watch"], capture_output=True, text=True)
    assert done.returncode == 2 and "usage:" in done.stderr


def test_each_rank_of_a_distributed_run_writes_its_own_report(tmp_path, monkeypatch):
    from triage.watch import watch

    class OutOfMemoryError(RuntimeError):
        pass

    monkeypatch.setenv("WORLD_SIZE", "2")
    for rank in ("0", "1"):
        monkeypatch.setenv("RANK", rank)
        with pytest.raises(OutOfMemoryError), watch(path=tmp_path / "triage-report.json"):
            raise OutOfMemoryError("CUDA out of memory.")
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["triage-report-rank0.json", "triage-report-rank1.json"]
    assert Report.model_validate_json((tmp_path / "triage-report-rank1.json").read_text()).world_size == 2


def test_a_part_that_cannot_be_read_is_left_out_and_said():
    class Config:
        def to_dict(self):
            raise RuntimeError("a config that cannot be dumped")

    class Model:
        config = Config()

        def parameters(self):
            return []

    notes: list[str] = []
    got = capture.settings(model=Model(), args={"per_device_train_batch_size": 2}, notes=notes)
    assert got["model"] is None and got["training_args"] == {"per_device_train_batch_size": 2}
    assert notes == ["model could not be recorded: RuntimeError: a config that cannot be dumped"]
