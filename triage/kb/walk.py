"""Walk condition trees (shared by the linter and the engine)."""

from __future__ import annotations

from collections.abc import Iterator

from triage.kb.models import AllOf, AnyOf, Condition, Leaf


def leaves(cond: Condition) -> Iterator[Leaf]:
    """Every leaf test in ``cond``, in document order."""
    if isinstance(cond, Leaf):
        yield cond
    elif isinstance(cond, AllOf):
        for c in cond.all:
            yield from leaves(c)
    elif isinstance(cond, AnyOf):
        for c in cond.any:
            yield from leaves(c)
    else:
        yield from leaves(cond.not_)
