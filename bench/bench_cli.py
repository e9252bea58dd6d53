"""How long `triage --symptom ...` takes, against a bare `python -c "import pydantic"`.

Prints the median and best wall time of each over N runs (default 15):

    python bench/bench_cli.py [N]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c 'import pydantic'": [sys.executable, "-c", "import pydantic"],
    "triage --symptom (text)": [
        sys.executable,
        "-m",
        "triage",
        "--symptom",
        "CUDA out of memory at step 0, LLaMA-7B LoRA on a 3090",
    ],
    "triage --symptom --format json": [
        sys.executable,
        "-m",
        "triage",
        "--symptom",
        "CUDA out of memory. Tried to allocate 2.00 GiB",
        "--format",
        "json",
    ],
    "triage kb lint": [sys.executable, "-m", "triage", "kb", "lint"],
}


#: As a user's install runs: with compiled bytecode (some sandboxes set PYTHONDONTWRITEBYTECODE, which
#: makes every run recompile every module and measures the compiler, not triage).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    base = None
    print(f"{'command':<34} {'median s':>9} {'best s':>8} {'× pydantic':>11}")
    for name, argv in COMMANDS.items():
        timed(argv)  # warm the OS caches, write the bytecode and the knowledge cache
        samples = [timed(argv) for _ in range(runs)]
        median = statistics.median(samples)
        base = base or median
        print(f"{name:<34} {median:9.3f} {min(samples):8.3f} {median / base:11.2f}")


if __name__ == "__main__":
    main()
