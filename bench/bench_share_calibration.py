"""What the word model's shares mean: how often a kind of cause given a share was the label.

    python bench/bench_share_calibration.py

Each development record (in scope) is judged by the word model with that record left out, as
``bench/bench_accuracy.py`` does; every kind of cause's share is a pair (share, was it the label). Prints the bins,
the knots for :data:`triage.similar.SHOWN_SHARE` (mean share, right rate; a bin's rate below the one before is
pooled with it, so the shown figure never falls as the share rises) and the expected gap between the figure an
evidence line shows and how often it came true (shares of 0.3 or more), for the raw share and for the shown one.
Held-out records are never read. Last line: ``... raw_gap=.. shown_gap=.. pairs=..``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triage import api  # noqa: E402
from triage.authoring.accuracy import share_gap, share_reliability  # noqa: E402
from triage.corpus import load_corpus  # noqa: E402
from triage.similar import shown_share  # noqa: E402


def main() -> None:
    kb = api.knowledge()
    dev = [r for r in load_corpus() if r.split == "dev" and r.scope == "in"]
    rows = share_reliability(api.solved_reports_index(kb, dev), dev)
    print("| pairs | mean share | right | shown |")
    print("|---|---|---|---|")
    for n, mean, right in rows:
        print(f"| {n} | {mean:.3f} | {right:.3f} | {shown_share(mean):.3f} |")
    knots: list[list[float]] = []
    weights: list[int] = []
    for n, mean, right in rows:
        knots.append([mean, right])
        weights.append(n)
        while len(knots) > 1 and knots[-1][1] < knots[-2][1]:  # pool adjacent violators
            (m1, r1), (m2, r2) = knots[-2], knots[-1]
            w1, w2 = weights[-2], weights[-1]
            knots[-2:] = [[(m1 * w1 + m2 * w2) / (w1 + w2), (r1 * w1 + r2 * w2) / (w1 + w2)]]
            weights[-2:] = [w1 + w2]
    print("\nSHOWN_SHARE knots:")
    print("    (0.0, 0.0),")
    for mean, right in knots:
        print(f"    ({mean:.3f}, {right:.3f}),")
    raw, shown = share_gap(rows, lambda share: share), share_gap(rows, shown_share)
    pairs = sum(n for n, mean, _ in rows if mean >= 0.3)
    print(f"\nshares of 0.3 or more: raw_gap={raw:.4f} shown_gap={shown:.4f} pairs={pairs}")


if __name__ == "__main__":
    main()
