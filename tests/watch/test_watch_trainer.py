"""The watcher on a real (tiny, random, CPU) transformers Trainer: a callback provokes torch.OutOfMemoryError
at step 3 in the forward pass of training, or in evaluation; the report's phase, step and settings are checked,
and ``triage diagnose --report`` ranks the provoked cause first. Skipped without torch (the CI's torch job runs it)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import triage  # noqa: E402
from triage.cli import main  # noqa: E402
from triage.ingest.report import Report  # noqa: E402

MESSAGE = (
    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.10 GiB "
    "is free. Of the allocated memory 20.90 GiB is allocated by PyTorch, and 0.60 GiB is reserved by PyTorch but "
    "unallocated."
)


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n: int, length: int) -> None:
        self.n, self.length = n, length

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict:
        ids = torch.randint(0, 500, (self.length,), generator=torch.Generator().manual_seed(i))
        return {"input_ids": ids, "labels": ids.clone(), "attention_mask": torch.ones_like(ids)}


class Provoke(transformers.TrainerCallback):
    """From step 3 on, the model's forward raises the OOM in training (``mode='train'``) or evaluation
    (``'eval'``), or the head's backward does (``'backward'``)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.armed = False

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if state.global_step == 3 and not self.armed:
            self.armed = True

            def hook(module, inputs, output):
                if module.training == (self.mode == "train"):
                    raise torch.OutOfMemoryError(MESSAGE)

            def backward_hook(module, grad_input, grad_output):
                raise torch.OutOfMemoryError(MESSAGE)

            if self.mode == "backward":
                model.lm_head.register_full_backward_hook(backward_hook)
            else:
                model.register_forward_hook(hook)


def tiny_trainer(tmp_path: Path, mode: str) -> transformers.Trainer:
    config = transformers.LlamaConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
        vocab_size=500, max_position_embeddings=64,
    )  # fmt: skip
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config)
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"), per_device_train_batch_size=1, per_device_eval_batch_size=8,
        max_steps=6, eval_strategy="steps", eval_steps=3, save_strategy="no", report_to=[], use_cpu=True,
        logging_steps=100, disable_tqdm=True,
    )  # fmt: skip
    return transformers.Trainer(
        model=model, args=args, train_dataset=Tokens(12, 32), eval_dataset=Tokens(24, 48), callbacks=[Provoke(mode)]
    )


def provoked(tmp_path: Path, mode: str) -> Report:
    trainer = tiny_trainer(tmp_path, mode)
    path = tmp_path / "triage-report.json"
    with pytest.raises(torch.OutOfMemoryError) as raised, triage.watch(trainer=trainer, path=path):
        trainer.train()
    assert str(raised.value) == MESSAGE, "the exception reaches the caller unchanged"
    assert not any(type(cb).__name__ == "TriageCallback" for cb in trainer.callback_handler.callbacks)
    return Report.model_validate_json(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def eval_report(tmp_path_factory) -> tuple[Report, Path]:
    tmp = tmp_path_factory.mktemp("eval")
    return provoked(tmp, "eval"), tmp / "triage-report.json"


def test_an_oom_in_training_is_reported_in_the_forward_pass_at_step_3(tmp_path):
    report = provoked(tmp_path, "train")
    assert report.phase == "forward" and report.global_step == 3
    assert report.batch is not None and report.batch.shape == [1, 32]
    assert report.training_args is not None and report.training_args["per_device_train_batch_size"] == 1
    assert report.model is not None and report.model["hidden_size"] == 32 and report.model["model_type"] == "llama"
    assert report.trainer is not None and report.trainer.class_name == "Trainer"
    assert report.trainer.compute_metrics is False and report.trainer.eval_samples == 24
    assert report.parameters is not None and report.parameters.trainable == report.parameters.total > 0
    assert report.versions["torch"] == torch.__version__ and report.exception.module == "torch"


def test_an_oom_in_backward_is_reported_in_the_backward_pass(tmp_path):
    report = provoked(tmp_path, "backward")
    assert report.phase == "backward" and report.global_step == 3
    assert report.phase_frame is not None and "autograd" in report.phase_frame


def test_an_oom_in_evaluation_is_reported_as_evaluation_with_the_eval_batch(eval_report):
    report, _ = eval_report
    assert report.phase == "evaluation" and report.phase_frame and "prediction_step" in report.phase_frame
    assert report.global_step == 3
    assert report.batch is not None and report.batch.shape == [8, 48]
    assert report.training_args is not None and report.training_args["per_device_eval_batch_size"] == 8
    assert report.training_args["eval_accumulation_steps"] is None


def test_diagnose_ranks_the_provoked_cause_first(capsys, eval_report):
    _, path = eval_report
    assert main(["diagnose", "--report", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["causes"][0]["id"] == "eval-batch-too-large", [c["id"] for c in data["causes"]]
    assert data["facts"]["phase"] == {**data["facts"]["phase"], "value": "evaluation", "source": "report"}
    assert data["facts"]["eval_batch_size"]["value"] == 8 and data["facts"]["batch_size"]["value"] == 1
    assert data["memory"]["estimated"]


def test_snapshot_on_cpu_says_it_is_unavailable(tmp_path, capsys):
    with pytest.raises(torch.OutOfMemoryError), triage.watch(snapshot=True, path=tmp_path / "r.json"):
        raise torch.OutOfMemoryError(MESSAGE)
    err = capsys.readouterr().err
    assert "no CUDA device here" in err
    report = Report.model_validate_json((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report.snapshot is None and any("no CUDA device" in n for n in report.notes)


def test_python_m_triage_watch_finds_the_trainer_on_the_stack(tmp_path):
    script = tmp_path / "train.py"
    here = Path(__file__).resolve().parent
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(here)!r})
            from pathlib import Path
            from test_watch_trainer import tiny_trainer
            tiny_trainer(Path({str(tmp_path)!r}), sys.argv[1]).train()
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "triage.watch", "--report", "r.json", str(script), "eval"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.rstrip().endswith(f"torch.OutOfMemoryError: {MESSAGE}")
    report = Report.model_validate_json((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report.phase == "evaluation" and report.global_step == 3
    assert report.training_args is not None and report.training_args["per_device_eval_batch_size"] == 8


def test_the_callback_alone_reports_an_oom_that_ends_the_program(tmp_path):
    script = tmp_path / "train.py"
    here = Path(__file__).resolve().parent
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(here)!r})
            from pathlib import Path
            from test_watch_trainer import tiny_trainer
            from triage.watch import TriageCallback
            trainer = tiny_trainer(Path({str(tmp_path)!r}), "train")
            trainer.add_callback(TriageCallback(path="cb.json"))
            trainer.train()
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.rstrip().endswith(f"torch.OutOfMemoryError: {MESSAGE}")
    report = Report.model_validate_json((tmp_path / "cb.json").read_text(encoding="utf-8"))
    assert report.phase == "forward" and report.global_step == 3
    assert report.training_args is not None and report.training_args["max_steps"] == 6
