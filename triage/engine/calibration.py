"""The probability a user is shown: how often a top answer like this one was right on real reports.

The engine's softmax over some ninety causes spreads a weak report's mass thin, so its figures understate the
top cause: on the development split (739 reports with evidence) a top cause scored at 10-20 % was the right
kind of cause for 45 % of them, one scored at 90 % or more for 88 %. Platt scaling of the top cause's log-odds,
``A`` and ``B`` fitted by log loss on those development reports (2026-12-04), makes the shown figure mean what it
says: the expected calibration error of the top answer (five bins) falls from 0.21 to 0.02 on development and
from 0.19 to 0.04 on the held-out split, which the fit never saw (``docs/accuracy.md`` keeps the table). Fitted
again (2026-12-05) when the similar reports' evidence became the log of their share: the old slope and offset left
an expected error of 0.083 on development, these leave 0.046 (held-out 0.030). Fitted again (2026-12-06) when the
similar reports' evidence rose from 0.6 to 1.0 per unit of log share: the old slope and offset left 0.090 on
development, these leave 0.011 (held-out 0.046). The other
causes keep their proportions and share what is left, so the order never changes.

The calibrated figures are what the user is shown and what the remedies are weighted by (a remedy of the first
cause counts as much as that cause is likely); the question planner and the interview's stop rule reason on the
engine's own distribution (:func:`triage.engine.scoring.probabilities`), so the interview asks what it asked.
Since the refit of 2026-12-06 the stop rule's 0.8 on the engine's scale is shown as 0.63 (0.76 before): the
interview may stop at a figure the user sees as under 80 %. Stopping on the shown figure instead was tried and
left the interview benchmark where it was (development 0.571 against 0.570 after six answers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

A = 0.5
"""Slope on the top cause's log-odds (below 1: the engine's own figures are too extreme; 0.6 until 2026-12-05,
0.65 until 2026-12-06)."""
B = -0.15
"""Offset in log-odds (0.65 until 2026-12-05, when the log of the similar reports' share gave the top cause more of
the softmax; 0.25 until 2026-12-06, when that share's weight rose from 0.6 to 1 and the top cause took more again)."""


def shown(p: float) -> float:
    """The calibrated probability of a top cause that the engine scores at ``p``."""
    p = min(max(p, 1e-9), 1 - 1e-9)
    z = A * math.log(p / (1 - p)) + B
    return 1 / (1 + math.exp(-z))


def calibrated(dist: Mapping[str, float]) -> dict[str, float]:
    """``dist`` (the engine's softmax) with its top cause calibrated and the rest rescaled to share the remainder.

    The order is kept: the calibrated top is never below the engine's unless the engine said more than 0.83, and
    then it stays above 0.8 while every other cause stays below one minus it.
    """
    if not dist:
        return {}
    top = max(dist, key=lambda cid: dist[cid])
    p = dist[top]
    rest = 1 - p
    if rest <= 0:
        return dict(dist)  # every other cause was ruled out: nothing to share
    c = shown(p)
    scale = (1 - c) / rest
    return {cid: (c if cid == top else q * scale) for cid, q in dist.items()}
