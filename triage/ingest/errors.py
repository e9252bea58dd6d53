"""The one error the readers raise: an input that cannot be read at all."""

from __future__ import annotations


class IngestError(ValueError):
    """A file that cannot be opened or parsed; its message is one line for the user (CLI exit code 3)."""
