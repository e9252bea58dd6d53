"""The slowest patterns on hostile lines: every knowledge signal and every text-reader pattern.

    python bench/bench_signals.py              # the 15 slowest, on lines of 3,000 characters
    python bench/bench_signals.py --length 20000 --top 5

``triage/kb/regex_safety.py`` rejects patterns that backtrack exponentially, but not a pattern that
rescans a long run from every start position (``\\d+x`` searched in a run of digits), which is
quadratic: 0.23 s on a 3,000-digit line for one signal until 2026-12-04. This bench searches every
pattern (compiled as the engine compiles it) in long runs of digits, letters, spaces, CJK and
punctuation, and prints the slowest. A pattern that grows fourfold when the line doubles is quadratic;
anchor its start (``(?<![\\d.])\\d+``) or drop a leading ``\\w*``. The last line is
``slowest=..s pattern=.. n=..``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage import api  # noqa: E402
from triage.engine.signals import compile_pattern  # noqa: E402
from triage.ingest import text as text_reader  # noqa: E402

#: Runs that make a careless pattern rescan: digits, a version's dots, word characters, spaces, Chinese.
RUNS = ("1", "1.", "a", "_", " ", "a-", "batch ", "显存", "ab1.")


def patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(where it comes from, compiled) for every knowledge regex signal and every text-reader pattern."""
    out: list[tuple[str, re.Pattern[str]]] = []
    for cause in api.knowledge().causes.values():
        for signal in cause.signals:
            if signal.type == "regex":
                out += [(f"{cause.id}: {p}", compile_pattern(p)) for p in signal.patterns]
    out += [(f"text reader: {compiled.pattern}", compiled) for compiled, _ in text_reader.PATTERNS]
    return out


def slowest(length: int) -> list[tuple[float, str]]:
    lines = [(run * (length // len(run) + 1))[:length] for run in RUNS]
    timed = []
    for where, compiled in patterns():
        worst = 0.0
        for line in lines:
            start = time.perf_counter()
            compiled.search(line)
            worst = max(worst, time.perf_counter() - start)
        timed.append((worst, where))
    return sorted(timed, reverse=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--length", type=int, default=3000, help="characters per hostile line")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    timed = slowest(args.length)
    for seconds, where in timed[: args.top]:
        print(f"{seconds * 1000:8.2f} ms  {where[:110]}")
    worst, where = timed[0]
    print(f"slowest={worst:.4f}s pattern={where[:60]!r} n={len(timed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
