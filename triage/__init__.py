"""triage: why your GPU ran out of memory while fine-tuning, and what to change."""

__version__ = "0.1.0"
