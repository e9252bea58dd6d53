"""One real training step of the installed transformers + peft code on fake CPU tensors (needs torch).

The recipe (shared/reference/exact-measurement.md, "How the tool does it"):

1. build the model from its config on the ``meta`` device in the chosen dtype; enable gradient
   checkpointing (non-reentrant in transformers 5); apply peft (QLoRA: swap the decoder linears
   for bitsandbytes ``Linear4bit`` first);
2. materialise every parameter and buffer as a fake CPU tensor by assigning into
   ``module._parameters`` (``module.to()`` cannot swap fake tensors);
3. prime the optimizer (zero grads + one ``step()``) so its state exists, as in a steady-state
   step; then run ``loss = model(input_ids, labels).loss; loss.backward(); opt.step();
   opt.zero_grad(set_to_none=True)`` under :class:`~triage.measure.counter.LiveBytes`.

``mode="real"`` runs the same step on real (small-random) CPU tensors: the self-test that the
fake run allocates exactly what the real code allocates.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import torch  # type: ignore[import-not-found, unused-ignore]

from triage.measure.counter import LiveBytes
from triage.measure.result import Measurement
from triage.measure.shims import cuda_shims
from triage.measure.spec import MeasureSpec, SpecError

_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


class StepError(RuntimeError):
    """The model code could not run on fake tensors (an op without a fake kernel, a data-dependent branch)."""


def versions() -> dict[str, str]:
    import peft  # type: ignore[import-not-found, unused-ignore]
    import transformers  # type: ignore[import-not-found, unused-ignore]

    out = {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__}
    try:
        import bitsandbytes  # type: ignore[import-not-found, unused-ignore]

        out["bitsandbytes"] = bitsandbytes.__version__
    except Exception:  # bitsandbytes is optional; any import failure just means no QLoRA/8-bit optimizer
        pass
    return out


def build_model(spec: MeasureSpec) -> Any:
    """The model on the meta device, with GC and peft applied, in training mode."""
    from transformers import AutoConfig, AutoModelForCausalLM  # type: ignore[import-not-found, unused-ignore]

    fields = dict(spec.hf_config)
    model_type = fields.pop("model_type")
    try:
        config = AutoConfig.for_model(model_type, **fields)
    except (ValueError, KeyError) as exc:
        raise SpecError(f"{spec.name}: transformers cannot build a {model_type!r} config: {exc}") from None
    config.use_cache = False
    dtype = _DTYPES[spec.dtype]
    try:
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=spec.attn)
    except ValueError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SpecError(f"{spec.name}: transformers cannot build the model: {first}") from None
    if spec.method == "qlora":
        from triage.measure.qlora import quantize_linears

        quantize_linears(model, spec)
    if spec.prepare_kbit:
        from peft import prepare_model_for_kbit_training  # type: ignore[import-not-found, unused-ignore]

        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=spec.gc)
    if spec.gc and not model.is_gradient_checkpointing:
        model.gradient_checkpointing_enable()
    if spec.method in ("lora", "qlora"):
        from peft import LoraConfig, get_peft_model

        lcfg = LoraConfig(
            r=spec.lora_r,
            lora_alpha=spec.lora_alpha or 2 * spec.lora_r,
            target_modules=list(spec.lora_targets),
            lora_dropout=spec.lora_dropout,
            bias="none",
            task_type="CAUSAL_LM",
        )
        try:
            model = get_peft_model(model, lcfg, autocast_adapter_dtype=not spec.lora_same_dtype)
        except ValueError as exc:
            raise SpecError(f"{spec.name}: peft: {exc}") from None
    model.train()
    return model


def _materialise(model: Any, make: Any) -> None:
    """Replace every meta parameter/buffer with ``make(t)``, keeping tied tensors tied."""
    memo: dict[int, Any] = {}
    for module in model.modules():
        for name, param in list(module._parameters.items()):
            if param is None or param.device.type != "meta":
                continue
            if id(param) not in memo:
                new = make(param)
                if isinstance(param, torch.nn.Parameter) and type(param) is torch.nn.Parameter:
                    new = torch.nn.Parameter(new, requires_grad=param.requires_grad)
                else:  # bitsandbytes Params4bit and other subclasses: keep the attributes bnb reads
                    new = _clone_param_attrs(param, new)
                memo[id(param)] = new
            module._parameters[name] = memo[id(param)]
        for name, buf in list(module._buffers.items()):
            if buf is None or buf.device.type != "meta":
                continue
            if id(buf) not in memo:
                memo[id(buf)] = make(buf)
            module._buffers[name] = memo[id(buf)]


def _clone_param_attrs(old: Any, new: Any) -> Any:
    param = torch.nn.Parameter(new, requires_grad=old.requires_grad)
    for attr in (
        "quant_state",
        "quant_type",
        "blocksize",
        "compress_statistics",
        "bnb_quantized",
        "module",
        "quant_storage",
    ):
        if hasattr(old, attr):
            setattr(param, attr, getattr(old, attr))
    return param


def _optimizer(spec: MeasureSpec, params: list[Any], fake: bool) -> Any:
    if spec.optimizer == "sgd":
        return torch.optim.SGD(params, lr=1e-4, foreach=True)
    if spec.optimizer == "adamw8bit":
        try:
            import bitsandbytes as bnb  # type: ignore[import-not-found, unused-ignore]
        except Exception as exc:
            raise SpecError(f"the 8-bit optimizer needs bitsandbytes: {exc}") from None
        from torch._subclasses.fake_tensor import unset_fake_temporarily  # type: ignore[import-not-found, unused-ignore]

        # create_dynamic_map() calls .tolist(): build the quantization maps on real tensors
        original = bnb.functional.create_dynamic_map

        def dynamic_map(*args: Any, **kwargs: Any) -> Any:
            with unset_fake_temporarily():
                real = original(*args, **kwargs)
            return torch.empty(real.shape, dtype=real.dtype) if fake else real

        bnb.functional.create_dynamic_map = dynamic_map
        try:
            return bnb.optim.AdamW8bit(params, lr=1e-4, weight_decay=0.0)
        finally:
            bnb.functional.create_dynamic_map = original
    impl = {"fused": {"fused": True}, "foreach": {"foreach": True}, "forloop": {"foreach": False}}[spec.optim_impl]
    return torch.optim.AdamW(params, lr=1e-4, weight_decay=0.0, **impl)


@contextlib.contextmanager
def _module_tracker(counter: LiveBytes, model: Any) -> Iterator[None]:
    """Keep ``counter.modules`` = the stack of modules running (forward, and checkpoint recompute)."""
    from torch.nn.modules.module import (  # type: ignore[import-not-found, unused-ignore]
        register_module_forward_hook,
        register_module_forward_pre_hook,
    )

    names = {id(m): n for n, m in model.named_modules()}

    def pre(module: Any, args: Any) -> None:
        counter.modules.append(names.get(id(module), type(module).__name__))

    def post(module: Any, args: Any, out: Any) -> None:
        if counter.modules:
            counter.modules.pop()

    handles = [register_module_forward_pre_hook(pre), register_module_forward_hook(post)]
    try:
        yield
    finally:
        for h in handles:
            h.remove()


def measure_step(spec: MeasureSpec, mode: str = "fake", seed: int = 0) -> Measurement:
    """Run one training step of ``spec`` and return its allocated peak and breakdown."""
    if mode not in ("fake", "real"):
        raise SpecError(f"mode must be fake or real; got {mode!r}")
    import warnings

    from torch._subclasses.fake_tensor import FakeTensorMode  # type: ignore[import-not-found, unused-ignore]

    started = time.perf_counter()
    torch.manual_seed(seed)
    with warnings.catch_warnings():  # transformers 5's renames (gradient -> activation checkpointing)
        warnings.simplefilter("ignore", FutureWarning)
        model = build_model(spec)
    fake = mode == "fake"
    counter = LiveBytes(transient=_transient_hook(spec) if fake and spec.cuda_shims else None)
    notes: list[str] = []

    def make(t: Any) -> Any:
        if fake:
            return torch.empty(t.shape, dtype=t.dtype, device="cpu")
        if t.dtype.is_floating_point:
            return (torch.randn(t.shape, dtype=torch.float32) * 0.02).to(t.dtype)
        return torch.zeros(t.shape, dtype=t.dtype)

    outer = FakeTensorMode(allow_fallback_kernels=False) if fake else contextlib.nullcontext()
    try:
        with outer, cuda_shims(spec.cuda_shims, fake) as applied, counter:
            notes.extend(applied)
            with counter.in_phase("setup"):
                if spec.method == "qlora":
                    from triage.measure.qlora import materialise_quantized

                    materialise_quantized(model, spec, fake)
                _materialise(model, make)
            trainable = [p for p in model.parameters() if p.requires_grad]
            vocab = int(model.get_input_embeddings().weight.shape[0])
            with counter.in_phase("inputs"):
                ids = torch.randint(0, vocab, (spec.batch, spec.seq), dtype=torch.long)
            opt = _optimizer(spec, trainable, fake)
            with counter.in_phase("prime"):
                for p in trainable:
                    p.grad = torch.zeros_like(p)
                opt.step()
                opt.zero_grad(set_to_none=True)
            for p in trainable:
                p.register_post_accumulate_grad_hook(lambda q: counter.retag(q.grad, "grads"))
            counter.reset_peak()
            with _module_tracker(counter, model), warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                with counter.in_phase("forward"):
                    loss = model(input_ids=ids, labels=ids, use_cache=False).loss
                with counter.in_phase("backward"):
                    loss.backward()
                del loss
                with counter.in_phase("optimizer"):
                    opt.step()
                    opt.zero_grad(set_to_none=True)
            params_total = sum(_numel(p) for p in model.parameters())
            params_trainable = sum(p.numel() for p in trainable)
    except SpecError:
        raise
    except (RuntimeError, NotImplementedError, TypeError, AttributeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StepError(f"{spec.label()}: the step failed on {mode} tensors: {type(exc).__name__}: {first}") from exc
    breakdown = {k: v for k, v in counter.peak_totals.items() if v}
    return Measurement(
        spec=spec,
        peak_bytes=counter.peak,
        phase=counter.peak_phase,
        op=counter.peak_op,
        module=counter.peak_module,
        breakdown=breakdown,
        params_total=params_total,
        params_trainable=params_trainable,
        seconds=time.perf_counter() - started,
        versions=versions(),
        mode=mode,
        notes=tuple(notes),
    )


def _numel(p: Any) -> int:
    """Parameters a weight stands for (a packed 4-bit weight holds two per byte)."""
    shape = getattr(getattr(p, "quant_state", None), "shape", None)
    if shape is not None:
        return int(torch.Size(shape).numel())
    return int(p.numel())


def _transient_hook(spec: MeasureSpec) -> Any:
    if spec.method != "qlora":
        return None
    from triage.measure.qlora import gemm_4bit_temporary

    return gemm_4bit_temporary
