"""Reports and snapshots built to their documented formats (no torch needed)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

GiB = 1024**3
MiB = 1024**2

#: A report as triage.watch writes it for an evaluation OOM of a Llama-shaped run at step 3.
REPORT: dict[str, Any] = {
    "format": "triage-report",
    "version": "1.0",
    "created": "2026-12-02T23:00:00+00:00",
    "triage_version": "0.1.0",
    "exception": {
        "type": "OutOfMemoryError",
        "module": "torch",
        "message": "CUDA out of memory. Tried to allocate 3.91 GiB. GPU 0 has a total capacity of 23.55 GiB of "
        "which 1.20 GiB is free. Including non-PyTorch memory, this process has 22.33 GiB memory in use. Of the "
        "allocated memory 21.10 GiB is allocated by PyTorch, and 0.80 GiB is reserved by PyTorch but unallocated.",
    },
    "phase": "evaluation",
    "phase_frame": "transformers/trainer.py:prediction_step",
    "global_step": 3,
    "epoch": 0.1,
    "batch": {"shape": [8, 1024], "frame": "prediction_step"},
    "training_args": {
        "output_dir": "out",
        "per_device_train_batch_size": 1,
        "per_device_eval_batch_size": 8,
        "gradient_accumulation_steps": 4,
        "eval_accumulation_steps": None,
        "gradient_checkpointing": True,
        "bf16": True,
        "fp16": False,
        "optim": "adamw_torch",
        "eval_strategy": "steps",
        "eval_steps": 3,
        "torch_empty_cache_steps": 10,
    },
    "model": {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "max_position_embeddings": 8192,
        "torch_dtype": "bfloat16",
    },
    "peft_config": {"peft_type": "LORA", "r": 16, "target_modules": ["q_proj", "v_proj"], "lora_dropout": 0.05},
    "parameters": {"total": 8_037_076_992, "trainable": 6_815_744},
    "trainer": {
        "class_name": "Trainer",
        "module": "transformers.trainer",
        "compute_metrics": False,
        "preprocess_logits_for_metrics": False,
        "train_samples": 1000,
        "eval_samples": 200,
    },
    "world_size": 1,
    "versions": {"python": "3.11.7", "torch": "2.5.1", "transformers": "4.46.3", "peft": "0.13.2"},
    "platform": "Linux-6.8.0-x86_64-with-glibc2.35",
    "cuda_available": True,
    "gpus": [
        {"index": 0, "name": "NVIDIA GeForce RTX 4090", "total_memory_bytes": 25_282_215_936, "capability": "8.9"}
    ],
    "memory": {
        "device": 0,
        "allocated_bytes": 22_000_000_000,
        "reserved_bytes": 23_000_000_000,
        "max_allocated_bytes": 22_500_000_000,
        "max_reserved_bytes": 23_000_000_000,
        "stats": {"num_alloc_retries": 2, "num_ooms": 1},
    },
    "env": {"CUDA_VISIBLE_DEVICES": "0"},
    "snapshot": None,
    "traceback": [{"filename": "train.py", "line": 40, "name": "<module>"}],
    "notes": [],
}


@pytest.fixture
def report_file(tmp_path: Path):
    def write(data: dict[str, Any] | None = None, name: str = "triage-report.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(REPORT if data is None else data, indent=2), encoding="utf-8")
        return path

    return write


def frame(filename: str, name: str, line: int = 1) -> dict[str, Any]:
    return {"filename": filename, "line": line, "name": name}


SITE = "/usr/lib/python3.11/site-packages"
TRAIN = [frame("train.py", "<module>"), frame(f"{SITE}/transformers/trainer.py", "train")]
FORWARD = [frame(f"{SITE}/torch/nn/modules/module.py", "_call_impl")]
#: Allocation stacks, innermost first as torch records them.
STACKS = {
    "weights": [
        frame(f"{SITE}/torch/nn/modules/module.py", "_apply"),
        frame(f"{SITE}/transformers/modeling_utils.py", "from_pretrained"),
        frame("train.py", "<module>"),
    ],
    "optimizer_state": [
        frame(f"{SITE}/torch/optim/adamw.py", "_init_group"),
        frame(f"{SITE}/torch/optim/optimizer.py", "wrapper"),
        *TRAIN,
    ],
    "gradients": [
        frame("??", "torch::autograd::Engine::evaluate_function(...)"),
        frame(f"{SITE}/torch/autograd/graph.py", "_engine_run_backward"),
        frame(f"{SITE}/torch/_tensor.py", "backward"),
        *TRAIN,
    ],
    "activations": [
        frame(f"{SITE}/torch/nn/functional.py", "silu"),
        frame(f"{SITE}/transformers/models/llama/modeling_llama.py", "forward"),
        *FORWARD,
        frame(f"{SITE}/transformers/models/llama/modeling_llama.py", "forward"),
        *FORWARD,
        frame(f"{SITE}/transformers/models/llama/modeling_llama.py", "forward"),
        *TRAIN,
    ],
    "logits_loss": [
        frame(f"{SITE}/torch/nn/functional.py", "cross_entropy"),
        frame(f"{SITE}/transformers/loss/loss_utils.py", "fixed_cross_entropy"),
        frame(f"{SITE}/transformers/models/llama/modeling_llama.py", "forward"),
        *TRAIN,
    ],
    "kv_cache": [
        frame(f"{SITE}/transformers/cache_utils.py", "update"),
        frame(f"{SITE}/transformers/models/llama/modeling_llama.py", "forward"),
        frame(f"{SITE}/transformers/generation/utils.py", "generate"),
    ],
}


def snapshot(live: dict[str, int], *, free: int = 0, oom: int | None = 2 * GiB, bare: int = 0) -> dict[str, Any]:
    """A snapshot as torch.cuda.memory._snapshot() documents it: one segment per component plus free blocks."""
    segments = []
    address = 0x7F0000000000
    for component, size in live.items():
        blocks = [
            {
                "size": size,
                "requested_size": size,
                "address": address,
                "state": "active_allocated",
                "frames": STACKS[component],
            }
        ]
        if free:
            blocks.append(
                {"size": free, "requested_size": 0, "address": address + size, "state": "inactive", "frames": []}
            )
        segments.append(
            {
                "device": 0,
                "address": address,
                "total_size": size + free,
                "stream": 0,
                "segment_type": "large",
                "segment_pool_id": (0, 0),
                "allocated_size": size,
                "active_size": size,
                "blocks": blocks,
            }
        )
        address += size + free
    if bare:
        segments.append(
            {
                "device": 0,
                "address": address,
                "total_size": bare,
                "stream": 0,
                "segment_type": "large",
                "segment_pool_id": (0, 0),
                "allocated_size": bare,
                "active_size": bare,
                "blocks": [
                    {
                        "size": bare,
                        "requested_size": bare,
                        "address": address,
                        "state": "active_allocated",
                        "frames": [],
                    }
                ],
            }
        )
    trace = [{"action": "alloc", "addr": 0x7F0000000000, "size": 512, "stream": 0, "frames": []}]
    if oom is not None:
        trace.append(
            {"action": "oom", "size": oom, "stream": 0, "device_free": 300 * MiB, "frames": STACKS["logits_loss"]}
        )
    return {"segments": segments, "device_traces": [trace]}


@pytest.fixture
def snapshot_file(tmp_path: Path):
    def write(data: Any, name: str = "snapshot.pickle") -> Path:
        path = tmp_path / name
        path.write_bytes(pickle.dumps(data))
        return path

    return write
