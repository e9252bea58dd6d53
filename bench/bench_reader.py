"""The readers against what real threads state: per fact, precision and recall on the corpus.

    python bench/bench_reader.py                      # both splits
    python bench/bench_reader.py --split dev --show phase  # development records where another phase was read

For every in-scope record, the thread's title and first post go through the readers (``api.build_session``,
what ``triage diagnose -`` reads) and each fact they read is compared with the value the whole thread states
(the record's ``facts``). Precision: of the values read, the share that are the thread's. Recall: of the
values the thread states, the share read right; it is bounded by what first posts say (many facts come
from later comments). How values are compared: :mod:`triage.authoring.reading`.

Held-out records are counted, never shown (``--show`` lists development records only). The last line is
``precision=.. recall=.. n=..`` for the split asked (both: the held-out one).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage import api  # noqa: E402
from triage.authoring.reading import COMPARED, compare, merge, table, total  # noqa: E402
from triage.corpus import load_corpus  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "heldout", "both"], default="both")
    parser.add_argument("--show", choices=COMPARED, help="list the development records where this fact was misread")
    args = parser.parse_args(argv)
    kb = api.knowledge()
    records = [r for r in load_corpus() if r.scope == "in"]
    splits = ["dev", "heldout"] if args.split == "both" else [args.split]
    last = ""
    for split in splits:
        chosen = [r for r in records if r.split == split]
        langs = {lang: compare(kb, [r for r in chosen if r.lang == lang]) for lang in ("en", "zh")}
        both = merge(*langs.values())
        print("\n".join(table(f"{split} ({len(chosen)} records)", both)))
        for lang, tallies in langs.items():
            t = total(tallies)
            counts = f"({t.read} read of {t.stated} stated)"
            print(f"{split} {lang}: precision {t.precision:.2f} recall {t.recall:.2f} {counts}")
        if args.show and split == "dev":
            print(f"\n{args.show}: thread's value / reader's value")
            for url, thread, read in both[args.show].wrong:
                print(f"  {url}  {thread!r} / {read!r}")
        t = total(both)
        last = f"precision={t.precision:.3f} recall={t.recall:.3f} n={len(chosen)}"
        print()
    print(last)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
