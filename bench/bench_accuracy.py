"""Accuracy on real, resolved public reports: top-1 / top-3 of the true cause, from the report text alone.

    python bench/bench_accuracy.py                  # both splits; writes docs/accuracy.md
    python bench/bench_accuracy.py --split dev      # the development split, with its misses
    python bench/bench_accuracy.py --split heldout  # the held-out split: figures only, never its misses
    python bench/bench_accuracy.py --body-only      # the first post's body without its title (does not write the doc)

Every record (its thread's title, then its first post) goes through ``triage.api.analyse`` (what
``triage diagnose -`` runs); the doc also summarises the body alone, the measure until 2026-12-03. The last line is
``top1=.. top3=.. n=..`` for the split asked (both: the held-out one).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage import api  # noqa: E402
from triage.authoring.accuracy import evaluate, load_guesses, misses, render, report, score  # noqa: E402
from triage.corpus import load_corpus  # noqa: E402

DOC = ROOT / "docs" / "accuracy.md"
#: An expert's reading of every in-scope record's first post (corpus/README.md, "An expert's reading").
EXPERT = ROOT / "corpus" / "baselines" / "expert-first-post.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "heldout", "both"], default="both")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite docs/accuracy.md")
    parser.add_argument(
        "--body-only",
        action="store_true",
        help="give each report without its thread's title (docs/accuracy.md is not rewritten)",
    )
    args = parser.parse_args(argv)
    kb = api.knowledge()
    records = load_corpus()
    start = time.perf_counter()
    # only development records vote as similar reports, and never for themselves (leave-one-out)
    outcomes = evaluate(kb, records, with_title=not args.body_only)
    writes = args.split == "both" and not args.no_write and not args.body_only
    plain = evaluate(kb, records, with_title=False) if writes else None
    took = time.perf_counter() - start
    lines = render(outcomes, plain, load_guesses(EXPERT))
    shown = outcomes["heldout"] if args.split in ("heldout", "both") else outcomes["dev"]
    body = lines if args.split != "heldout" else [x for x in lines if not x.startswith("- [")]
    if args.split == "dev":
        body = [*report("Development split", outcomes["dev"]), *misses(outcomes["dev"])]
    sys.stdout.write("\n".join(body) + "\n")
    if writes:
        DOC.write_text("\n".join(lines) + "\n", encoding="utf-8")
    s = score([o for o in shown if o.record.scope == "in"])
    print(f"({len(records)} records in {took:.1f} s)")
    print(f"top1={s.top1:.3f} top3={s.top3:.3f} n={s.n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
