"""CPU-stand-in vs CUDA differences, corrected for the measured step (needs torch and transformers).

See shared/reference/exact-measurement.md, "What differs between the CPU stand-in and CUDA":

* transformers' ``find_packed_sequence_indices`` is data dependent: on fake tensors it cannot
  evaluate and the model would build an explicit (B,1,S,S) mask. An unpacked batch returns None.
* dropout: CUDA's fused dropout keeps a bool mask (``native_dropout``); CPU keeps an
  input-dtype noise tensor.
* fp16 eager softmax with ``dtype=float32``: CUDA runs ``_softmax(half_to_float=True)``
  and makes no fp32 copy of the input (fake mode only: the CPU kernel refuses it).

The packed-sequence patch is always on (the real CPU run computes None anyway); the others are
the ``cuda_shims`` switch. Optimizer foreach/fused is chosen explicitly by the step.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any


@contextmanager
def _patched(owner: Any, name: str, value: Any) -> Iterator[None]:
    if not hasattr(owner, name):
        yield
        return
    original = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, original)


def _no_packed_sequences(position_ids: Any) -> None:
    return None


@contextmanager
def cuda_shims(enabled: bool, fake: bool) -> Iterator[list[str]]:
    """Patch torch/transformers for the duration of a step; yields the names of the shims applied."""
    import torch  # type: ignore[import-not-found, unused-ignore]
    import torch.nn.functional as F  # type: ignore[import-not-found, unused-ignore]
    import transformers.masking_utils as masking  # type: ignore[import-not-found, unused-ignore]

    applied: list[str] = []
    with ExitStack() as stack:
        stack.enter_context(_patched(masking, "find_packed_sequence_indices", _no_packed_sequences))
        applied.append("packed-sequence check -> None")
        if enabled:
            original_dropout = F.dropout

            def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
                if not training or p == 0.0:
                    return input
                if p >= 1.0:
                    return original_dropout(input, p, training, inplace)
                return torch.native_dropout(input, p, True)[0]

            stack.enter_context(_patched(F, "dropout", dropout))
            applied.append("dropout -> native_dropout (bool mask)")
            if fake:
                original_softmax = F.softmax

                def softmax(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Any:
                    if dtype == torch.float32 and input.dtype == torch.float16 and dim is not None:
                        return torch._softmax(input, dim, True)
                    return original_softmax(input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)

                stack.enter_context(_patched(F, "softmax", softmax))
                applied.append("fp16 softmax -> half_to_float")
        yield applied
