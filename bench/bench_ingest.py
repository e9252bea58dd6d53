"""Prove that reading a huge log costs bounded memory: generate a log, stream it, report.

    python bench/bench_ingest.py [--size-mb 1024] [--keep DIR] [--check]

Writes a synthetic training log (Trainer banners, tqdm redraws with carriage returns and ANSI
colours, loss dicts, memory lines, warnings and a traceback every few MB, the OOM at the end)
into a temporary directory, reads it with :func:`triage.ingest.log.read_log_lines`, and prints
throughput and the process's peak RSS (resource.getrusage). Exit code 1 when peak RSS exceeds
--max-rss-mb (default 300), so CI can run it as a check. With --check it reads the log a second
time one segment at a time (the scanner's reference path) and fails unless both readings agree.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path


def _block(step: int) -> str:
    lines = []
    for i in range(step, step + 40):
        lines.append(f"\r\x1b[32m{i % 100:3d}%\x1b[0m|████▌     | {i}/1000000 [12:34<56:07,  1.23it/s]")
        if i % 4 == 0:
            lines.append(
                f"\n{{'loss': {1.0 / (1 + i % 97):.4f}, 'grad_norm': 0.41, 'learning_rate': 1.9e-05, "
                f"'epoch': {i / 1e6:.4f}}}\n"
            )
        if i % 10 == 0:
            lines.append(f"\nstep {i}: max_memory_allocated={12.0 + (i % 7) * 0.01:.2f} GiB\n")
    lines.append("\n[WARNING|modeling_utils.py:1234] `use_cache=True` is incompatible with gradient checkpointing.\n")
    return "".join(lines)


def generate(path: Path, size: int) -> int:
    tail = (
        "Traceback (most recent call last):\n"
        '  File "/site-packages/torch/autograd/__init__.py", line 200, in backward\n'
        "    Variable._execution_engine.run_backward(\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "23.64 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.50 GiB memory in "
        "use. Of the allocated memory 13.20 GiB is allocated by PyTorch, and 8.90 GiB is reserved by PyTorch but "
        "unallocated.\n"
    )
    written = 0
    step = 0
    with path.open("w", encoding="utf-8") as fh:
        while written < size:
            chunk = "".join(_block(step + k * 40) for k in range(200))
            step += 200 * 40
            if (written // (64 << 20)) != ((written + len(chunk)) // (64 << 20)):
                chunk += 'Traceback (most recent call last):\n  File "x.py", line 1, in f\nValueError: transient\n'
            fh.write(chunk)
            written += len(chunk.encode())
        fh.write(tail)
    return path.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--max-rss-mb", type=int, default=300)
    parser.add_argument("--keep", type=Path, help="write the log here instead of a temporary directory")
    parser.add_argument("--check", action="store_true", help="also read segment by segment and compare")
    args = parser.parse_args(argv)

    from triage.ingest.lines import iter_file_lines
    from triage.ingest.log import read_log_lines

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        path = folder / "huge.log"
        start = time.perf_counter()
        size = generate(path, args.size_mb << 20)
        made = time.perf_counter() - start
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        start = time.perf_counter()
        reading = read_log_lines(iter_file_lines(str(path)))
        took = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        same = None
        if args.check:  # a plain generator has no .blocks(): the scanner feeds one segment at a time
            start = time.perf_counter()
            slow = read_log_lines(pair for pair in iter_file_lines(str(path)))
            slow_took = time.perf_counter() - start
            same = slow == reading
    facts = {f.name: f.raw for f in reading.found}
    print(f"log: {size / 2**20:.0f} MiB generated in {made:.1f}s, {reading.digest.lines_read:,} segments")
    print(f"read: {took:.1f}s, {size / 2**20 / took:.1f} MiB/s")
    print(f"peak RSS: {peak:.0f} MiB (before reading: {rss_before:.0f} MiB; limit {args.max_rss_mb} MiB)")
    print(f"kept: {len(reading.digest.windows)} windows, excerpt {len(reading.excerpt)} chars")
    print(f"facts: {facts}")
    ok = peak <= args.max_rss_mb and facts.get("error_kind") == "cuda_oom"
    if same is not None:
        print(f"segment by segment: {slow_took:.1f}s, {size / 2**20 / slow_took:.1f} MiB/s, same reading: {same}")
        ok = ok and same
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
