"""How fast the text readers read what users paste: milliseconds per KB of report-like text.

    python bench/bench_reader_speed.py [--kb 200] [--repeat 3]

The text is the corpus' reports (titles and first posts, both splits: only their words are read, never their
labels), joined and cut to ``--kb`` kilobytes, as a long pasted thread or a symptom file would be. It goes through
the symptom reader (:func:`triage.ingest.text.read_lines`, what ``triage diagnose --symptom-file`` reads) and
through the whole input path (:func:`triage.api.read`). Prints the best of ``--repeat`` runs of each; the last line
is ``ms_per_kb=.. kb=..`` for the symptom reader.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage import api  # noqa: E402
from triage.corpus import load_corpus  # noqa: E402
from triage.ingest.lines import iter_text_lines  # noqa: E402
from triage.ingest.text import read_lines  # noqa: E402


def _best(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", type=int, default=200, help="how much text to read, in KB")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    whole = "\n".join(f"{r.title}\n{r.report}" for r in load_corpus())
    text = whole.encode()[: args.kb * 1024].decode(errors="ignore")
    size = len(text.encode()) / 1024
    lines = text.count("\n") + 1
    kb = api.knowledge()
    reader = _best(lambda: read_lines(iter_text_lines(text)), args.repeat)
    path = _best(lambda: api.read(kb, symptoms=[text]), args.repeat)
    print(f"{size:.0f} KB, {lines} lines of report text")
    print(f"symptom reader (read_lines):  {reader:.2f} s  {1000 * reader / size:.1f} ms/KB")
    print(f"whole input path (api.read):  {path:.2f} s  {1000 * path / size:.1f} ms/KB")
    print(f"ms_per_kb={1000 * reader / size:.1f} kb={size:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
