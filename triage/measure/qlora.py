"""QLoRA on fake tensors: bitsandbytes NF4 linears with fake packed weights (needs torch + bitsandbytes).

* :func:`quantize_linears` swaps every decoder ``nn.Linear`` (not ``lm_head``) for
  ``bnb.nn.Linear4bit`` on the meta device, as ``from_pretrained(quantization_config=...)`` does.
* :func:`materialise_quantized` gives each one a packed uint8 weight ((N·K+1)//2, 1) and a
  ``QuantState`` (absmax uint8 per 64-block with double quant, fp32 absmax2 per 256 blocks, the
  NF4 and dynamic codes). ``Params4bit`` cannot wrap a FakeTensor, so the packed weight is a plain
  Parameter carrying the attributes bnb reads. In real mode the weight is quantized for real.
* :func:`gemm_4bit_temporary`: on CUDA, ``gemm_4bit`` with M > 1536 rows dequantizes the weight
  into an (N, K) compute-dtype temporary (plus two fp32 absmax copies with double quant) and
  calls F.linear; the fake kernel only makes the output. The counter adds these for the op.
"""

from __future__ import annotations

from typing import Any

import torch  # type: ignore[import-not-found, unused-ignore]

from triage.measure.result import round_block
from triage.measure.spec import MeasureSpec, SpecError

BLOCKSIZE = 64
ABSMAX2_BLOCKSIZE = 256
#: bitsandbytes ops/_gemm_4bit_custom_max_m on CUDA: past this many rows it dequantizes + F.linear.
CUSTOM_MAX_M = 1536
_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
_SKIP = ("lm_head", "embed_out", "output_layer")


def _bnb() -> Any:
    try:
        import bitsandbytes as bnb  # type: ignore[import-not-found, unused-ignore]
    except Exception as exc:
        raise SpecError(f"QLoRA needs bitsandbytes ({exc}); pip install bitsandbytes") from None
    return bnb


def quantize_linears(model: Any, spec: MeasureSpec) -> None:
    """Replace the decoder's ``nn.Linear`` modules by ``bnb.nn.Linear4bit`` (meta device)."""
    bnb = _bnb()
    compute = _DTYPES[spec.dtype]
    swaps = []
    for name, module in model.named_modules():
        for child_name, child in module.named_children():
            full = f"{name}.{child_name}" if name else child_name
            if type(child) is torch.nn.Linear and not any(s in full.split(".") for s in _SKIP):
                swaps.append((module, child_name, child))
    for parent, child_name, child in swaps:
        q = bnb.nn.Linear4bit(
            child.in_features,
            child.out_features,
            bias=child.bias is not None,
            compute_dtype=compute,
            compress_statistics=spec.double_quant,
            quant_type="nf4",
            quant_storage=torch.uint8,
            device="meta",
        )
        if child.bias is not None:
            q.bias = torch.nn.Parameter(torch.empty_like(child.bias, device="meta"), requires_grad=False)
        setattr(parent, child_name, q)
    model.is_loaded_in_4bit = True
    model.is_quantized = True


def _quant_state(n: int, k: int, compute: Any, double_quant: bool, make: Any) -> Any:
    from bitsandbytes.functional import QuantState  # type: ignore[import-not-found, unused-ignore]

    blocks = -(-(n * k) // BLOCKSIZE)
    code = make((16,), torch.float32)
    if not double_quant:
        return QuantState(
            absmax=make((blocks,), torch.float32),
            shape=torch.Size([n, k]),
            code=code,
            blocksize=BLOCKSIZE,
            quant_type="nf4",
            dtype=compute,
        )
    state2 = QuantState(
        absmax=make((-(-blocks // ABSMAX2_BLOCKSIZE),), torch.float32),
        code=make((256,), torch.float32),
        blocksize=ABSMAX2_BLOCKSIZE,
        dtype=torch.float32,
    )
    return QuantState(
        absmax=make((blocks,), torch.uint8),
        shape=torch.Size([n, k]),
        code=code,
        blocksize=BLOCKSIZE,
        quant_type="nf4",
        dtype=compute,
        offset=make((), torch.float32),
        state2=state2,
    )


def materialise_quantized(model: Any, spec: MeasureSpec, fake: bool) -> None:
    """Give every 4-bit linear a packed weight and a QuantState (fake, or really quantized)."""
    bnb = _bnb()
    compute = _DTYPES[spec.dtype]
    for module in model.modules():
        if not isinstance(module, bnb.nn.Linear4bit):
            continue
        n, k = module.out_features, module.in_features
        if fake:
            packed = torch.empty(((n * k + 1) // 2, 1), dtype=torch.uint8)
            state = _quant_state(n, k, compute, spec.double_quant, lambda shape, dt: torch.empty(shape, dtype=dt))
        else:
            w = (torch.randn((n, k), dtype=torch.float32) * 0.02).to(compute)
            packed, state = bnb.functional.quantize_4bit(
                w,
                blocksize=BLOCKSIZE,
                compress_statistics=spec.double_quant,
                quant_type="nf4",
                quant_storage=torch.uint8,
            )
        param = torch.nn.Parameter(packed, requires_grad=False)
        param.quant_state = state
        param.quant_type = "nf4"
        param.blocksize = BLOCKSIZE
        param.compress_statistics = spec.double_quant
        param.bnb_quantized = True
        param.quant_storage = torch.uint8
        param.module = module
        module._parameters["weight"] = param
        module.quant_state = state


def gemm_4bit_temporary(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """Bytes CUDA's ``gemm_4bit`` holds besides its output while it runs (0 for other ops)."""
    if "gemm_4bit" not in str(func):
        return 0
    a, shape_b = args[0], args[2]
    k = int(a.shape[-1])
    m = int(a.numel()) // max(k, 1)
    if m <= CUSTOM_MAX_M:
        return 0
    n = int(shape_b[0])
    nested = kwargs.get("absmax_8bit") is not None or (len(args) > 7 and args[7] is not None)
    blocks = -(-(n * k) // BLOCKSIZE)
    temp = round_block(n * k * a.element_size())
    if nested:
        temp += 2 * round_block(blocks * 4)
    return temp + round_block(m * n * a.element_size())
