"""A row whose text wraps under itself, past a lead (a bar, a sign, a check box): never cut, never under the lead."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text


def hanging(lead: Text, body: Text) -> Table:
    """``lead`` in a column of its own and ``body`` beside it, wrapped at word boundaries (long words folded)."""
    grid = Table.grid(padding=0, expand=True)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row(lead, body)
    return grid
