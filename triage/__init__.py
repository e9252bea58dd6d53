"""triage: why your GPU ran out of memory while fine-tuning, and what to change."""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """``triage.watch``: imported on first use, so ``import triage`` stays light (no torch, no transformers)."""
    if name == "watch":
        import importlib

        return importlib.import_module("triage.watch")
    raise AttributeError(f"module 'triage' has no attribute {name!r}")
