"""Hardware knowledge shared by the readers and the estimator: the GPU catalogue.

It sits below both stages (``triage.ingest`` and ``triage.estimate`` import it; it imports
neither), so one table says what a "3090" is.
"""

from triage.hardware.gpus import (
    USABLE_RATIO,
    CatalogueError,
    Gpu,
    Mention,
    find_gpu,
    find_mention,
    gpu_presets,
    mentions,
    model_patterns,
    usable_bytes,
)

__all__ = [
    "USABLE_RATIO",
    "CatalogueError",
    "Gpu",
    "Mention",
    "find_gpu",
    "find_mention",
    "gpu_presets",
    "mentions",
    "model_patterns",
    "usable_bytes",
]
