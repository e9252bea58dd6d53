"""Literal anchors of regular expressions: words a text must contain for a pattern to match.

Compiling hundreds of signal regexes costs more than matching them, and most
never match a given report. :func:`anchors` reads a pattern's parse tree once
(at knowledge-load time, then cached with the knowledge base) and returns
lower-cased literal strings, one of which must occur in any text the pattern
matches; the engine compiles a pattern only when one does. None means the
pattern has no such anchor and is always compiled.
"""

from __future__ import annotations

import re
from re import _constants as sre_constants  # type: ignore[attr-defined]  # Python >= 3.11
from re import _parser as sre_parse  # type: ignore[attr-defined]

LITERAL = sre_constants.LITERAL
SUBPATTERN = sre_constants.SUBPATTERN
BRANCH = sre_constants.BRANCH
MAX_REPEAT = sre_constants.MAX_REPEAT
MIN_REPEAT = sre_constants.MIN_REPEAT
#: ASCII anchors shorter than this are not worth a substring test (one CJK character is).
MIN_ANCHOR = 2

Alternatives = tuple[str, ...] | None


def _best(a: Alternatives, b: Alternatives) -> Alternatives:
    """The more selective of two anchor sets (the one whose shortest member is longest)."""
    if a is None:
        return b
    if b is None:
        return a
    return a if min(map(len, a)) >= min(map(len, b)) else b


def _worth(run: str) -> bool:
    return len(run) >= MIN_ANCHOR or (len(run) == 1 and ord(run) > 0x2E7F)


def _sequence(items: list[tuple[object, object]]) -> Alternatives:
    best: Alternatives = None
    run = ""
    for op, arg in items:
        if op is LITERAL:
            run += chr(arg).lower()  # type: ignore[arg-type]
            continue
        if _worth(run):
            best = _best(best, (run,))
        run = ""
        found: Alternatives = None
        if op is SUBPATTERN:
            found = _sequence(list(arg[-1]))  # type: ignore[index]
        elif op is BRANCH:
            branches = [_sequence(list(b)) for b in arg[1]]  # type: ignore[index]
            if branches and all(b is not None for b in branches):
                found = tuple(sorted({w for b in branches for w in b or ()}))
        elif op in (MAX_REPEAT, MIN_REPEAT) and arg[0] >= 1:  # type: ignore[index]
            found = _sequence(list(arg[2]))  # type: ignore[index]
        best = _best(best, found)
    if _worth(run):
        best = _best(best, (run,))
    return best


def anchors(pattern: str) -> Alternatives:
    """Lower-cased literals of which at least one occurs in every match of ``pattern`` (None: unknown)."""
    try:
        tree = sre_parse.parse(pattern, re.IGNORECASE)
    except re.error:
        return None
    return _sequence(list(tree))
