"""Timings of the estimator: `python bench/bench_estimate.py`.

Prints the import time of triage.estimate, one estimate, a plan over eight remedies, a fit,
and the wall time of a whole `triage estimate` CLI call (target: < 0.3 s).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def _time(fn: object, repeat: int = 50) -> float:
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main() -> None:
    t = time.perf_counter()
    import triage.estimate as est

    print(f"import triage.estimate      {1000 * (time.perf_counter() - t):8.1f} ms")
    facts = {
        "model_name": "LLaMA-7B",
        "gpu_name": "3090",
        "max_length": 2048,
        "batch_size": 4,
        "gradient_checkpointing": False,
        "torch_dtype": "bf16",
        "transformers_version": "4.31.0",
    }
    print(f"estimate()                  {1000 * _time(lambda: est.estimate(facts), 200):8.3f} ms")
    from triage.kb.models import Remedy

    def remedy(rid: str, changes: dict[str, object], speed: str = "none") -> Remedy:
        return Remedy.model_validate(
            {
                "kind": "remedy",
                "id": rid,
                "title": {"en": rid, "zh": rid},
                "summary": {"en": rid, "zh": rid},
                "steps": {},
                "changes": changes,
                "cost": {"speed": speed},
            }
        )

    remedies = [
        remedy("gc", {"gradient_checkpointing": True}, "medium"),
        remedy("sdpa", {"attn_implementation": "sdpa"}),
        remedy("b1", {"batch_size": 1, "grad_accum": "scaled"}, "low"),
        remedy("4bit", {"quantization": "4bit"}, "medium"),
        remedy("8bit-opt", {"optimizer": "adamw_bnb_8bit"}),
        remedy("fused", {"fused_loss": True}),
        remedy("half", {"max_length": "half"}, "low"),
        remedy("zero3", {"zero_stage": 3}, "high"),
    ]
    print(f"plan() over 8 remedies      {1000 * _time(lambda: est.plan(facts, remedies), 20):8.1f} ms")
    print(f"fit(max_length)             {1000 * _time(lambda: est.fit(facts, 'max_length'), 20):8.1f} ms")
    cmd = [
        sys.executable,
        "-m",
        "triage",
        "estimate",
        "--model",
        "LLaMA-7B",
        "--gpu",
        "3090",
        "--max-length",
        "2048",
        "--per-device-train-batch-size",
        "4",
        "--format",
        "json",
    ]
    walls = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False)
        walls.append(time.perf_counter() - t)
    print(f"`triage estimate` CLI call  {1000 * statistics.median(walls):8.1f} ms (target < 300 ms)")


if __name__ == "__main__":
    main()
