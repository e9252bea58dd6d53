"""How long `triage --symptom ...` takes, against a bare `python -c "import pydantic"`.

Prints the median and best wall time of each over N runs (default 15), and the same as a multiple of
the first row. The second row is the floor of any command that validates one pydantic model (the
knowledge base and the JSON output are pydantic models), for comparison:

    python bench/bench_cli.py [N]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

#: What any program that validates one pydantic model pays before its own work: pydantic's top-level
#: ``import pydantic`` is lazy, and BaseModel pulls in the schema machinery.
ONE_MODEL = """
from pydantic import BaseModel
class Point(BaseModel):
    x: int
    tags: list[str] = []
Point.model_validate({"x": 1, "tags": ["a"]})
"""

COMMANDS = {
    "python -c 'import pydantic'": [sys.executable, "-c", "import pydantic"],
    "floor: one pydantic model validated": [sys.executable, "-c", ONE_MODEL],
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
