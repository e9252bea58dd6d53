"""Model architectures: bundled presets, lookup by the names users type, and HF ``config.json``.

An :class:`Architecture` holds the dimensions the estimator needs (hidden size, layers, heads,
KV heads, head dim, MLP width, vocabulary, tied embeddings, gated or plain MLP, norm type) and
knows the linear modules of one decoder layer (:meth:`Architecture.linears`) under the names
peft's ``target_modules`` use for that family.

Presets live in ``data/architectures.yaml`` (package data, read with the safe loader). Lookup
is exact on ids and aliases after normalisation, then fuzzy (rapidfuzz) with a score cut-off.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from triage.datacache import yaml_data

DATA = Path(__file__).resolve().parent / "data"
"""The package data folder (presets)."""


class ArchitectureError(ValueError):
    """An unknown model name or an unreadable/unsupported config.json (``zh``: the same in Chinese, when said)."""

    def __init__(self, message: str, zh: str = "") -> None:
        super().__init__(message)
        self.zh = zh


LAYOUTS = ("llama", "phi3", "neox", "falcon", "phi", "gpt2", "chatglm", "baichuan")


@dataclass(frozen=True)
class Linear:
    """One linear layer of a decoder block."""

    name: str
    """The module name peft's target_modules matches (q_proj, query_key_value, ...)."""
    d_in: int
    d_out: int
    bias: bool
    input_group: str
    """Linears that read the same input tensor share a group (q, k, v read the norm output)."""


@dataclass(frozen=True)
class Architecture:
    """A decoder-only transformer, as far as memory is concerned."""

    id: str
    name: str
    layout: str
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    head_dim: int = 0
    """0 means hidden // heads."""
    tied: bool = False
    mlp: str = "gated"
    """gated (SwiGLU/GeGLU: gate, up, down) or plain (fc1, activation, fc2)."""
    act: str = "silu"
    norm: str = "rms"
    """rms (Llama: fp32 upcast inside), rms_fp32 (Gemma: whole norm in fp32) or layer (LayerNorm)."""
    norms_per_layer: int = 2
    qkv_bias: bool = False
    max_position: int = 4096
    dtype: str = "bf16"
    """The dtype the checkpoint is published in (what torch_dtype="auto" loads)."""
    family: str = ""
    aliases: tuple[str, ...] = ()
    params: int | None = None
    """The published parameter count (checked by tests against the dimensions)."""
    logit_softcap: bool = False
    attn_softcap: bool = False
    default_attn: str | None = None
    learned_positions: bool = False
    attn_dropout: bool = False
    resid_dropout: bool = False
    source: str = "preset"
    """preset, config.json or facts."""
    notes: tuple[str, ...] = field(default=())

    @property
    def hd(self) -> int:
        """The head dimension."""
        return self.head_dim or self.hidden // self.heads

    @property
    def q_width(self) -> int:
        return self.heads * self.hd

    @property
    def kv_width(self) -> int:
        return self.kv_heads * self.hd

    def linears(self) -> list[Linear]:
        """The linear modules of one decoder layer, with peft names and shapes."""
        h, q, kv, f = self.hidden, self.q_width, self.kv_width, self.intermediate
        b = self.qkv_bias
        if self.layout == "llama":
            attn = [
                Linear("q_proj", h, q, b, "attn_in"),
                Linear("k_proj", h, kv, b, "attn_in"),
                Linear("v_proj", h, kv, b, "attn_in"),
                Linear("o_proj", q, h, False, "attn_out"),
            ]
        elif self.layout == "phi3":
            attn = [Linear("qkv_proj", h, q + 2 * kv, False, "attn_in"), Linear("o_proj", q, h, False, "attn_out")]
        elif self.layout in ("neox", "gpt2"):
            qkv = "query_key_value" if self.layout == "neox" else "c_attn"
            out = "dense" if self.layout == "neox" else "c_proj"
            attn = [Linear(qkv, h, q + 2 * kv, b, "attn_in"), Linear(out, q, h, b, "attn_out")]
        elif self.layout in ("falcon", "chatglm"):
            attn = [Linear("query_key_value", h, q + 2 * kv, b, "attn_in"), Linear("dense", q, h, False, "attn_out")]
        elif self.layout == "baichuan":
            attn = [Linear("W_pack", h, q + 2 * kv, False, "attn_in"), Linear("o_proj", q, h, False, "attn_out")]
        elif self.layout == "phi":
            attn = [
                Linear("q_proj", h, q, True, "attn_in"),
                Linear("k_proj", h, kv, True, "attn_in"),
                Linear("v_proj", h, kv, True, "attn_in"),
                Linear("dense", q, h, True, "attn_out"),
            ]
        else:  # pragma: no cover - validated at load
            raise ArchitectureError(f"unknown layout {self.layout!r}")
        mb = self.layout in ("neox", "gpt2", "phi", "falcon") and self.layout != "falcon"
        if self.layout == "phi3":
            mlp = [Linear("gate_up_proj", h, 2 * f, False, "mlp_in"), Linear("down_proj", f, h, False, "mlp_out")]
        elif self.layout == "chatglm":
            mlp = [Linear("dense_h_to_4h", h, 2 * f, False, "mlp_in"), Linear("dense_4h_to_h", f, h, False, "mlp_out")]
        elif self.mlp == "gated":
            mlp = [
                Linear("gate_proj", h, f, False, "mlp_in"),
                Linear("up_proj", h, f, False, "mlp_in"),
                Linear("down_proj", f, h, False, "mlp_out"),
            ]
        else:
            names = {
                "neox": ("dense_h_to_4h", "dense_4h_to_h"),
                "falcon": ("dense_h_to_4h", "dense_4h_to_h"),
                "gpt2": ("c_fc", "c_proj"),
                "phi": ("fc1", "fc2"),
            }.get(self.layout, ("fc1", "fc2"))
            mlp = [Linear(names[0], h, f, mb, "mlp_in"), Linear(names[1], f, h, mb, "mlp_out")]
        return attn + mlp

    # ------------------------------------------------------------------ parameter counts

    def linear_params(self) -> int:
        """Parameters in the linears of all decoder layers (what bitsandbytes quantizes)."""
        return self.layers * sum(lin.d_in * lin.d_out for lin in self.linears())

    def bias_params(self) -> int:
        return self.layers * sum(lin.d_out for lin in self.linears() if lin.bias)

    def norm_params(self) -> int:
        per = 2 * self.hidden if self.norm == "layer" else self.hidden
        return (self.layers * self.norms_per_layer + 1) * per

    def embedding_params(self) -> int:
        """Input embedding (plus learned positions)."""
        return self.vocab * self.hidden + (self.max_position * self.hidden if self.learned_positions else 0)

    def lm_head_params(self) -> int:
        """0 when tied to the input embedding; Phi-2's lm_head also has a bias."""
        if self.tied:
            return 0
        return self.vocab * self.hidden + (self.vocab if self.layout == "phi" else 0)

    def total_params(self) -> int:
        return (
            self.linear_params()
            + self.bias_params()
            + self.norm_params()
            + self.embedding_params()
            + self.lm_head_params()
        )

    def layer_params(self) -> int:
        """Parameters of one decoder layer (linears, biases, norms)."""
        per_norm = 2 * self.hidden if self.norm == "layer" else self.hidden
        return (
            sum(lin.d_in * lin.d_out + (lin.d_out if lin.bias else 0) for lin in self.linears())
            + self.norms_per_layer * per_norm
        )


# ---------------------------------------------------------------------- presets


def _norm_name(text: str) -> str:
    """Lower-case, drop an org prefix and punctuation: 'meta-llama/Llama-2-7b-hf' -> 'llama27bhf'."""
    low = text.strip().lower()
    return re.sub(r"[^a-z0-9.]", "", low).replace(".", "")


def _strip_org(text: str) -> str:
    return text.strip().rsplit("/", 1)[-1]


_FIELDS = {f for f in Architecture.__dataclass_fields__}


def _from_preset(raw: Mapping[str, Any]) -> Architecture:
    data = {k: v for k, v in raw.items() if k in _FIELDS}
    unknown = set(raw) - _FIELDS
    if unknown:
        raise ArchitectureError(f"preset {raw.get('id')}: unknown keys {sorted(unknown)}")
    data["aliases"] = tuple(str(a) for a in raw.get("aliases", ()))
    arch = Architecture(**data)
    if arch.layout not in LAYOUTS:
        raise ArchitectureError(f"preset {arch.id}: unknown layout {arch.layout!r}")
    return arch


@cache
def presets() -> tuple[Architecture, ...]:
    """Every bundled architecture preset."""
    (data,) = yaml_data("architectures", [DATA / "architectures.yaml"])
    return tuple(_from_preset(item) for item in data["models"])


@cache
def _index() -> dict[str, Architecture]:
    out: dict[str, Architecture] = {}
    for arch in presets():
        for name in (arch.id, arch.name, *arch.aliases):
            for key in {_norm_name(name), _norm_name(_strip_org(name))}:
                out.setdefault(key, arch)
    return out


_SUFFIXES = ("hf", "instruct", "chat", "chathf", "base", "it", "deduped")


def find_architecture(name: str) -> Architecture | None:
    """The preset for a model name as users type it, or None.

    Exact match on normalised ids/aliases first (with and without the org prefix and a
    trailing -hf/-instruct/-chat), then a fuzzy match (rapidfuzz WRatio >= 90) on the keys.
    """
    index = _index()
    for candidate in (name, _strip_org(name)):
        key = _norm_name(candidate)
        if key in index:
            return index[key]
        for suffix in _SUFFIXES:
            if key.endswith(suffix) and key[: -len(suffix)] in index:
                return index[key[: -len(suffix)]]
    key = _norm_name(_strip_org(name))
    if len(key) < 4:
        return None
    from rapidfuzz import fuzz, process

    best = process.extractOne(key, list(index), scorer=fuzz.ratio, score_cutoff=88)
    if best is None:
        return None
    found = index[best[0]]
    # digits carry the size: never let "llama13b" fuzzy-match "llama3b"
    if re.findall(r"\d+", key) != re.findall(r"\d+", best[0]):
        return None
    return found


def nearest_by_params(params_b: float) -> Architecture:
    """The Llama-family preset whose parameter count is closest to ``params_b`` billion."""
    family = [a for a in presets() if a.layout == "llama" and a.family in ("", "mistral", "qwen2")]
    return min(family, key=lambda a: abs(a.total_params() / 1e9 - params_b))


# ---------------------------------------------------------------------- HF config.json

_MODEL_TYPES = {
    "llama": "llama",
    "mistral": "llama",
    "qwen2": "llama",
    "qwen3": "llama",
    "gemma": "llama",
    "gemma2": "llama",
    "gemma3_text": "llama",
    "yi": "llama",
    "internlm2": "llama",
    "deepseek": "llama",
    "olmo": "llama",
    "olmo2": "llama",
    "granite": "llama",
    "cohere": "llama",
    "starcoder2": "neox",
    "phi3": "phi3",
    "gpt_neox": "neox",
    "falcon": "falcon",
    "RefinedWeb": "falcon",
    "RefinedWebModel": "falcon",
    "phi": "phi",
    "gpt2": "gpt2",
    "chatglm": "chatglm",
    "baichuan": "baichuan",
}
_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


def _first(cfg: Mapping[str, Any], *keys: str, default: Any = None) -> Any:
    for key in keys:
        if cfg.get(key) is not None:
            return cfg[key]
    return default


def from_hf_config(cfg: Mapping[str, Any], source: str = "config.json") -> Architecture:
    """An :class:`Architecture` from the fields of a Hugging Face ``config.json``."""
    if "text_config" in cfg and isinstance(cfg["text_config"], Mapping) and "hidden_size" not in cfg:
        cfg = cfg["text_config"]
    model_type = str(cfg.get("model_type", "llama"))
    layout = _MODEL_TYPES.get(model_type)
    if layout is None:
        raise ArchitectureError(
            f"{source}: model_type {model_type!r} is not supported by the estimator yet; "
            f"supported: {', '.join(sorted(_MODEL_TYPES))}",
            f"{source}：估算器还不支持 model_type {model_type!r}；支持的有：{', '.join(sorted(_MODEL_TYPES))}",
        )
    if _first(cfg, "num_local_experts", "num_experts", "n_routed_experts"):
        raise ArchitectureError(
            f"{source}: mixture-of-experts models are not supported by the estimator yet",
            f"{source}：估算器还不支持混合专家（MoE）模型",
        )
    try:
        hidden = int(_first(cfg, "hidden_size", "n_embd", "d_model"))
        layers = int(_first(cfg, "num_hidden_layers", "n_layer", "num_layers"))
        heads = int(_first(cfg, "num_attention_heads", "n_head"))
        vocab = int(_first(cfg, "padded_vocab_size", "vocab_size"))
    except (TypeError, ValueError):
        raise ArchitectureError(
            f"{source}: needs hidden_size, num_hidden_layers, num_attention_heads and vocab_size",
            f"{source}：需要 hidden_size、num_hidden_layers、num_attention_heads 和 vocab_size",
        ) from None
    kv = _first(cfg, "num_key_value_heads", "multi_query_group_num", "num_kv_heads")
    if kv is None:
        kv = 1 if cfg.get("multi_query") and not cfg.get("new_decoder_architecture") else heads
    plain = layout in ("neox", "falcon", "phi", "gpt2")
    inter = _first(cfg, "intermediate_size", "ffn_hidden_size", "n_inner")
    if inter is None:
        inter = 4 * hidden if plain else int(8 * hidden / 3)
    act = str(_first(cfg, "hidden_act", "hidden_activation", "activation_function", default="silu"))
    act = {"gelu_pytorch_tanh": "gelu_tanh", "swiglu": "silu"}.get(act, act)
    norm = "layer" if layout in ("neox", "falcon", "phi", "gpt2") else "rms"
    if model_type.startswith("gemma"):
        norm = "rms_fp32"
    norms = 2
    if layout == "phi" or (layout == "falcon" and not cfg.get("new_decoder_architecture")):
        norms = 1
    if model_type in ("gemma2", "gemma3_text"):
        norms = 4
    tied = bool(cfg.get("tie_word_embeddings", layout in ("gpt2", "falcon")))
    if layout == "chatglm":
        tied = False
    dtype = _DTYPES.get(str(_first(cfg, "torch_dtype", "dtype", default="bfloat16")), "bf16")
    name = str(_first(cfg, "_name_or_path", default=model_type)) or model_type
    head_dim = _first(cfg, "head_dim", "kv_channels", default=0)
    return Architecture(
        id=_norm_name(_strip_org(name)) or model_type,
        name=name,
        layout=layout,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=int(kv),
        intermediate=int(inter),
        vocab=vocab,
        head_dim=int(head_dim or 0),
        tied=tied,
        mlp="plain" if plain else "gated",
        act=act,
        norm=norm,
        norms_per_layer=norms,
        qkv_bias=bool(
            _first(
                cfg,
                "attention_bias",
                "qkv_bias",
                "add_qkv_bias",
                "bias",
                default=model_type in ("qwen2", "gpt_neox", "gpt2", "phi"),
            )
        ),
        max_position=int(_first(cfg, "max_position_embeddings", "n_positions", "seq_length", default=4096)),
        dtype=dtype,
        family=model_type,
        logit_softcap=bool(cfg.get("final_logit_softcapping")),
        attn_softcap=bool(cfg.get("attn_logit_softcapping")),
        learned_positions=layout == "gpt2",
        attn_dropout=float(_first(cfg, "attn_pdrop", "attention_dropout", default=0.0) or 0.0) > 0,
        resid_dropout=float(_first(cfg, "resid_pdrop", "hidden_dropout", default=0.0) or 0.0) > 0,
        source=source,
    )


def read_config_json(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """The parsed ``config.json`` (or the one in a directory) and its path; one-line errors."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
    try:
        with p.open(encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ArchitectureError(f"cannot read {p}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ArchitectureError(f"{p}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise ArchitectureError(f"{p}: a config.json must be a JSON object")
    return p, data


def load_hf_config(path: str | Path) -> Architecture:
    """Read ``config.json`` (or a directory holding one) into an :class:`Architecture`."""
    p, data = read_config_json(path)
    return from_hf_config(data, source=str(p))


def with_dims(arch: Architecture, dims: Mapping[str, int]) -> Architecture:
    """``arch`` with some dimensions replaced (facts such as hidden_size override a preset)."""
    changes: dict[str, Any] = {k: v for k, v in dims.items() if k in _DIMS}
    if not changes:
        return arch
    changes["source"] = f"{arch.source} + facts"
    return replace(arch, **changes)


_DIMS = frozenset({"hidden", "layers", "heads", "kv_heads", "intermediate", "vocab"})
