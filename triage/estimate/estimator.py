"""The training-memory estimator: allocated bytes, component by component, phase by phase.

Formulas and their sources are in shared/reference/memory-formulas.md; the activation terms
follow Korthikanti et al. 2022 (arXiv 2205.05198) adapted to Llama-class decoders, tensor by
tensor (what autograd saves for backward), and are checked against the fake-tensor
measurements in shared/reference/exact-measurement.md (transformers 5, peft 0.21, torch 2.13).

Phases of one training step (the peak is the largest):

* ``backward`` at its *start*: weights, optimizer state, every saved activation and the loss
  block (fp32 logits, log-softmax and their gradients). LoRA/QLoRA runs peak here.
* ``backward`` at its *end*: weights, optimizer state and all gradients (full fine-tuning).
* ``optimizer``: weights, state, gradients and the step's temporaries (foreach AdamW makes a
  full-size copy).
* ``evaluation`` and ``generation`` when the run is in (or includes) them.

The CUDA context, cuBLAS workspaces, NCCL buffers and allocator fragmentation are *not* in
the components: they form the separate :class:`Band` ``device_total`` (low/expected/high).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from triage.estimate.architecture import Architecture
from triage.estimate.optimizers import optimizer_spec
from triage.estimate.run import BYTES, Assumption, Run, RunError, run_from_facts

if TYPE_CHECKING:
    from triage.facts import FactSet

GiB = 1024**3
MiB = 1024**2

#: Saved f-wide tensors of the MLP activation function (HF's python gelu_new saves four).
ACT_SAVED = {"silu": 1, "gelu": 1, "gelu_tanh": 1, "relu": 1, "gelu_new": 4, "gelu_fast": 4, "swish": 1}
_EMBED_NAMES = {"embed_tokens", "wte", "embed_in", "word_embeddings", "embedding", "embeddings", "tok_embeddings"}
_HEAD_NAMES = {"lm_head", "embed_out", "output_layer", "output"}


@dataclass(frozen=True)
class Component:
    """One memory component: its bytes and the formula that gave them."""

    name: str
    bytes: int
    formula: str

    @property
    def gib(self) -> float:
        return self.bytes / GiB


@dataclass(frozen=True)
class Phase:
    """Live bytes at one moment of the run."""

    name: str
    """backward, optimizer, evaluation or generation (the values of the ``phase`` fact)."""
    detail: str
    components: Mapping[str, int]

    @property
    def total(self) -> int:
        return sum(self.components.values())


@dataclass(frozen=True)
class BandItem:
    """One part of the memory outside PyTorch's allocated counter."""

    name: str
    low: int
    expected: int
    high: int
    why: str


@dataclass(frozen=True)
class Band:
    """What the device holds in total: allocated peak plus the overheads, low/expected/high."""

    low: int
    expected: int
    high: int
    items: tuple[BandItem, ...]


@dataclass(frozen=True)
class Estimate:
    """The estimate of one run."""

    run: Run
    sizes: Mapping[str, Component]
    """Every component, sized (whether or not it is live at the peak)."""
    phases: tuple[Phase, ...]
    peak: Phase
    device_total: Band
    capacity_bytes: int | None
    fits: bool | None
    """device_total.expected <= capacity (None when the GPU is unknown)."""
    tensors: Mapping[str, int] = field(default_factory=dict)
    """Single large tensors the run allocates (for the OOM fingerprint)."""
    notes: tuple[str, ...] = ()

    @property
    def peak_bytes(self) -> int:
        """Peak allocated bytes (what ``torch.cuda.max_memory_allocated`` would report)."""
        return self.peak.total

    @property
    def peak_phase(self) -> str:
        return self.peak.name

    @property
    def components(self) -> dict[str, int]:
        """Bytes of each component live at the peak (zeros left out)."""
        return {k: v for k, v in self.peak.components.items() if v > 0}

    @property
    def assumptions(self) -> tuple[Assumption, ...]:
        return self.run.assumptions

    @property
    def largest_component(self) -> str:
        comps = self.components
        return max(comps, key=lambda k: comps[k]) if comps else "weights"

    @property
    def weights_bytes(self) -> int:
        return self.sizes["weights"].bytes

    def to_json(self) -> dict[str, Any]:
        """The ``triage estimate --format json`` contract."""

        def gib(n: int) -> float:
            return round(n / GiB, 3)

        return {
            "model": self.run.arch.name,
            "gpu": self.run.gpu.name if self.run.gpu else None,
            "peak_allocated_gib": gib(self.peak_bytes),
            "peak_phase": self.peak_phase,
            "peak_detail": self.peak.detail,
            "device_total_gib": {
                "low": gib(self.device_total.low),
                "expected": gib(self.device_total.expected),
                "high": gib(self.device_total.high),
            },
            "overheads": [
                {
                    "name": i.name,
                    "low_gib": gib(i.low),
                    "expected_gib": gib(i.expected),
                    "high_gib": gib(i.high),
                    "why": i.why,
                }
                for i in self.device_total.items
            ],
            "components": {k: gib(v) for k, v in self.components.items()},
            "formulas": {k: self.sizes[k].formula for k in self.components if k in self.sizes},
            "phases": {f"{p.name}:{p.detail}": gib(p.total) for p in self.phases},
            "fits": self.fits,
            "gpu_capacity_gib": gib(self.capacity_bytes) if self.capacity_bytes else None,
            "assumptions": [a.to_json() for a in self.assumptions],
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------------- pieces


def _adapter_modules(run: Run) -> list[tuple[str, int, int, str]]:
    """(name, d_in, d_out, input_group) of every LoRA-targeted linear in one layer."""
    if not run.lora:
        return []
    linears = run.arch.linears()
    wanted = set(run.lora_targets)
    found = [(lin.name, lin.d_in, lin.d_out, lin.input_group) for lin in linears if lin.name in wanted]
    unknown = wanted - {lin.name for lin in linears} - _EMBED_NAMES - _HEAD_NAMES
    if not found:
        raise RunError(
            f"lora_target_modules {','.join(run.lora_targets)} match no module of {run.arch.name}; "
            f"its linears are {', '.join(lin.name for lin in linears)}"
        )
    if unknown:
        pass  # reported as a note by estimate_run
    return found


def _weights(run: Run) -> tuple[int, str]:
    a = run.arch
    lin = a.linear_params()
    other = a.total_params() - lin
    other_bytes = 4 if run.prepare_kbit else run.w_bytes
    if run.quantization == "4bit":
        per = 0.5 + (1 / 64 + 4 / (64 * 256) if run.double_quant else 4 / 64)
        qbytes = int(lin * per)
        formula = (
            f"{lin:,} block-linear params x {per:.4f} B (NF4{' + double quant' if run.double_quant else ''})"
            f" + {other:,} embedding/lm_head/norm params x {other_bytes} B"
        )
    elif run.quantization == "8bit":
        rows = a.layers * sum(x.d_out for x in a.linears())
        qbytes = lin + 4 * rows
        formula = (
            f"{lin:,} block-linear params x 1 B (int8) + fp32 row scales + {other:,} other params x {other_bytes} B"
        )
    else:
        if run.prepare_kbit:
            return 4 * a.total_params(), (
                f"{a.total_params():,} params x 4 B: prepare_model_for_kbit_training on a "
                "model that is not quantized casts every fp16/bf16 weight to fp32"
            )
        return a.total_params() * run.w_bytes, f"{a.total_params():,} params x {run.w_bytes} B ({run.weight_dtype})"
    if run.prepare_kbit:
        formula += " (prepare_model_for_kbit_training upcasts these to fp32)"
    return qbytes + other * other_bytes, formula


def _param_bytes(run: Run) -> int:
    """Bytes per element of the trainable parameters of a full/freeze fine-tune."""
    return 4 if run.prepare_kbit else run.w_bytes


def _trainable(run: Run) -> tuple[int, int, list[tuple[int, int]], int, str]:
    """(trainable params, bytes per param, 2-D shapes for factored optimizers, largest param, formula)."""
    a = run.arch
    if run.lora:
        mods = _adapter_modules(run)
        r = run.lora_r
        adapters = a.layers * sum(r * (d_in + d_out) for _, d_in, d_out, _ in mods)
        shapes = [(r, d_in) for _, d_in, _, _ in mods] * a.layers + [(d_out, r) for _, _, d_out, _ in mods] * a.layers
        largest = max(r * max(d_in, d_out) for _, d_in, d_out, _ in mods)
        formula = (
            f"{a.layers} layers x r={r} x sum(d_in+d_out) over {','.join(m[0] for m in mods)} = {adapters:,} params"
        )
        if run.trainable_override:
            adapters = run.trainable_override
            formula = f"trainable_params_b = {adapters:,} params (given)"
        return adapters, 4, shapes, largest, formula
    if run.method == "freeze":
        k = min(run.freeze_layers_trained, a.layers)
        n = run.trainable_override or k * a.layer_params()
        shapes = [(x.d_out, x.d_in) for x in a.linears()] * k
        largest = max(x.d_in * x.d_out for x in a.linears())
        return n, _param_bytes(run), shapes, largest, f"last {k} decoder layers trainable = {n:,} params"
    n = run.trainable_override or a.total_params()
    shapes = [(x.d_out, x.d_in) for x in a.linears()] * a.layers + [(a.vocab, a.hidden)] * (1 if a.tied else 2)
    largest = a.vocab * a.hidden
    return n, _param_bytes(run), shapes, largest, f"all {n:,} params trainable"


def _modules_to_save(run: Run) -> tuple[int, str]:
    if not run.lora or not run.modules_to_save:
        return 0, ""
    a = run.arch
    count = sum(1 for m in run.modules_to_save if m in _EMBED_NAMES | _HEAD_NAMES)
    n = count * a.vocab * a.hidden
    dtype = 4 if run.prepare_kbit else run.w_bytes
    return n * dtype, (
        f"{count} trainable copies (modules_to_save) of a {a.vocab}x{a.hidden} matrix x {dtype} B = {n:,} params"
    )


def _layer_saved(run: Run, trainable_linears: bool) -> tuple[int, int, int]:
    """Bytes saved for backward per token by one decoder layer, split (non-attention, attention core, s-term).

    The s-term is the per-token cost that grows with the sequence (eager's probabilities:
    heads·s·(4+e)); the attention core is what the attention kernel saves besides.
    """
    a, e = run.arch, run.e
    h, f, qw, kvw = a.hidden, a.intermediate, a.q_width, a.kv_width
    saved = 0
    # norms
    per_norm = e * h + 8 if a.norm == "layer" else 4 * h + (4 * h if a.norm == "rms_fp32" and trainable_linears else 0)
    saved += a.norms_per_layer * per_norm
    # inputs of linears: groups, LoRA copies
    widths = {"attn_in": h, "attn_out": qw, "mlp_in": h, "mlp_out": f}
    mods = _adapter_modules(run) if run.lora else []
    for group, width in widths.items():
        in_group = [m for m in mods if m[3] == group]
        shared = trainable_linears
        for _ in in_group:
            if e != 4:  # peft casts the input to the fp32 adapter dtype, one copy per adapted module
                saved += 4 * width
            else:
                shared = True
            saved += 4 * run.lora_r  # lora_A output, saved for lora_B's weight gradient
            if run.lora_dropout > 0:
                saved += width  # the dropout's bool mask
        if shared:
            saved += e * width
    # attention core
    expanded = run.attn == "eager" or (
        run.attn == "sdpa" and run.transformers_version is not None and run.transformers_version < Version("4.48.0")
    )
    kv_saved = qw if expanded and a.kv_heads != a.heads else kvw
    fused_qkv = a.layout in ("phi3", "neox", "falcon", "chatglm", "baichuan", "gpt2")
    core = e * qw + e * kv_saved  # q and k after RoPE
    core += e * (qw + 2 * kvw) if fused_qkv else e * kv_saved  # v (a view keeps the fused qkv output alive)
    s_term = 0
    if run.attn == "eager":
        s_term = a.heads * run.seq * (4 + (e if e != 4 else 0))
        if a.attn_softcap:
            s_term += a.heads * run.seq * e
        if a.attn_dropout:
            s_term += a.heads * run.seq * (1 + e)
    else:
        core += e * qw + 4 * a.heads  # output and fp32 logsumexp
    # MLP
    if a.mlp == "gated":
        saved += 3 * e * f  # gate (activation input), activation output, up
    else:
        saved += ACT_SAVED.get(a.act, 1) * e * f
    if a.resid_dropout:
        saved += 2 * h
    return saved, core, s_term


def estimate_run(run: Run) -> Estimate:
    """Size every component of ``run`` and find the peak."""
    a, e = run.arch, run.e
    sizes: dict[str, Component] = {}
    notes: list[str] = []

    def put(name: str, n: float, formula: str) -> int:
        sizes[name] = Component(name, int(n), formula)
        return int(n)

    unknown_targets = set(run.lora_targets) - {x.name for x in a.linears()} - _EMBED_NAMES - _HEAD_NAMES
    if run.lora and unknown_targets:
        notes.append(f"lora_target_modules {', '.join(sorted(unknown_targets))} are not modules of {a.name}; ignored")

    w, wf = _weights(run)
    weights = put("weights", w, wf)
    n_train, p_bytes, shapes, largest, tf = _trainable(run)
    spec = optimizer_spec(run.optimizer)
    adapters = (
        put("lora_adapters", n_train * 4, f"{tf} x 4 B (fp32 adapters, peft autocast_adapter_dtype)") if run.lora else 0
    )
    mts_bytes, mts_formula = _modules_to_save(run)
    mts = put("modules_to_save", mts_bytes, mts_formula) if mts_bytes else 0
    mts_params = mts // (4 if run.prepare_kbit else run.w_bytes) if mts else 0
    train_params = n_train + mts_params
    train_bytes_el = 4 if run.lora else p_bytes  # bytes per trainable element (adapters fp32)
    grads_full = n_train * train_bytes_el + mts
    in_bwd = run.optimizer_in_backward or spec.fused_backward
    if run.optimizer_in_backward and run.grad_accum > 1:
        notes.append("optimizer-in-backward cannot be combined with gradient accumulation")

    # sharding degree of each kind of state
    d = run.gpu_count
    ds, fsdp = run.distributed == "deepspeed", run.distributed == "fsdp"
    shard_state = d if (ds or fsdp) and run.zero_stage >= 1 else 1
    shard_grads = d if (ds or fsdp) and run.zero_stage >= 2 else 1
    shard_params = d if (ds or fsdp) and run.zero_stage >= 3 else 1
    off_state = run.offload and (ds or fsdp)
    off_params = run.offload and ((ds and run.zero_stage >= 3) or fsdp)

    grads = 0 if in_bwd else grads_full
    grads_note = f"{train_params:,} trainable params x {train_bytes_el} B"
    if in_bwd:
        grads = largest * train_bytes_el
        grads_note = "optimizer step fused into backward: only one parameter's gradient at a time"
    if shard_grads > 1:
        grads //= shard_grads
        grads_note += f" / {shard_grads} GPUs (ZeRO-{run.zero_stage})"
    if off_state and run.zero_stage >= 2:
        grads = 0
        grads_note += "; offloaded to CPU after reduction"
    put("gradients", grads, grads_note)

    # optimizer state
    state_el = spec.state_bytes if spec.state_bytes is not None else train_bytes_el
    if ds:
        state_el = 4 if spec.state_bytes is None or spec.state_bytes >= 4 else spec.state_bytes
    if spec.factored and spec.name.startswith(("adafactor", "adalomo")):
        elements = sum(r + c for r, c in shapes) + (0 if run.lora else a.norm_params() + a.bias_params())
        state = elements * 4
        state_formula = f"factored second moment: rows+cols of each matrix = {elements:,} x 4 B"
    elif spec.factored:  # GaLore / APOLLO: low-rank projected states, rank 128 by default
        rank = 128
        proj = sum(min(r, c) and (rank * max(r, c) + rank * min(r, c)) for r, c in shapes if min(r, c) > rank)
        small = sum(r * c for r, c in shapes if min(r, c) <= rank)
        state = int((proj * spec.states + small * spec.states) * (spec.state_bytes or 4))
        state_formula = f"low-rank (rank {rank}) projected states of the trainable matrices ({spec.name})"
    else:
        state = int((train_params) * spec.states * state_el)
        state_formula = f"{train_params:,} trainable params x {spec.states:g} states x {state_el:g} B ({spec.name})"
    master = 0
    if ds and not run.lora and run.weight_dtype != "fp32":
        master = train_params * 4
    if ds and run.lora and state_el == 4 and train_bytes_el != 4:
        master = train_params * 4
    if shard_state > 1:
        state //= shard_state
        master //= shard_state
        state_formula += f" / {shard_state} GPUs (ZeRO-{run.zero_stage})"
    if off_state:
        state, master = 0, 0
        state_formula += "; offloaded to CPU"
    paged = spec.paged and not off_state
    put(
        "optimizer_state" if not paged else "optimizer_state_paged",
        state,
        state_formula
        + (
            "; paged: in CUDA unified memory, outside PyTorch's counters, evicted to CPU under pressure"
            if paged
            else ""
        ),
    )
    optimizer_state = 0 if paged else state
    if master:
        put(
            "master_weights",
            master,
            f"fp32 master copy of {train_params:,} trainable params (DeepSpeed)"
            + (f" / {shard_state}" if shard_state > 1 else ""),
        )
    # step temporaries
    temps = 0
    if spec.temps == "foreach" and not in_bwd:
        temps = int(train_params * max(spec.states, 1) / max(spec.states, 1) * state_el) // shard_state
        temps_formula = "foreach step: one temporary the size of the whole state tensor list (_foreach_sqrt)"
    elif spec.temps == "loop":
        temps = largest * train_bytes_el * 2
        temps_formula = "for-loop step: temporaries of the largest parameter"
    elif spec.temps == "fp32_loop":
        temps = largest * 4 * 3
        temps_formula = "Adafactor step: fp32 copies of the largest parameter, its gradient and the update"
    else:
        temps_formula = "fused step: no large temporaries"
    if off_state:
        temps = 0
    put("optimizer_temps", temps, temps_formula)

    # weights under ZeRO-3 / FSDP full shard / model parallel
    weights_live = weights
    if shard_params > 1 or off_params:
        working = 2 * a.layer_params() * run.w_bytes + a.vocab * a.hidden * run.w_bytes
        base = 0 if off_params else weights // shard_params
        weights_live = base + working
        sizes["weights"] = Component(
            "weights",
            weights_live,
            f"{wf}; sharded over {shard_params} GPUs"
            + (" and offloaded to CPU" if off_params else "")
            + " + gathered working set (two decoder layers and the embedding)",
        )
    if run.distributed == "model_parallel" and d > 1:
        per_layer = weights - a.embedding_params() * run.w_bytes - a.lm_head_params() * run.w_bytes
        weights_live = per_layer // d + (a.lm_head_params() or a.embedding_params()) * run.w_bytes
        sizes["weights"] = Component(
            "weights", weights_live, f"{wf}; layers split over {d} GPUs (device_map), the last GPU also holds lm_head"
        )

    # ------------------------------------------------------------ activations
    tokens = run.tokens
    trainable_linears = run.method == "full"
    layer_saved, core, s_term = _layer_saved(run, trainable_linears)
    per_layer_token = layer_saved + core + s_term
    layers_saving = a.layers if run.method != "freeze" else min(run.freeze_layers_trained, a.layers)
    if run.method == "freeze":
        trainable_linears = True
        layer_saved, core, s_term = _layer_saved(run, True)
        per_layer_token = layer_saved + core + s_term
    lp = run.distributed == "model_parallel" and d > 1
    if lp:
        layers_saving = math.ceil(layers_saving / d)
    model_level = 4 * a.hidden if a.norm != "layer" else e * a.hidden + 8
    lm_trainable = (
        run.method == "full"
        or any(m in _HEAD_NAMES for m in run.modules_to_save)
        or (a.tied and any(m in _EMBED_NAMES for m in run.modules_to_save))
    )
    if lm_trainable:
        model_level += e * a.hidden
    if a.resid_dropout:
        model_level += a.hidden
    if run.gc:
        # prepare_model_for_kbit_training makes the embedding fp32, so the residual stream is fp32
        resid = 4 if run.prepare_kbit else e
        act = layers_saving * resid * a.hidden * tokens + model_level * tokens
        act_formula = (
            f"gradient checkpointing: {layers_saving} layer inputs x {resid} B x h={a.hidden} x "
            f"{tokens:,} tokens (b={run.batch} x s={run.seq}) + final norm"
        )
    else:
        act = layers_saving * (layer_saved + core) * tokens + model_level * tokens
        act_formula = (
            f"{layers_saving} layers x {(layer_saved + core):,} B/token saved for backward x "
            f"{tokens:,} tokens (b={run.batch} x s={run.seq}); attention {run.attn}"
        )
    put("activations", act, act_formula)
    scores = 0 if run.gc or not s_term else layers_saving * s_term * tokens
    if s_term:
        put(
            "attention_scores",
            scores if not run.gc else a.heads * run.batch * run.seq**2 * (4 + e),
            f"eager attention keeps fp32 softmax + {run.compute_dtype} probabilities: "
            f"{layers_saving if not run.gc else 1} layer(s) x b={run.batch} x {a.heads} heads x s²={run.seq}² x "
            f"{4 + e} B" + (" (gradient checkpointing: only the layer being recomputed)" if run.gc else ""),
        )
    # logits and loss
    if run.fused_loss:
        chunk = max(1, tokens // max(1, math.ceil(a.vocab / a.hidden)))
        loss = tokens * e * a.hidden + chunk * a.vocab * 8
        loss_formula = (
            f"fused/chunked cross-entropy: gradient of the hidden states ({tokens:,} x {a.hidden} x {e} B) "
            f"+ one chunk of {chunk:,} tokens x V={a.vocab} x 8 B"
        )
    else:
        # Measured with the fake-tensor oracle (docs/validation.md) and matching the reference table:
        # three b·s·V fp32 tensors are live at the peak (_log_softmax_backward_data), with or without
        # checkpointing: the log-softmax output, its incoming gradient and the gradient being produced.
        n_v = 3
        loss = tokens * a.vocab * 4 * n_v + (tokens * a.vocab * e if a.logit_softcap else 0)
        loss_formula = (
            f"fp32 logits, log-softmax and their gradients at the start of backward: "
            f"{n_v} x {tokens:,} tokens x V={a.vocab} x 4 B"
        )
    put("logits_loss", loss, loss_formula)
    mask = 0
    if run.attn == "eager" or (run.padded and run.attn in ("sdpa", "xformers")):
        mask = run.batch * run.seq**2 * e
        put("attention_mask", mask, f"4-D attention mask b={run.batch} x s²={run.seq}² x {e} B")
    buffers = 0
    tfv = run.transformers_version
    if (
        tfv is not None
        and Version("4.38.0") <= tfv < Version("4.39.0")
        and a.layout == "llama"
        and a.family in ("", "llama", "gemma")
    ):
        buffers = 8 * a.max_position**2
        put(
            "causal_mask_buffer",
            buffers,
            f"transformers 4.38 registers an int64 causal_mask of "
            f"max_position_embeddings² = {a.max_position}² x 8 B (transformers #29484)",
        )
    autocast = 0
    if run.compute_dtype != run.weight_dtype and run.quantization == "none":
        cast_params = (a.linear_params() // a.layers if run.gc else a.linear_params()) + a.vocab * a.hidden
        autocast = cast_params * e
        put(
            "autocast_copies",
            autocast,
            f"autocast keeps {run.compute_dtype} copies of the {run.weight_dtype} "
            "linear weights for backward" + (" (one layer at a time with checkpointing)" if run.gc else ""),
        )
    comm = 0
    if run.distributed == "ddp" and d > 1:
        comm = grads_full
        put(
            "comm_buffers",
            comm,
            "DDP gradient buckets: a second copy of the trainable gradients (gradient_as_bucket_view=False)",
        )
    elif ds and run.zero_stage >= 2:
        comm = 2 * a.hidden * a.hidden * e
        put("comm_buffers", comm, "ZeRO reduce/all-gather buckets (HF 'auto': hidden² elements each)")

    # recompute peak inside one layer during backward (gradient checkpointing)
    recompute = 0
    if run.gc:
        bwd_transient = e * (2 * a.hidden + 2 * a.intermediate)
        if s_term:
            bwd_transient += a.heads * run.seq * 5
        recompute = (per_layer_token + bwd_transient) * tokens
        put(
            "recompute",
            recompute,
            f"one decoder layer recomputed during backward: {per_layer_token + bwd_transient:,}"
            f" B/token x {tokens:,} tokens",
        )

    # tied input/output embeddings in a full fine-tune: at the end of backward the embedding's
    # gradient exists three times at once (the lm_head use already in .grad, the embedding
    # backward's output and their sum) -- measured with the fake-tensor oracle, docs/validation.md
    tied_grads = 0
    if run.method == "full" and a.tied and not in_bwd and shard_grads == 1:
        tied_grads = 2 * a.vocab * a.hidden * _param_bytes(run)
        put(
            "tied_embedding_grads",
            tied_grads,
            f"tied embeddings: 2 extra copies of the embedding gradient at the "
            f"end of backward: 2 x V={a.vocab} x h={a.hidden} x {_param_bytes(run)} B",
        )

    # ------------------------------------------------------------ phases
    accum_grads = grads if run.grad_accum > 1 and not in_bwd else 0
    static = {
        "weights": weights_live,
        "lora_adapters": adapters,
        "modules_to_save": mts,
        "optimizer_state": optimizer_state,
        "master_weights": master,
        "causal_mask_buffer": buffers,
    }
    start = dict(
        static,
        gradients=accum_grads,
        activations=act,
        attention_scores=scores,
        logits_loss=loss,
        attention_mask=mask,
        autocast_copies=autocast,
        comm_buffers=comm if accum_grads else 0,
    )
    phases = [Phase("backward", "start of backward: saved activations and the loss", start)]
    if run.gc:
        # the loss block is gone; all layer inputs still live while the last layer is recomputed
        inner = dict(
            static,
            gradients=accum_grads + (0 if in_bwd else adapters if run.lora else 0),
            activations=act,
            recompute=recompute,
            attention_mask=mask,
            autocast_copies=autocast,
            comm_buffers=comm if accum_grads else 0,
        )
        if s_term:
            inner["attention_scores"] = sizes["attention_scores"].bytes
            inner["recompute"] = recompute - sizes["attention_scores"].bytes
        phases.append(Phase("backward", "inside backward: one checkpointed layer recomputed", inner))
    phases.append(
        Phase(
            "backward",
            "end of backward: all gradients",
            dict(static, gradients=grads, comm_buffers=comm, tied_embedding_grads=tied_grads),
        )
    )
    if not in_bwd:
        phases.append(
            Phase(
                "optimizer", "optimizer step", dict(static, gradients=grads, optimizer_temps=temps, comm_buffers=comm)
            )
        )

    tensors: dict[str, int] = {
        "logits_fp32": tokens * a.vocab * 4,
        "logits_fp32_shifted": run.batch * max(run.seq - 1, 1) * a.vocab * 4,
        "logits": tokens * a.vocab * e,
        "mlp_activation": tokens * a.intermediate * e,
        "mlp_activation_fp32": tokens * a.intermediate * 4,
        "hidden_states_fp32": tokens * a.hidden * 4,
        "optimizer_state_tensor": int(largest * (state_el if spec.states else 0)),
        "largest_gradient": largest * train_bytes_el,
        "foreach_temporary": temps if spec.temps == "foreach" else 0,
    }
    if run.attn == "eager" or run.phase != "training":
        tensors["attention_scores_fp32"] = run.batch * a.heads * run.seq**2 * 4
        tensors["attention_scores"] = run.batch * a.heads * run.seq**2 * e

    # evaluation and generation
    eval_static = dict(static, lora_adapters=adapters)
    if run.phase == "evaluation":
        be = run.eval_batch
        ev_tokens = be * run.seq
        fwd = ev_tokens * a.vocab * (e + 8)
        layer_peak = ev_tokens * a.intermediate * e * 3
        if run.attn == "eager":
            layer_peak = max(layer_peak, be * a.heads * run.seq**2 * (4 + e))
        acc = 0
        if run.compute_metrics and not run.preprocess_logits:
            kept = (
                run.eval_samples
                if run.eval_accumulation_steps is None
                else min(run.eval_samples, run.eval_accumulation_steps * be)
            )
            acc = 2 * kept * run.seq * a.vocab * e
            put(
                "eval_logits",
                acc,
                f"Trainer accumulates the logits of {kept:,} eval samples on the GPU "
                f"(x2 while concatenating): {kept:,} x s={run.seq} x V={a.vocab} x {e} B",
            )
        put(
            "eval_forward",
            fwd + layer_peak,
            f"eval forward (no grad): logits + fp32 loss copies for "
            f"{be} x {run.seq} tokens, plus one layer's largest intermediate",
        )
        phases.append(
            Phase(
                "evaluation",
                "evaluation forward with accumulated predictions",
                dict(eval_static, eval_forward=fwd + layer_peak, eval_logits=acc),
            )
        )
        tensors["eval_logits_step"] = ev_tokens * a.vocab * e
    if run.phase == "generation":
        bb = run.eval_batch * run.num_beams
        total_len = run.seq + run.max_new_tokens
        kv = 2 * a.layers * bb * total_len * a.kv_width * e
        put(
            "kv_cache",
            kv,
            f"KV cache 2 x {a.layers} layers x {bb} sequences (batch x beams) x "
            f"{total_len} tokens x {a.kv_width} x {e} B",
        )
        old = tfv is not None and tfv < Version("4.45.0")
        prefill_logits = bb * (run.seq if old else 1) * a.vocab * 4
        prefill = prefill_logits + (
            bb * a.heads * run.seq**2 * (4 + e) if run.attn == "eager" else bb * run.seq * a.intermediate * e * 3
        )
        put(
            "generation_prefill",
            prefill,
            "prefill: fp32 logits of "
            + ("every prompt position (transformers < 4.45)" if old else "the last position")
            + " + one layer's largest intermediate",
        )
        phases.append(
            Phase(
                "generation",
                "generate(): KV cache at the last token",
                dict(eval_static, kv_cache=kv, generation_prefill=prefill),
            )
        )
        tensors["kv_cache_step"] = 2 * bb * a.kv_width * e
        tensors["generation_logits"] = prefill_logits

    if run.phase in ("evaluation", "generation"):
        peak = max(phases[len(phases) - 1 :], key=lambda p: p.total)
    else:
        peak = max(phases, key=lambda p: p.total)
    allocated = peak.total
    band = _band(run, allocated, sizes["weights"].bytes)
    fits = None if run.capacity_bytes is None else band.expected <= run.capacity_bytes
    return Estimate(
        run=run,
        sizes=sizes,
        phases=tuple(phases),
        peak=peak,
        device_total=band,
        capacity_bytes=run.capacity_bytes,
        fits=fits,
        tensors=tensors,
        notes=tuple(notes),
    )


# ---------------------------------------------------------------------- overheads


def _band(run: Run, allocated: int, weights_bytes: int) -> Band:
    """Memory outside PyTorch's allocated counter, each part explained."""
    items: list[BandItem] = []
    cc = run.gpu.capability if run.gpu else None
    old = cc is not None and cc < 8.0
    if old:
        items.append(
            BandItem(
                "cuda_context",
                int(0.4 * GiB),
                int(0.8 * GiB),
                int(1.5 * GiB),
                "CUDA context and kernels per process; 1.0-1.3 GB on pre-Ampere boards with older CUDA "
                "(HF model_memory_anatomy: 1343 MB on a V100), ~0.3-0.5 GB with lazy loading",
            )
        )
    else:
        items.append(
            BandItem(
                "cuda_context",
                int(0.25 * GiB),
                int(0.5 * GiB),
                int(1.0 * GiB),
                "CUDA context per process: ~300-430 MB with lazy module loading (CUDA >= 11.7, "
                "PyTorch >= 1.13; pytorch PR #86509), up to ~1 GB without it",
            )
        )
    hopper = cc is not None and cc >= 9.0
    items.append(
        BandItem(
            "cublas_workspace",
            8 * MiB,
            (32 if hopper else 16) * MiB,
            (96 if hopper else 64) * MiB,
            "cuBLAS/cuBLASLt workspaces (allocated through the caching allocator on a GPU; the "
            "fake-tensor oracle does not see them)",
        )
    )
    if run.expandable_segments:
        frac = (0.0, 0.01, 0.03)
        why = "expandable_segments:True maps pages into one growing segment, so little is lost to fragmentation"
    elif run.method == "full":
        frac = (0.005, 0.06, 0.12)
        why = "caching-allocator segments and fragmentation: 0.5-12% over the allocated peak for full fine-tuning"
    else:
        frac = (0.01, 0.04, 0.08)
        why = "caching-allocator segments and fragmentation: 1-8% over the allocated peak for LoRA"
    if run.padded and not run.expandable_segments:
        frac = (frac[0], frac[1] * 1.5, max(frac[2], 0.3))
        why += "; padded batches of varying length fragment more (up to ~30-50%)"
    lo, mid, hi = (allocated * f for f in frac)
    if run.quantization != "none" and not run.expandable_segments:
        # QLoRA's many mid-size quantized-weight allocations land in 20 MiB segments: the replay in
        # exact-measurement.md puts reserved 7-19% over allocated for QLoRA runs of 5-15 GiB
        qw = weights_bytes
        lo, mid, hi = lo + 0.06 * qw, mid + 0.14 * qw, hi + 0.25 * qw
        why += "; plus ~14% of the quantized weights (segment slack of QLoRA's many mid-size blocks)"
    items.append(BandItem("allocator", int(lo), int(mid), int(hi), why))
    if run.gpu_count > 1 and run.distributed != "none":
        items.append(
            BandItem(
                "nccl",
                int(0.2 * GiB),
                int(0.5 * GiB),
                int(1.5 * GiB),
                "NCCL communicator buffers per process (up to several GB with many peers)",
            )
        )
    if run.other_process_bytes:
        n = run.other_process_bytes
        items.append(
            BandItem("other_processes", n, n, n, "memory other processes hold on this GPU (from the OOM message)")
        )
    return Band(
        allocated + sum(i.low for i in items),
        allocated + sum(i.expected for i in items),
        allocated + sum(i.high for i in items),
        tuple(items),
    )


def estimate(facts: FactSet | Mapping[str, Any], arch: Architecture | None = None) -> Estimate:
    """Estimate the run the facts describe (``arch`` overrides the model, e.g. from a config.json)."""
    return estimate_run(run_from_facts(facts, arch))


__all__ = ["BYTES", "Band", "BandItem", "Component", "Estimate", "Phase", "estimate", "estimate_run"]
