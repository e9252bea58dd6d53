"""What ``triage run`` costs a training command: pass-through throughput and triage's own peak memory.

A writer prints MB of training-log-like output (``{'loss': ...}`` lines and tqdm redraws with
``\\r``) as fast as it can. It runs three ways, its standard output going to /dev/null:

- directly;
- directly through a pipe (``writer | cat``: what a terminal or ``tee`` reads at least);
- under ``triage run --log-to /dev/null --`` (a pipe to triage, triage's scanner, triage's write).

Prints wall and CPU time and MB/s for each, and the peak RSS of triage on the large stream and on 1 MB:

    python bench/bench_run.py [--mb 1024]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

WRITER = """
import sys
mb = int(sys.argv[1])
line = "{'loss': 1.2345, 'grad_norm': 0.5123, 'learning_rate': 1.9e-05, 'epoch': 0.42}\\n"
bar = "\\rTraining:  42%|####2     | 4200/10000 [01:02<01:26, 67.12it/s]"
block = ((line * 6 + bar * 4 + "\\n") * 2000).encode()
out = sys.stdout.buffer
for _ in range(mb * 1024 * 1024 // len(block)):
    out.write(block)
out.flush()
"""


def timed(argv: list[str], shell: bool = False) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (KiB) of ``argv`` with its output to /dev/null.

    CPU and RSS come from ``wait4``: the process's own, with those of its children it waited for
    (for triage, the writer: its RSS is a few MiB, far below triage's).
    """
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv if not shell else " ".join(argv), stdout=null, shell=shell)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{argv[:4]} exited with {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=1024, help="MB of output (default 1024)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        writer = os.path.join(tmp, "writer.py")
        with open(writer, "w", encoding="utf-8") as fh:
            fh.write(WRITER)
        write = [sys.executable, writer, str(args.mb)]
        direct = timed(write)
        piped = timed([*write, "|", "cat"], shell=True)
        triage = [sys.executable, "-m", "triage", "run", "--log-to", os.devnull, "--", *write]
        run = timed(triage)
        small = timed([*triage[:-1], "1"])
    print(f"output: {args.mb} MB of log lines and tqdm redraws, to /dev/null")
    for name, (wall, cpu, _) in (("directly", direct), ("directly | cat", piped), ("triage run --", run)):
        print(f"  {name:16} {wall:7.2f} s wall {cpu:7.2f} s CPU  {args.mb / wall:7.1f} MB/s")
    print(f"  triage run: {run[0] / piped[0]:.1f}x the wall time of | cat")
    print(f"  triage peak RSS: {run[2] / 1024:.0f} MiB for {args.mb} MB of output ({small[2] / 1024:.0f} MiB for 1 MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
