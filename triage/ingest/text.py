# ruff: noqa: E501  (bilingual pattern tables: CJK characters count double towards the line length)
"""Read free text, English and Chinese: what the user wrote around (or instead of) their logs.

Patterns for the things people say ("bs=4", "max_length 2048", "A100 80GB", "Qwen2.5-7B",
"transformers 4.31", "序列长度2048", "显存24G", "训练到第100步OOM", "评估时爆显存"), config keys
written inline (``--cutoff_len 4096``), and on/off statements with their negations
("梯度检查点已开启", "没开gradient checkpointing", "without packing"), with fuzzy matching
(rapidfuzz) for misspelt vocabulary. A number without a word that says what it is never
becomes a fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from triage.hardware.gpus import GiB, MiB, mentions, names_pattern
from triage.ingest.clauses import AFFIRM, CLAUSE, NEGATE, hypothetical, negated
from triage.ingest.config import PER_DEVICE_BATCH_KEYS, RULES
from triage.ingest.fixes import (
    CHANGED_TO_LINE,
    FAILED,
    FIX_HEADING,
    HEADING,
    TAKE_AWAY,
    describes_a_fix,
    tells_a_fix,
    tried_in_vain,
)
from triage.ingest.found import Found, excerpt
from triage.ingest.lines import iter_text_lines
from triage.ingest.model_names import MOE_SIZES, MOE_WORDS, model_in_line, worked_size
from triage.ingest.phase_words import (
    ASKS_IF_SUPPORTED,
    ZH_CARD_OVERFLOW,
    fails_while_loading,
    loads_for_inference,
    phases_in_order,
)

_I = re.IGNORECASE | re.ASCII  # ASCII word boundaries: "用的QLoRA" has one before Q
#: Chinese verbs that set a value to a new one: "batch_size调到1", "cutoff_len从4096降到2048".
_CHANGED_TO = "调到|调成|调为|调整为|调整到|改成|改为|改到|降到|降低到|降为|减到|减小到|减少到"
#: Chinese verbs that raise a value: "cutoff_len 从 1024 加到 4096", "batch_size 从 2 调大到 8".
_RAISED_TO = "加到|增加到|增大到|提高到|提升到|调大到|调高到|升到|改大到|加大到"
_SEP = (
    r"\s*(?:=|:|：|\bof\b|\bis\b|\bwas\b|(?:都|均|也|已经?|要|需要|得)?(?:为|是|设为了?|设置为了?|设成了?|设置成了?|设到了?|到|设置?(?:的|了)?(?=\s*\d))|已经|"
    # "max_length也只有512"
    r"(?:也|都)?只有(?=\s*\d)|"
    r"(?:都)?(?:已经?)?(?:" + _CHANGED_TO + r")了?|开到?(?=\s*\d)|"
    r"(?:(?:is|was|has\s+been|have\s+been)\s+)?(?:already\s+)?"
    r"(?:set(?:ting)?|reduc(?:ed|ing|e)|lower(?:ed|ing)?|decreas(?:ed|ing|e)|drop(?:ped|ping)?|cut(?:ting)?)\s+"
    r"(?:it\s+)?(?:all\s+the\s+way\s+)?(?:down\s+)?to|"
    r"(?:down\s+)?to\b)?\s*"  # "reducing the batch size to 1": the value the run had (or a fix, told apart by its clause)
)

#: Config keys people paste inline, as ``--key value``, ``key=value`` or ``key: value``.
INLINE_KEYS = (
    "per_device_train_batch_size", "per_device_eval_batch_size", "gradient_accumulation_steps", "max_seq_length",
    "max_length", "cutoff_len", "sequence_len", "block_size", "model_max_length", "max_new_tokens", "num_beams",
    "gradient_checkpointing", "disable_gradient_checkpointing", "optim", "lora_r", "lora_rank", "lora_target",
    "micro_batch_size", "eval_accumulation_steps", "quantization_bit", "finetuning_type", "attn_implementation",
    "flash_attn", "packing", "sample_packing", "group_by_length", "torch_dtype", "load_in_4bit", "load_in_8bit",
    "bf16", "fp16", "use_cache", "deepspeed", "eval_strategy", "evaluation_strategy", "do_eval", "padding",
    "target_modules", "lora_target_modules", "modules_to_save", "train_micro_batch_size_per_gpu", "train_micro_batch_size",
    "per_gpu_train_batch_size", "max_source_length", "seq_length", "max_completion_length", "stage",
    "device_train_microbatch_size", "sft_type", "train_type",
    # newer trainers' switches: TRL's padding_free and precompute_ref_log_probs, axolotl's pad_to_sequence_len,
    # LLaMA-Factory's neat_packing, the Trainer's use_liger_kernel
    "padding_free", "pad_to_sequence_len", "neat_packing", "use_liger_kernel", "precompute_ref_log_probs",
)  # fmt: skip
_INLINE = re.compile(
    # a command line's flag may spell the key with hyphens ("--batch-size 1", "--max-length 2048")
    r"(?<![\w.-])(?:--)?("
    + "|".join(k.replace("_", "[_-]") for k in sorted(INLINE_KEYS, key=len, reverse=True))
    + r")\b"
    r"[\"'`]?(?:(?:\s*[=:：]\s*|\s*(?:都|均|已经?)?(?:降低|减小|调小|改小|减少|调整|改|调|设置?)?(?:到|为|成)\s*|"
    r"\s*是\s*|\s+(?:(?:lowered|reduced|decreased|changed|set)\s+)?(?:in)?to\s+|\s+)(?!-)"
    # a comma continues a list value ("q_proj,v_proj") but ends a keyword argument ("...,trust_remote_code=True")
    r"((?:[\w./+\-\[\]'\"]|,(?![\w.]+\s*=))+))?",
    _I,
)
#: After a flag's name: not set off ("load_in_4bit = False", "load_in_8bit=False", "'load_in_4bit': false").
_NOT_SET_OFF = r"(?!['\"]?\s*[=:]\s*['\"]?(?:false|0|none|no)\b)"

_BOOL_FLAG = {
    "gradient_checkpointing",
    "disable_gradient_checkpointing",
    "packing",
    "sample_packing",
    "group_by_length",
    "load_in_4bit",
    "load_in_8bit",
    "bf16",
    "fp16",
    "do_eval",
    "use_cache",
}

_SKIP_LINE = re.compile(r"^\s*File \"|^\s*│|Traceback \(most")
#: A path in DeepSpeed's or FSDP's own code, in a traceback frame or a warning: the run uses it
#: ("deepspeed/runtime/zero/stage3.py", "torch/distributed/fsdp/...", verl's "fsdp_workers.py").
_SHARDING_FRAME = re.compile(r"(?<![\w.])deepspeed/runtime/|(?<![\w.])torch/distributed/fsdp/|\bfsdp_workers\.py\b")
#: The figures of a pasted PyTorch OOM message (after its start on the same line).
_OOM_DETAIL = re.compile(r"Tried to allocate|total capacity|already allocated|reserved by PyTorch|\bGPU \d+ has")
#: Where a pasted OOM message starts; the user's own words before it on the same line are still read.
_OOM_START = re.compile(
    r"(?:torch\.)?(?:cuda\.)?OutOfMemoryError|CUDA out of memory|Tried to allocate|total capacity|already allocated"
)
_HINT = re.compile(r"If reserved (?:but unallocated )?memory is [^.]*?(?:try setting|try)[^.]*\.(?:\s*See[^.]*\.)?", _I)


@dataclass(frozen=True)
class Toggle:
    """An on/off vocabulary term: its regex, a phrase for fuzzy matching, and what on/off mean."""

    pattern: re.Pattern[str]
    phrase: str | None
    on: list[tuple[str, object]]
    off: list[tuple[str, object]]
    inactive: tuple[tuple[str, object], ...] = ()
    """What "X is on but does not take effect" means, for terms where that is a state of its own."""


TOGGLES = (
    Toggle(
        re.compile(
            r"gradient[ _-]?checkpoint(?:ing|s)?|grad(?:ient)?[ _-]?ckpt|activation[ _-]checkpointing|"
            # its other names: JAX's and Keras' rematerialization, Megatron's activation recomputation
            r"\bremat(?:eriali[sz]ation)?\b|activation[ _-]recomputation|\brecompute[ _-]activations?\b|"
            r"梯度检查点|梯度checkpoint|(?:激活)?重计算",
            _I,
        ),
        "gradient checkpointing",
        [("gradient_checkpointing", True)],
        [("gradient_checkpointing", False)],
        (("gradient_checkpointing", True), ("gc_active", False)),
    ),
    Toggle(
        re.compile(r"expandable[ _]segments(?::\s*true)?", _I),
        "expandable segments",
        [("expandable_segments", True)],
        [("expandable_segments", False)],
    ),
    Toggle(
        re.compile(r"\b(?:sample[ _])?packing\b|序列打包|样本打包", _I), None, [("packing", True)], [("packing", False)]
    ),
    Toggle(
        re.compile(r"flash[ _-]?attn(?:[ _-]?2)?|flash[ _-]?attention(?:[ _-]?2)?|\bfa2\b", _I),
        "flash attention",
        [("attn_implementation", "flash_attention_2")],
        [],
    ),
    Toggle(re.compile(r"\bdeepspeed\b", _I), None, [("distributed", "deepspeed")], []),
    Toggle(re.compile(r"\bfsdp2?\b", _I), None, [("distributed", "fsdp")], []),
    Toggle(
        # activation offloading ("activation_cpu_offload", "offload activations") moves activations, not states
        re.compile(
            r"(?<![a-z])(?<!activation_)(?<!activation_cpu_)(?<!activation )(?<!activations )"
            r"(?:cpu[ _-]?)?offload(?:ing)?(?![a-z])(?!\s+(?:the\s+)?activations?)|卸载到\s*cpu",
            _I,
        ),
        None,
        [("offload", True)],
        [("offload", False)],
    ),
    Toggle(re.compile(r"group[ _]by[ _]length", _I), None, [("group_by_length", True)], [("group_by_length", False)]),
    Toggle(re.compile(r"use[ _]cache", _I), None, [("use_cache", True)], [("use_cache", False)]),
    Toggle(re.compile(r"\bcompute_metrics\b", _I), None, [("compute_metrics", True)], [("compute_metrics", False)]),
)
#: Words that take a setting away: "if I remove compute_metrics, it works", "去掉 --fp16 就好了".
_REMOVED = re.compile(
    r"\b(?:remov(?:e|ed|ing)|drop(?:ped|ping)?|disabl(?:e|ed|ing)|turn(?:ed|ing)?\s+off|comment(?:ed|ing)?\s+out|without)\s+"
    r"(?:the\s+|my\s+|`)?[\w`-]*$|(?:去掉|删掉|去除|关掉|关闭|注释掉)\s*[\w`-]*$",
    _I,
)

Extract = Callable[[re.Match[str]], list[tuple[str, object]]]


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _kilo_tokens(n: float) -> int:
    """Tokens in "Nk": 1024 each for a power of two ("4k" = 4096, "128k" = 131072, as context windows
    are), 1000 otherwise ("20k" = 20000, "200k" = 200000, as people round counts)."""
    whole = int(n)
    return whole * 1024 if n == whole and whole & (whole - 1) == 0 else int(n * 1000)


def _sample_tokens(m: re.Match[str]) -> list[tuple[str, object]]:
    group = next(g for g in ("n", "z", "y") if m.group(g))
    value, k = m.group(group), m.group({"n": "k", "z": "zk", "y": "yk"}[group])
    number = _kilo_tokens(_num(value)) if k else _num(value)
    return [("max_sample_tokens", int(number))] if 256 <= number <= 10_000_000 else []


def _tokens(m: re.Match[str]) -> list[tuple[str, object]]:
    value, k = m.group("n"), m.group("k")
    number = _kilo_tokens(_num(value)) if k else _num(value)
    return [("max_length", int(number))] if number >= 16 else []


_HELD = re.compile(
    r"(?:占用?了?|用了|用掉了?|消耗了?|耗了|吃了|还剩|剩余?|释放了?)\s*(?:大概|大约|约|差不多|将近|接近)?\s*$"
)


#: A rise to a size: "then suddenly jumps to 80GB", "peaks at 70GB".
_RISE_TO = r"\b(?:jumps?|jumped|spikes?|spiked|climbs?|climbed|rises?|rose|peaks?|peaked)\s+(?:up\s+)?(?:to|at)"
#: An English verb of use and its hedge, right before a size: "uses about", "takes ~", "eats up".
_USE_VERB = (
    r"(?:\b(?:uses?|using|used|takes?|taking|took|consum\w*|occup\w*|costs?|costing|eats?|eating|sucks?|sucking|hogs?|hogging)\s+(?:up\s+)?|"
    # usage as the subject, or a rise to a size: "memory usage stays around 20GB", "then suddenly jumps to 80GB"
    r"\b(?:memory|vram|gpu)\s+(?:usage|use|consumption|footprint)\s+"
    r"(?:(?:stays?|stayed|is|was|sits?|hovers?|remains?|reach(?:es|ed)?|peaks?|peaked)\s+)?(?:at\s+)?|"
    # memory that stays at a size is in use, not the card: "memory stays constant at 20GB", "VRAM hovers around 18GB"
    r"\b(?:memory|vram)\s+(?:stays?|stayed|sits?|hovers?|remains?|remained)\s+(?:(?:constant|stable|flat|steady)\s+)?(?:at\s+)?|"
    + _RISE_TO
    + r"\s+|\b(?:grows?|grew|goes\s+up|went\s+up)\s+(?:up\s+)?(?:to|at)\s+)"
    r"(?:(?:about|around|nearly|almost|over|roughly)\s+|~\s*)?"
)
#: That verb ending the text before a size: "it uses about 30GB of VRAM" says what was used, not the card's.
_USES = re.compile(_USE_VERB + r"$", _I)


#: Words after a size that make it what is left over: "有20GB的显存是盈余的", "20G空闲".
_SPARE = re.compile(
    r"\s*(?:的)?\s*(?:显存)?\s*(?:是|都是|还是)?\s*(?:盈余|空余|剩余|富余|空闲|多余|余量|可用|free\b|spare\b|left\b|unused\b|"
    # "Only about 1.6 GiB of GPU memory available"
    r"(?:of\s+)?(?:gpu\s+|cuda\s+)?(?:memory\s+|vram\s+)?(?:is\s+|are\s+)?(?:still\s+)?available\b)",
    _I,
)


def _gpu_memory(m: re.Match[str]) -> list[tuple[str, object]]:
    before = m.string[max(0, m.start() - 40) : m.start()]
    if _HELD.search(before[-8:]) or _SPARE.match(m.string, m.end()) or _USES.search(before):
        return []  # "被占用了15G显存", "还剩8G", "20GB的显存是盈余的", "uses 30GB of VRAM": used or left, not the card's
    return _card_size(m)


def _card_size(m: re.Match[str]) -> list[tuple[str, object]]:
    """The card's memory from the match's ``n`` (GB), when it is a size (over 256: a total, see _per_card)."""
    gib = _num(m.group("n"))
    return [("gpu_memory_bytes", int(gib * GiB))] if 1 <= gib <= 2048 else []


#: Bits said right after "QLoRA": "QLORA 8bit for Llama3 70B" quantizes to 8 bits, not QLoRA's usual 4.
_QLORA_BITS = re.compile(r"\s*[(（]?\s*(?:with\s+|in\s+|用\s*)?(?:(8)[- ]?bits?|int(8)|(4)[- ]?bits?|int(4))\b", _I)


def _qlora(m: re.Match[str]) -> list[tuple[str, object]]:
    bits = _QLORA_BITS.match(m.string, m.end())
    eight = bits is not None and (bits.group(1) or bits.group(2))
    return [("finetune_method", "qlora"), ("quantization", "8bit" if eight else "4bit")]


def _gptq_awq(m: re.Match[str]) -> list[tuple[str, object]]:
    """A GPTQ or AWQ checkpoint or tool: 4-bit weights (as they are almost always published), quantized by it."""
    return [("quantization", "4bit"), ("quant_method", "awq" if "awq" in m.group(0).lower() else "gptq")]


_DTYPE_WORDS = {
    "bfloat16": "bf16", "bf16": "bf16", "float16": "fp16", "fp16": "fp16", "half": "fp16", "16": "fp16",
    "float32": "fp32", "fp32": "fp32",
}  # fmt: skip


def _weights_dtype(m: re.Match[str]) -> list[tuple[str, object]]:
    """The weights' dtype from :data:`_PATTERN_TABLE`'s dtype row: a float32 cast, else the word said."""
    if m.group("f"):
        return [("torch_dtype", "fp32")]
    word = next(g for g in (m.group(k) for k in ("d", "p", "t", "z", "l")) if g).lower()
    return [("torch_dtype", _DTYPE_WORDS[word])]


def _card_memory(m: re.Match[str]) -> list[tuple[str, object]]:
    """A size written before a card's name ("32G V100", "用 32GB 的 V100"): the card's, whatever verb precedes it."""
    return [] if _HELD.search(m.string[max(0, m.start() - 8) : m.start()]) else _card_size(m)


def _gpu_memory_mib(m: re.Match[str]) -> list[tuple[str, object]]:
    """ "显存为11264MiB", as nvidia-smi prints it: rounded to the card's nominal GB when it is one."""
    if _HELD.search(m.string[max(0, m.start() - 8) : m.start()]):
        return []
    gib = int(m.group("mib")) / 1024
    nominal = min(_GPU_MEMORY_SIZES, key=lambda size: abs(size - gib))
    return [("gpu_memory_bytes", int((nominal if abs(nominal - gib) <= 0.06 * nominal else gib) * GiB))]


#: Memory sizes of cards, in GB.
_CARD_SIZES = frozenset({6.0, 8.0, 10.0, 11.0, 12.0, 16.0, 20.0, 22.0, 24.0, 32.0, 40.0, 48.0, 80.0})
#: A card's name right before a size: "1080Ti，11GB内存" and "a k80 (24gb of RAM)" (transformers#10754) are the
#: card's memory, not the host's.
_CARD_BEFORE = re.compile(
    r"\b(?:(?:rtx|gtx)?\s*\d{4}\s*(?:ti|super)?|(?:tesla\s*)?[kmptvalh]\d{1,3}[gs]?|(?:rtx\s*)?a\d{4})"
    r"\s*[，,、(（\s]\s*$",
    re.IGNORECASE,
)


def _ram(m: re.Match[str]) -> list[tuple[str, object]]:
    if _CARD_BEFORE.search(m.string[max(0, m.start() - 16) : m.start()]) and _num(m.group("n")) in _CARD_SIZES:
        return []  # a card's own size ("1080Ti，11GB内存"); "3090，64G内存" is still the host's
    return [("host_ram_bytes", int(_num(m.group("n")) * GiB))]


#: Published sizes (billions of parameters) of small models named without one.
_SMALL_MODELS = {
    "gpt2": 0.124, "gpt2-medium": 0.355, "gpt2-large": 0.774, "gpt2-xl": 1.5,
    "bert-base": 0.11, "bert-large": 0.34, "distilbert-base": 0.066,
    "roberta-base": 0.125, "roberta-large": 0.355, "distilroberta-base": 0.082,
    "xlm-roberta-base": 0.278, "xlm-roberta-large": 0.56,
    "t5-small": 0.06, "t5-base": 0.22, "t5-large": 0.77, "bart-base": 0.14, "bart-large": 0.4,
    "flan-t5-small": 0.077, "flan-t5-base": 0.248, "flan-t5-large": 0.783, "flan-t5-xl": 2.85, "flan-t5-xxl": 11.3,
    "mt5-small": 0.3, "mt5-base": 0.58, "mt5-large": 1.23, "mt5-xl": 3.7, "mt5-xxl": 13.0,
    "xlnet-base": 0.117, "xlnet-large": 0.36, "electra-base": 0.11, "electra-large": 0.335,
    "deberta-base": 0.14, "deberta-large": 0.4, "deberta-v3-base": 0.184, "deberta-v3-large": 0.435,
    "longformer-base": 0.149, "longformer-large": 0.435,
    "bge-small": 0.033, "bge-base": 0.11, "bge-large": 0.335, "bge-m3": 0.568,
    "bge-reranker-base": 0.278, "bge-reranker-large": 0.56, "bge-reranker-v2-m3": 0.568,
    "florence-2-base": 0.23, "florence-2-large": 0.77,
    "whisper-tiny": 0.039, "whisper-base": 0.074, "whisper-small": 0.244, "whisper-medium": 0.769,
    "whisper-large": 1.55,
}  # fmt: skip
#: The names of :data:`_SMALL_MODELS` as a pattern: longest first, "-" also written "_", " " or left out
#: (and "GPT-2" as people write it).
_SMALL_NAMES = "|".join(
    re.escape(name).replace(r"\-", "[-_ ]?").replace("gpt2", "gpt[-_ ]?2")
    for name in sorted(_SMALL_MODELS, key=len, reverse=True)
)
_SMALL_BY_KEY = {name.replace("-", ""): size for name, size in _SMALL_MODELS.items()}


def _small_model(m: re.Match[str]) -> list[tuple[str, object]]:
    """A small model named without its size: its published parameter count."""
    return [("model_params_b", _SMALL_BY_KEY[re.sub(r"[-_ ]", "", m.group("s").lower())])]


def _params(m: re.Match[str]) -> list[tuple[str, object]]:
    if re.search(r"(?:昇腾|ascend|atlas)\s*$", m.string[max(0, m.start() - 8) : m.start()], re.IGNORECASE):
        return []  # "昇腾910B" is an NPU, not a model size
    value = _num(m.group("n"))
    if value == 910 and re.match(r"\s*[bB]\d?(?![A-Za-z0-9])", m.string[m.end("n") :]):
        return []  # "8卡910B", "910B2": Ascend's NPU named alone; no model has 910 billion parameters
    return [("model_params_b", value)] if 0.01 <= value <= 2000 else []


def _count(word: str) -> int | None:
    words = {
        "one": 1,
        "two": 2,
        "three": 3,
        "four": 4,
        "five": 5,
        "six": 6,
        "seven": 7,
        "eight": 8,
        "single": 1,
        "dual": 2,
        "单": 1,
        "一": 1,
        "双": 2,
        "两": 2,
        "二": 2,
        "三": 3,
        "四": 4,
        "五": 5,
        "六": 6,
        "七": 7,
        "八": 8,
    }
    return int(word) if word.isdigit() else words.get(word.lower())


#: Several machines of several cards each: "8机*8卡A100", "两个8卡A100", "两台8卡机器", "2 nodes x 8 GPUs",
#: "2 nodes with 8 A100s each". The run's card count is the product.
_NODES = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<a>\d{1,3}|[两二三四五六七八])\s*(?:个|台)\s*(?:机器?|节点)?\s*[*x×]?\s*(?:每台|每个)?\s*(?P<b>\d{1,2})\s*卡"
    r"(?=[^\n]{0,12}?(?:[A-Za-z]|机|节点|服务器|显卡))|"
    r"(?<![A-Za-z0-9_.])(?P<c>\d{1,3}|[两二三四五六七八])\s*(?:机|台机器?|个节点|节点)\s*[*x×，,]?\s*(?:每台|每个)?\s*(?P<d>\d{1,2})\s*(?:卡|张)|"
    r"\b(?P<e>\d{1,3}|two|three|four|eight)\s+(?:nodes?|machines?|servers?|hosts?)\s*(?:x|×|\*|with|of|,)\s*"
    r"(?P<f>\d{1,2})\s*(?:x\s*)?(?:\w+\s+)?(?:gpus?|cards?|[AHBL]\d{2,3}s?|v100s?)\b",
    _I,
)


def _node_gpus(m: re.Match[str]) -> list[tuple[str, object]]:
    nodes = _count(m.group("a") or m.group("c") or m.group("e"))
    per = _count(m.group("b") or m.group("d") or m.group("f"))
    if not nodes or not per or nodes < 2:
        return []
    return [("gpu_count", nodes * per)] if nodes * per <= 1024 else []


#: Right before a count of cards, words that leave one out: "the other 3 cards are fine", "其他3张卡显存正常".
_THE_OTHER = re.compile(r"\bthe\s+other\s+$|(?:其他|其它|其余|另外|剩下的?)\s*$", _I)


def _with_the_one(m: re.Match[str], count: int | None) -> int | None:
    """The machine's count when the text counts the cards other than the one it is about ("GPU 0 OOMs, the other 3
    cards are fine" is four cards)."""
    return count + 1 if count and _THE_OTHER.search(m.string[max(0, m.start() - 16) : m.start()]) else count


def _gpus(m: re.Match[str]) -> list[tuple[str, object]]:
    count = _with_the_one(m, _count(m.group("n")))
    return [("gpu_count", count)] if count and 1 <= count <= 1024 else []


def _moe(m: re.Match[str]) -> list[tuple[str, object]]:
    key = (int(m.group(1)), int(m.group(2)))
    return [("model_params_b", MOE_SIZES[key])] if key in MOE_SIZES else []


def _simple(name: str, value: object | None = None, group: str = "n") -> Extract:
    def extract(m: re.Match[str]) -> list[tuple[str, object]]:
        return [(name, value if value is not None else m.group(group))]

    return extract


_VERSION_NAMES = {
    "transformers": "transformers_version",
    "torch": "torch_version",
    "pytorch": "torch_version",
    "peft": "peft_version",
    "trl": "trl_version",
    "accelerate": "accelerate_version",
    "bitsandbytes": "bitsandbytes_version",
    "bnb": "bitsandbytes_version",
    "deepspeed": "deepspeed_version",
    "flashattn": "flash_attn_version",
    "flashattention": "flash_attn_version",
}


def _version_fact(package: str) -> str | None:
    """The version fact of a package as written ("flash-attn", "bnb"), if it has one."""
    return _VERSION_NAMES.get(re.sub(r"[-_ ]", "", package.lower()))


def _version(m: re.Match[str]) -> list[tuple[str, object]]:
    name = _version_fact(m.group("pkg"))
    return [(name, m.group("v"))] if name is not None else []


_OPTIMIZERS = {"8-bit adam": "adamw_8bit", "8bit adam": "adamw_8bit", "8 bit adam": "adamw_8bit"}


def _optimizer(m: re.Match[str]) -> list[tuple[str, object]]:
    text = m.group(0).lower()
    return [("optimizer", _OPTIMIZERS.get(text, text))]


_TRAINERS = {
    "dpo": "dpo",
    "sft": "sft",
    "ppo": "ppo",
    "kto": "kto",
    "orpo": "orpo",
    "grpo": "grpo",
    "reward model": "reward",
    "reward modeling": "reward",
    "sfttrainer": "sft",
    "dpotrainer": "dpo",
    "grpotrainer": "grpo",
    "ppotrainer": "ppo",
    # a trainer's config class names its trainer: "SFTConfig(activation_offloading=True)"
    "sftconfig": "sft",
    "dpoconfig": "dpo",
    "grpoconfig": "grpo",
    "ppoconfig": "ppo",
    "ktoconfig": "kto",
    "orpoconfig": "orpo",
    "奖励模型": "reward",
}


_TRAINER_CLASS = re.compile(r"\b(?:SFT|DPO|GRPO|PPO)Trainer\b")


def _trainer(m: re.Match[str]) -> list[tuple[str, object]]:
    said = m.group(0).lower().strip()
    value = "reward" if said.startswith("reward") else _TRAINERS.get(said)
    return [("trainer_type", value)] if value else []


#: What happened to the run, never a change that made it work: "batch size 改成1了还是爆显存" changed the batch.
_NOT_A_FIX = frozenset({"error_kind", "memory_growth", "trained_before_oom", "oom_step", "phase", "out_of_scope"})

#: Facts that say how another one was done ("load_in_8bit" is bitsandbytes' 8 bits): the change that made a run work
#: is the other fact (quantization), never these.
_SAYS_HOW = frozenset({"quant_method"})

#: The run's settings (what a question can ask whether to use), unlike what the run is (model, GPU, method).
_SETTINGS = frozenset(
    {
        "batch_size", "eval_batch_size", "grad_accum", "max_length", "quantization", "torch_dtype", "mixed_precision",
        "gradient_checkpointing", "attn_implementation", "offload", "zero_stage", "optimizer", "use_cache", "packing",
        "lora_r", "max_new_tokens", "num_beams", "device_map", "expandable_segments",
    }
)  # fmt: skip


#: A guess, in the clause before what it names: "maybe some library causes ...", "I wonder if there might be ...",
#: "does LoRA cause ...?", "是否有", "是不是", "疑似", "可能是", "怀疑". ("There seems to be a leak" is said as seen.)
_GUESSED = re.compile(
    r"\b(?:maybe|perhaps|possibly|might|wonder(?:ing)?|suspect(?:s|ed|ing)?)\b|是否|是不是|疑似|可能是|可能有|怀疑|"
    # a question only right before what it names ("is there a memory leak", "does LoRA cause a memory leak", "有没有显存泄漏"),
    # not "is there a fix for this memory leak" or "有没有人遇到过显存泄漏" (asked about a leak they see)
    r"\b(?:(?:is|are)\s+there|(?:does|did|do|could|can)\s+(?:the\s+|a\s+|an\s+|my\s+|this\s+|it\s+)?[\w.-]+\s+"
    r"(?:cause|causes|caused|have|has|create|lead\s+to))\s+(?:a|an|any|some|the)?\s*(?:\w+\s+){0,2}$|有没有(?!人)",
    _I,
)


def _unless_guessed(extract: Extract) -> Extract:
    """An extractor that yields nothing when its match is only guessed at in its own clause."""

    def guarded(m: re.Match[str]) -> list[tuple[str, object]]:
        head = CLAUSE.split(m.string[max(0, m.start() - 80) : m.start()])[-1]
        return [] if _GUESSED.search(head) else extract(m)

    return guarded


#: A change from one thing to another, up to the start of the new one: "after switching from Llama-2-7b to ",
#: "when I moved from an A100 to ", "从 7B 换成 ".
_SWITCHED = re.compile(
    r"\b(?:switch\w*|mov(?:e|ed|ing)|chang\w*|go|goes|went|going|upgrad\w*|migrat\w*)\s+from\s+[^,;。，；\n]{1,60}?\s+to\s+|"
    r"从\s*[^，。,；;\n]{1,40}?\s*(?:换成|换到|改成|改为|切换到|升级到)\s*",
    _I,
)


#: What a line says of the cards: the ones a run switched away from say none of it about the run.
_CARD_FACTS = frozenset({"gpu_count", "gpu_name", "gpu_memory_bytes", "compute_capability"})
#: How far after a switch's "to" the card switched to is named ("moved from an A100 to a single RTX 4090").
_SWITCH_REACH = 40


def _data_changed(m: re.Match[str]) -> list[tuple[str, object]]:
    """The data changed since the run last worked, when the line says the run with it failed ("It runs out of memory
    when I use a larger dataset"), not that it worked ("it works with a different dataset")."""
    return [("last_change", "data")] if FAILED.search(m.string) else []


#: What follows a first step that went through: "the first step is fine", "第一步没问题", "the first step completes".
_PASSED = re.compile(
    r"\s*(?:(?:is|was|goes|went|runs?|ran|seems)\s+)?(?:fine|ok|okay|through|well|successfully)(?![\w-])|"
    r"\s*(?:works?|worked|pass(?:es|ed)|complete[sd]?|finishe[sd]|succeed(?:s|ed)?)(?![\w-])|\s*(?:没问题|正常|可以|能跑|跑完|跑通|通过|之后|以后)",
    _I,
)
_ORDINALS = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "fifth": 5, "二": 2, "三": 3, "四": 4, "五": 5}


#: Before a failure word, a verb that says it was fixed: "Solves the OOM right away" is not an immediate OOM.
_FIXED_BEFORE = re.compile(
    r"\b(?:solv|fix|avoid|prevent|resolv|remov|eliminat)\w*\s+(?:the\s+|this\s+|an?\s+|that\s+)?$", _I
)


def _first_step(m: re.Match[str]) -> list[tuple[str, object]]:
    """The first step failed ("OOM at the very first step", "第一步就爆显存"), unless the words say it went through
    ("the first step is fine but the second one OOMs", "after the first step", "第一步没问题"): then a later one failed."""
    before = m.string[max(0, m.start() - 8) : m.start()]
    if _FIXED_BEFORE.search(m.string[max(0, m.start() - 20) : m.start()]):
        return []  # "Loading it in bf16 solves the OOM right away"
    if re.search(r"\bbefore\s+$", before):
        return [("oom_step", 0)]  # "CUDA OOM before the first step finishes"
    if _PASSED.match(m.string, m.end()) or re.search(r"\bafter\s+$", before):
        return [("trained_before_oom", True)]
    return [("oom_step", 0)]


def _step_named(m: re.Match[str]) -> list[tuple[str, object]]:
    """The step a report names ("at step 1500", "after 300 steps", "第2步"). A person names the step it failed at
    counting from one, so "at step 1" and "第1步" are the first step (``oom_step`` counts the steps done: 0); a count
    of steps done ("after 300 steps") and a bare "step N" (a logged line) are taken as they are."""
    named = {k: v for k, v in m.groupdict().items() if v is not None}
    if named.get("n") == "1":
        return [("oom_step", 0)]
    return [("oom_step", named.get("n") or named.get("a") or named.get("r") or named.get("s"))]


def _ordinal_step(m: re.Match[str]) -> list[tuple[str, object]]:
    """A later step said by its ordinal ("on the 3rd step", "第二个batch"): the run trained before it failed."""
    word = (m.group("o") or m.group("z")).lower()
    return [("oom_step", _ORDINALS.get(word) or int(word[0])), ("trained_before_oom", True)]


def _unless_sharding_asked(extract: Extract) -> Extract:
    """An extractor that yields nothing when its match is asked about or suggested ("Should I use FSDP or
    DeepSpeed?"), not the run's own (:func:`~triage.ingest.clauses.hypothetical`)."""

    def guarded(m: re.Match[str]) -> list[tuple[str, object]]:
        # the name inside the match is what the question's verb governs ("use FSDP" in "should I use FSDP or ...?")
        name = re.search(r"fsdp2?|deepspeed", m.group(0), _I)
        start, end = (m.start() + name.start(), m.start() + name.end()) if name else (m.start(), m.end())
        return [] if hypothetical(m.string, start, end) else extract(m)

    return guarded


def _unless_negated(extract: Extract) -> Extract:
    """An extractor that yields nothing when its match is denied."""

    def guarded(m: re.Match[str]) -> list[tuple[str, object]]:
        return [] if negated(m.string, m.start()) else extract(m)

    return guarded


_LORA_MODULES = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
    "qkv_proj",
    "gate_up_proj",
    "query_key_value",
    "c_attn",
    "c_proj",
    "c_fc",
    "W_pack",
    "fc1",
    "fc2",
    "Wqkv",
)
_MODULE_NAMES = re.compile(r"(?<![\w.])(" + "|".join(_LORA_MODULES) + r")(?![\w.])")
_LORA_CONTEXT = re.compile(r"lora|peft|adapter", _I)


def _in_lora_context(extract: Extract) -> Extract:
    """An extractor for bare "r=16", "rank 16" or "all linear layers": it needs LoRA named in the line."""

    def guarded(m: re.Match[str]) -> list[tuple[str, object]]:
        return extract(m) if _LORA_CONTEXT.search(m.string) and not negated(m.string, m.start()) else []

    return guarded


def _modules(m: re.Match[str]) -> list[tuple[str, object]]:
    names = list(dict.fromkeys(_MODULE_NAMES.findall(m.string)))
    return [("lora_target_modules", ",".join(names))] if names else []


_GPU_NAMES = names_pattern()
_GPU_MEMORY_SIZES = (4, 6, 8, 10, 11, 12, 16, 20, 24, 32, 40, 44, 48, 64, 80, 94, 96, 128, 141, 192)

#: The card's memory stated as such ("显存为11264MiB", "VRAM: 24GB"): it overrides the size a GPU name implies.
_STATED_MEMORY = (
    r"(?:显存|vram|gpu memory|gpu mem)\s*(?:大小|容量)?\s*(?:只有|有|是|为|:|：|=|of)?\s*(?P<n>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\b|"
    r"(?:显存|vram|gpu memory|gpu mem)\s*(?:大小|容量)?\s*(?:只有|有|是|为|:|：|=|of)?\s*(?P<mib>\d{4,6})\s*(?:M|MB|MiB)\b"
)

#: Memory a report says the run (or the loaded model) was seen to use. What a card has, what is left and what a
#: guide says it needs are other facts; host memory ("内存", "RAM") is not the GPU's.
_USED_MEMORY = (
    r"(?:显存)?(?:占用量?|占了|用了|吃了|吃掉了?|消耗量?了?|跑到了?|涨到了?)\s*(?:了)?\s*(?:显存)?\s*"
    r"(?:约|大约|大概|将近|接近|差不多|高达|达到|为|是|在)?\s*了?\s*(?P<z>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)(?![a-z])"
    r"(?!\s*(?:的)?\s*(?:内存|ram\b|cpu|system|host|显卡|卡|gpu|card))|"  # "用了24G的卡" names the card
    + _USE_VERB
    + r"(?P<e>\d+(?:\.\d+)?)\s*(?:GB|GiB|G)\b(?!\s*(?:of\s+)?(?:the\s+)?(?:cpu|system|host)?\s*(?:ram|memory of the host)\b)"
    r"(?!\s*(?:gpus?|cards?|graphics)\b(?!\s*mem))"  # "using 24GB GPUs" names the cards, "64GB GPU mem" a use
    r"(?!\s*(?:nvidia\s+)?(?:" + _GPU_NAMES + r"))"  # "I use 32G V100" names the card too
)


#: Words before a use that make it someone else's: "被占用了15G", "another process is using 10GB".
_OTHERS_USE = re.compile(r"被\s*$|(?:process|processes|another|other|else|进程)\b[^,.;，。；]{0,20}$", _I)


def _used_memory(m: re.Match[str]) -> list[tuple[str, object]]:
    if _OTHERS_USE.search(m.string[max(0, m.start() - 30) : m.start()]):
        return []
    gib = _num(m.group("z") or m.group("e"))
    return [("used_memory_bytes", int(gib * GiB))] if 0.5 <= gib <= 2048 else []


#: Image and video models, and the apps that run them: out of triage's scope.
_IMAGE_APP_PATTERN = (
    r"(?<![a-z])stable[ _-]?diffusion\b|\bdreambooth\b|\bkohya|\btext[ -]to[ -]video\b|文生视频|\bdiffusers\b|\bunet\b|"
    r"\bcontrolnet\b|\bsdxl\b|\bcomfyui\b|\byolo(?:v\d+)?\b|\bresnet\d*\b|文生图|扩散模型"
)
_IMAGE_APP = re.compile(_IMAGE_APP_PATTERN, _I)
#: A cuDNN error, which a CNN raises but so does a language model's vision tower or audio encoder.
_CUDNN = re.compile(r"CUDNN_STATUS", _I)

#: (regex, extractor); applied to each line in order, the first mention of a fact wins.
_PATTERN_TABLE: tuple[tuple[str, Extract], ...] = (
    # both batch sizes set at once: "per_device_train_batch_size和per_device_eval_batch_size调到1了"
    (
        r"(?:per[ _-]device[ _-])?train[ _-]batch[ _-]?size\s*(?:和|与|及|、|/|,|&|\band\b)\s*"
        r"(?:per[ _-]device[ _-])?eval[ _-]batch[ _-]?size\s*(?:都|both)?" + _SEP + r"(?P<n>\d+)\b",
        lambda m: [("batch_size", m.group("n")), ("eval_batch_size", m.group("n"))],
    ),
    (
        r"(?:eval(?:uation)?[ _-]?batch(?:[ _-]?size)?|val(?:id|idation)?[ _-]batch[ _-]?size|评估批(?:次)?大小|"
        r"(?:评估|验证|预测)(?:的|时的?)?\s*(?:batch[ _-]?size|bs|批大小))" + _SEP + r"(?P<n>\d+)\b(?!\s*(?:/|of\b))",
        _simple("eval_batch_size"),
    ),
    (
        r"\b(?:for|during|in)\s+(?:the\s+)?(?:eval(?:uation)?|validation|prediction)\s+(?:with|using|at)\s+(?:a\s+)?"
        r"(?:batch[ _-]?size|bs)\s*(?:of|=|:)?\s*(?P<n>\d+)\b|(?:评估|验证|预测)(?:时|的时候)[^，。,；;]{0,6}(?:batch[ _-]?size|bs|批大小)"
        + _SEP
        + r"(?P<z>\d+)\b",
        lambda m: [("eval_batch_size", m.group("n") or m.group("z"))],
    ),
    (
        # "--batch_size 1" and "--batch-size 1" on a command line; a quoted value ('batch_size="1"')
        r"(?:(?<![\w-])|(?<=(?<![\w-])--))(?<!eval )(?<!eval_)(?<!global )(?<!total )(?<!effective )"
        r"(?<!评估)(?<!验证)(?<!预测)(?<!评估的)(?<!验证的)(?<!评估时)(?<!验证时)(?<!评估时的)(?<!验证时的)"
        r"(?:per[ _-]device[ _-])?(?:micro[ _-]?)?(?:batch[ _-]?size|\bbs\b|批(?:次|量)?大小|批大小)"
        + _SEP
        + r"[\"']?(?P<n>\d+)\b",
        _simple("batch_size"),
    ),
    # "batch 4", "a batch of 8" (but not "batch 4/100" or "batch 4 of 100", which count batches, nor "at batch 1000",
    # "after batch 1000", which name one)
    (
        r"(?<![\w-])(?<!eval )(?<!eval_)(?<!global )(?<!total )(?<!effective )(?<!num )(?<!number of )"
        r"(?<!\bat )(?<!\bon )(?<!\bafter )(?<!\buntil )"
        r"(?:per[ _-]device[ _-])?(?:micro[ _-]?)?batch(?![ _-]?(?:size|es))"
        + _SEP
        + r"(?P<n>\d+)\b(?!\s*(?:/|of\b|steps?\b|it\b|batches\b))",
        _simple("batch_size"),
    ),
    (
        r"(?:grad(?:ient)?[ _-]?acc(?:um(?:ulation)?)?(?:[ _-]?steps)?|梯度累[积加计](?:步数)?)"
        + _SEP
        + r"(?P<n>\d+)\b",
        _simple("grad_accum"),
    ),
    (
        r"(?:max[ _-]?(?:seq(?:uence)?[ _-]?)?len(?:gth)?|seq(?:uence)?[ _-]?len(?:gth)?|context[ _-]?(?:length|len|window)|"
        r"序列长度|最大长度|截断长度|上下文长度|文本长度|最大序列长度|训练长度|输入长度|(?<![\w.])length(?=\s*(?:设置为|设为|设成|为|=|:|is\s+(?:set\s+to\s+)?|was\s+|of\s+|set\s+to\s+)?\s*\d)|"
        r"(?<![\u4e00-\u9fff])长度(?=\s*(?:已经?|都)?\s*(?:设置为|设为|设成|改成|改为|调到|调成|降到|为|=)\s*\d{3}))"
        + _SEP
        + r"(?P<n>\d[\d,]*)(?P<k>\s?[kK]\b)?",
        _tokens,
    ),
    (r"(?<![\w.])(?P<n>\d+)(?P<k>[kK])\s*-?\s*(?:context|ctx|tokens?\b|序列|上下文|长度)", _tokens),
    # how long the data's samples are, not a length setting: "the sequence length of the inputs ... spans up to
    # 19900 tokens", "some samples are over 30k tokens", "平均每条长度都在7000+", "最长的样本有12000个token"
    (
        r"\b(?:samples?|sequences?|examples?|documents?|inputs?|texts?|conversations?|prompts?)\b[^.\n]{0,60}?"
        r"\b(?:spans?\s+up\s+to|up\s+to|as\s+long\s+as|over|more\s+than|exceed(?:s|ing)?|reach(?:es|ing)?)\s+"
        r"(?P<n>\d[\d,]*)(?P<k>\s?[kK]\b)?\s*tokens\b|"
        r"(?:平均|最长|最大)的?(?:每条|单条|一条)?(?:样本|数据|文本|对话)?的?(?:长度|token数|tokens?数?)\s*(?:都|大概|大约|约)?\s*"
        r"(?:在|是|为|达到|有|超过)?\s*(?P<z>\d[\d,]*)\s*(?P<zk>[kK千])?\s*\+?(?:个)?\s*(?:token|tokens|字|左右|以上|\+|[，,。；;）)]|$)|"
        r"(?:最长|最大)的?(?:样本|数据|文本|对话)(?:有|是|达到|超过)\s*(?P<y>\d[\d,]*)\s*(?P<yk>[kK千])?\s*(?:个)?\s*(?:token|tokens|字)",
        lambda m: _sample_tokens(m),
    ),
    (r"(?:max[ _]new[ _]tokens|生成长度|最大生成长度)" + _SEP + r"(?P<n>\d+)", _simple("max_new_tokens")),
    (
        r"(?:num[ _]beams|\bbeam[ _](?:size|width)|束宽)" + _SEP + r"(?P<n>\d+)|(?<![\w.])(?P<b>\d+)\s*beams\b",
        lambda m: [("num_beams", m.group("n") or m.group("b"))],
    ),
    (
        r"(?:\blora[ _-]?r(?:ank)?|\blora\s+rank|\brank of lora|lora\s*的?秩|\b(?:actor_|critic_)?lora_dim)"
        + _SEP
        + r"(?P<n>\d+)\b",
        _simple("lora_r"),
    ),
    (
        r"(?<![\w.-])(?<!to )(?<!on )(?<!in )(?<!from )(?<!local )(?<!local_)(?:r|rank|秩)\s*(?:=|:|：|为|是|\bof\b)?\s*"
        r"(?P<n>[1-9]\d*)\b(?![.\d])",
        _in_lora_context(_simple("lora_r")),
    ),
    (
        # peft's print_trainable_parameters(): "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%:
        # 0.06"; "all params" counts a 4-bit model's packed weights as half, so only the trainable count is taken
        r"\btrainable\s+params\s*[:=]\s*(?P<n>\d[\d,]*)\s*\|\|\s*all\s+params",
        lambda m: [("trainable_params_b", _num(m.group("n")) / 1e9)],
    ),
    (
        r"(?<![\w.-])(?:lora[ _]?)?dropout" + _SEP + r"(?P<n>0?\.\d+|0|1)(?![.\d])",
        _in_lora_context(_simple("lora_dropout")),
    ),
    (
        r"\ball[ _-]linear\b|\ball\s+(?:the\s+)?linear\s+(?:layers|modules|projections)\b|所有(?:的)?线性层|全部线性层",
        _in_lora_context(_simple("lora_target_modules", "all-linear")),
    ),
    (r"(?<![\w.])(?:" + "|".join(_LORA_MODULES) + r")(?![\w.])", _in_lora_context(_modules)),
    (
        # an upgrade or downgrade names the version the run has now: "transformers from 4.37.2 to 4.38.2", "change the
        # transformers version to `4.28.1`" (stanford_alpaca#278)
        r"(?P<pkg>transformers|pytorch|torch|peft|trl|accelerate|bitsandbytes|bnb|deepspeed|flash[-_ ]?attn|"
        r"flash[-_ ]attention)\s*(?:version|版本)?\s*(?:(?:from\s+)?v?\d+(?:\.\d+)+\s*)?(?:to|->|→|升级到|降级到|到)\s*"
        r"[`'\"]?v?(?P<v>\d+\.\d+(?:\.\d+)?(?:\.?(?:post|dev|rc)\d+)?)",
        _version,
    ),
    (
        r"(?:upgrad\w*|updat\w*|downgrad\w*|bump\w*|升级|降级)\s+(?:from\s+v?\d+(?:\.\d+)+\s+)?(?:to\s+)?"
        r"v?(?P<v>\d+\.\d+(?:\.\d+)?)\s*(?:of\s+)?\(?(?P<pkg>transformers|torch|peft|trl|accelerate|bitsandbytes|deepspeed)\b",
        _version,
    ),
    (
        r"(?P<pkg>transformers|pytorch|torch|peft|trl|accelerate|bitsandbytes|bnb|deepspeed|flash[-_ ]?attn|"
        r"flash[-_ ]attention)\s*(?:version|版本)?\s*(?:==|=|:|：|\bis\b|是|为)?\s*v?(?P<v>\d+\.\d+(?:\.\d+)?(?:\.?(?:post|dev|rc)\d+)?)",
        _version,
    ),
    # a total over the cards ("一共128G", "160 GB of VRAM in total"): divided by the count once it is known
    (
        r"(?:一共|总共|合计|总计)(?:有)?\s*(?P<n>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\b|"
        r"(?<![\w.])(?P<t>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\s+(?:of\s+(?:vram|gpu\s+memory)\s+)?in\s+total\b",
        lambda m: _gpu_memory(m) if m.group("n") else [("gpu_memory_bytes", int(_num(m.group("t")) * GiB))],
    ),
    (_STATED_MEMORY, lambda m: _gpu_memory(m) if m.group("n") else _gpu_memory_mib(m)),
    # each card's memory said with the card: "单卡80GB", "每张卡只有24G", "each GPU has 40GB", "24GB per GPU"
    (
        r"(?:单卡|单张(?:显)?卡|每张(?:显)?卡|每(?:块|个)?(?:显)?卡|每个\s*gpu|单\s*gpu|"
        r"\b(?:each|every|per|a\s+single|one)\s+(?:gpu|card)\s+(?:has\s+|with\s+|is\s+)?(?:only\s+)?)"
        r"\s*(?:的)?(?:显存)?\s*(?:只有|有|是|为|:|：)?\s*(?P<n>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\b(?!\s*(?:ram|内存)\b)|"
        r"(?<![\w.])(?P<e>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\s+(?:each|per\s+(?:gpu|card))\b",
        lambda m: _gpu_memory(m) if m.group("n") else [("gpu_memory_bytes", int(_num(m.group("e")) * GiB))],
    ),
    (
        # "24GB graphics memory", "20 Gibs of Vram"
        r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?:G|GB|GiB|Gibs?)\s*(?:的)?\s*(?:显存|vram|gpu memory|of vram|gpu\b|card|显卡|卡|"
        r"graphics\s+memory|video\s+memory|of\s+(?:gpu|graphics|video)\s+memory)",
        _gpu_memory,
    ),
    (r"(?<![\w.])(?P<n>\d{2,3})\s*(?:G|GB|GiB)\s*(?:配置的|的)?\s*(?:nvidia\s+)?(?:" + _GPU_NAMES + r")", _card_memory),
    # memory seen in use: "只加载模型后显存占用28G", "uses about 30GB of VRAM", "costs 64GB GPU mem"
    (_USED_MEMORY, _used_memory),
    (
        r"(?:内存|system ram|host ram|\bram\b|cpu memory)\s*(?:只有|有|是|为|:|：|=|of)?\s*(?P<n>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\b",
        _ram,
    ),
    (
        r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\s*(?:of\s+)?(?:的)?\s*(?:ram\b|内存|system memory|host memory)",
        _ram,
    ),
    # a machine's memory: "training on a 220G Memory machine with 8 V100" (gpt-neox#867), "a server with 512GB of
    # memory", "a node with 1TB memory" (the cards' memory is said with their name, VRAM or 显存)
    (
        r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\s+(?:of\s+)?memory\s+(?:machine|server|node|box|instance|host)\b|"
        r"\b(?:machine|server|node|box|instance|host)\s+with\s+(?P<n2>\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\s+(?:of\s+)?memory\b",
        lambda m: _ram(m) if m.group("n") else [("host_ram_bytes", int(_num(m.group("n2")) * GiB))],
    ),
    (r"(?<![\w.])(\d+)\s*[x×]\s*(\d+)\s*b\b", _moe),
    # a mixture-of-experts model named: "Mixtral-8x7B", "Qwen3-30B-A3B", "GLM-4.5-Air", "DeepSeek-V3"
    (MOE_WORDS, _simple("moe", True)),
    (
        # also a size glued to the family after it: "lora微调72Bqwen" (Qwen#708)
        r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)(?:\s*|-)b(?:illion)?"
        r"(?:\b|(?=(?:qwen|llama|baichuan|mistral|mixtral|chatglm|glm|yi|internlm|deepseek|gemma|falcon|bloom)))"
        r"(?!\s*(?:tokens|yte|it\b))(?:\s*(?:params|parameters|model|参数|模型))?",
        lambda m: [] if worked_size(m) else _params(m),
    ),
    # in Chinese units of 100 million: "70亿参数的模型" is 7B, "1300亿参数" 130B
    (
        r"(?<![\w.])(?P<y>\d+(?:\.\d+)?)\s*亿\s*(?:个)?\s*(?:参数|params|parameters)",
        lambda m: [("model_params_b", round(_num(m.group("y")) / 10, 3))] if 0.1 <= _num(m.group("y")) <= 20000 else [],
    ),
    # a model of millions of parameters: "finetune 117M model", "a 350M-parameter model"; and the small models people
    # name without a size (GPT-2, BERT, RoBERTa, T5, BART, XLNet, DeBERTa, BGE, Florence-2, Whisper), whose sizes are
    # their published ones
    (
        r"(?<![\w.])(?P<m>\d{2,3})\s*m(?:illion)?[- ]?(?:params|parameters|parameter|model)\b",
        lambda m: [("model_params_b", round(int(m.group("m")) / 1000, 3))],
    ),
    # (also after an organisation: "google/flan-t5-large", "BAAI/bge-reranker-large", "microsoft/Florence-2-large")
    (r"(?:(?<=/)|(?<![\w/.-]))(?P<s>" + _SMALL_NAMES + r")(?![\w.])", _small_model),
    # two kinds of cards in one machine, counted together: "1x3090 and 1x4090" (fsdp_qlora#25), "2 x A100 + 2 x A6000",
    # "两张3090加一张4090"
    (
        r"(?<![\w.\-=])(?P<a>\d{1,2})\s*[x×*]\s*(?:(?:nvidia|tesla|geforce|quadro)\s+)?(?:(?:rtx|gtx)\s+)?(?:"
        + _GPU_NAMES
        + r")"
        r"(?:\s*\d{2,3}\s*G[B]?)?\s*(?:and|\+|&|加|和)\s*(?P<b>\d{1,2})\s*[x×*]\s*"
        r"(?:(?:nvidia|tesla|geforce|quadro)\s+)?(?:(?:rtx|gtx)\s+)?(?:" + _GPU_NAMES + r")|"
        r"(?P<za>[一两二三四]|\d)\s*(?:张|块)\s*(?:(?:rtx|gtx)\s*)?(?:" + _GPU_NAMES + r")\s*(?:加|和|\+|与)\s*"
        r"(?P<zb>[一两二三四]|\d)\s*(?:张|块)\s*(?:(?:rtx|gtx)\s*)?(?:" + _GPU_NAMES + r")",
        lambda m: [
            ("gpu_count", (_count(m.group("a") or m.group("za")) or 0) + (_count(m.group("b") or m.group("zb")) or 0))
        ],
    ),
    # how many GPUs: "4xA100s", "8 * A100 80GB", "4 x 4090 cards", "A100 40G*8", "2 GPUs", "两张3090", "8卡" (not
    # the model number of "8 A-100 GPUs", ColossalAI#2246);
    # a count is never read out of a model number ("two Tesla T4 GPUs" is 2, not 4), nor out of a setting's
    # value ("batch_size=4 A100-80G")
    (
        r"(?<![\w.\-=])(?<!=\s)(?P<n>\d{1,3}|one|two|three|four|five|six|seven|eight|single|dual)\s*(?:[x×*]\s*(?:\d{2,3}\s*G[B]?\s+)?)?"
        r"(?:(?:nvidia|tesla|geforce|quadro)\s+){0,2}(?:(?:rtx|gtx)\s+)?(?:" + _GPU_NAMES + r")"
        r"|(?:" + _GPU_NAMES + r")(?:\s*[-_ (]?\s*\d{2,3}\s*GB?\)?)?\s*[x×*]\s*(?P<n3>\d{1,3})(?![0-9a-wyz_]|\.\d)"
        r"|(?<![\w.\-=])(?<!=\s)(?P<n1>\d{1,3}|one|two|three|four|five|six|seven|eight|single|dual)(?!\s*(?:g|gb|gib|m|mb|mib)\b)\s+"
        r"(?:(?!(?:on|one|two|with|per|of|in|for|and|the|a|an|my|each|every)\b)[\w-]+\s+){0,2}(?:gpus|gpu|cards|card)\b"
        # hyphenated before what it counts: "start 8-gpu training" (verifiers#31), "an 8-GPU node"
        r"|(?<![\w.\-=])(?P<n7>\d{1,3})-(?:gpus?|cards?)\b"
        # (not a comparison: "显存和单卡一样大", "比单卡还多")
        r"|(?:(?<![\w.\-])(?P<n2>\d{1,3})|(?<![简清订账名菜和跟与比同])(?P<n2c>[单双两二三四五六七八]))(?!\d)\s*"
        r"(?:(?:张|块|个|台)\s*(?:\d{1,3}\s*G[B]?\s*(?:显存)?\s*(?:的)?\s*)?)?(?:卡|显卡|gpu)"
        # a count times the card's memory: "8*80G显卡" (LlamaFactory#2992), "4x80G GPUs" (llama-cookbook#626)
        r"|(?<![\w.])(?P<n8>\d{1,2})\s*[x×*]\s*(?P<m8>\d{2,3})\s*G(?:B|iB)?\s*(?:的)?\s*(?:显卡|卡|显存|(?:gpus?|cards?|vram)(?![a-z])|"
        # said alone, a count times a card's size is the cards ("I have 8 x 80GB"), not host RAM's sticks ("2 x 32GB RAM")
        r"(?![\w.]|\s*(?:of\s+)?(?:ram|内存|ddr\d?|dimms?|system|host|cpu)\b))"
        r"|(?:"
        + _GPU_NAMES
        + r")\s*(?:\d{2,3}\s*G[B]?\s*)?(?:显卡|卡)?\s*(?P<n6>[两二三四五六七八]|\d{1,2})\s*(?:张|块|台)"
        r"|(?<![\w.])(?P<m5>\d{2,3})\s*G(?:B|iB)?\s*[x×*]\s*(?P<n5>\d{1,2})(?![\w.])(?=\s*(?:vram|gpus?|cards?|显存|显卡|卡|\)|$))"
        r"|(?<![\d.])(?P<n4>[单一两二三四五六七八]|\d{1,3})\s*(?:张|块|台)\s*(?:\d{1,3}\s*G[B]?\s*(?:的)?\s*)?"
        r"(?:(?:nvidia|tesla|geforce|quadro)\s*){0,2}(?:(?:rtx|gtx)\s*)?(?:" + _GPU_NAMES + r")",
        lambda m: _gpus_any(m),
    ),
    (
        r"\b(?:adamw_torch_fused|adamw_torch|adamw_hf|adamw_bnb_8bit|adamw_8bit|paged_adamw_8bit|paged_adamw_32bit|"
        r"paged_lion_8bit|lion_8bit|adafactor|galore_adamw\w*|adamw_apex_fused|adamw_anyprecision|adalomo|lomo|"
        r"8[- ]?bit adam)\b",
        _unless_negated(_optimizer),
    ),
    (
        r"(?-i:(?<![\w-])(?:DPO|SFT|PPO|KTO|ORPO|GRPO|SFTTrainer|DPOTrainer|GRPOTrainer|PPOTrainer|"
        r"SFTConfig|DPOConfig|GRPOConfig|PPOConfig|KTOConfig|ORPOConfig)\b(?![.-]\w))"
        r"|(?-i:(?<![\w/.-])(?:dpo|ppo|grpo|kto|orpo)(?![\w./-]))"
        r"|\breward model(?:ing)?\b|\breward\s*(?:训练|模型)|奖励模型",
        _trainer,
    ),
    # "QLoRA", and in a run's name or path: "mixtral_8x7b_instruct_qlora_oasst1_e3"
    (r"(?<![a-z0-9])Q[- ]?LoRA(?![a-z])", _unless_negated(_qlora)),
    (r"(?<![qQ\w-])LoRA\b", _unless_negated(_simple("finetune_method", "lora"))),
    (
        r"\bfull[- ](?:parameter[- ])?fine[- ]?tun(?:e|ing)|\bfull[- ]finetun(?:e|ing)|\bfully\s+fine[- ]?tun(?:e|ing)|"
        r"\bfull[- ]param(?:eter)?s?\b|全参(?:数)?(?:微调)?|全量(?:参数)?(?:微调|训练|精调|更新|ft|sft|fine-?tun\w*)|全量参数|全部参数|"
        r"\bfull\s+sft\b|"
        r"\bfull[- ](?:parameters?|params?|model|weights?)\s+(?:training|fine[- ]?tun\w*|sft|updates?)\b|"
        r"\btrain(?:ing)?\s+(?:a|the)\s+full\s+(?:\d+(?:\.\d+)?\s*b\s+)?model\b|"
        r"\b(?:continue[ds]?|continual|further)\s+pre-?train(?:ing)?\b|\bpre-?train(?:ing)?\s+(?:a|the|my)\b|"
        # "do pretraining of MPT-7B", "this MPT-7B pretraining"
        r"\b(?:do|doing|run|running|start|starting)\s+pre-?training\b|\bpre-?training\s+(?:of|from\s+scratch)\b|"
        r"(?<![\w.])\d{1,4}(?:\.\d+)?\s*b\s+pre-?training\b|(?<=[a-z]-)\d{1,4}(?:\.\d+)?\s*b\s+pre-?training\b|"
        r"(?:继续|增量|二次|做|进行|在做)预训练|预训练(?:阶段|任务)(?!模型)",
        _unless_negated(_simple("finetune_method", "full")),
    ),
    # no adapter at all is a full fine-tune: "没有使用lora和ptv2" (chatglm_finetuning#154), "I'm not using LoRA"
    (
        # (not peft: "不用peft库" may be a LoRA written by hand)
        r"(?:没有|没|未|不)(?:使用|用|采用|开|加)(?:了)?\s*(?:lora|p-?tuning(?:\s*v2)?|ptv2)(?![\w-])|"
        r"(?:\b(?:am|are|was|were)\s+not|'m\s+not|'re\s+not|n't)\s+(?:using|use)\s+(?:any\s+)?(?:lora|adapters?)\b(?![\w-])|"
        r"\bwithout\s+(?:using\s+|any\s+)?(?:lora|adapters?)\b(?![\w-])(?!\s+(?:on|for|in|to)\b)",
        _simple("finetune_method", "full"),
    ),
    (
        r"\bfreeze[- ]tuning\b|冻结微调|\bfreeze\s*(?:微调|训练)|\bfinetuning_type\s*[:=]\s*[\"']?freeze\b",
        _unless_negated(_simple("finetune_method", "freeze")),
    ),
    (
        r"\b(?:load[_ ]in[_ ]4bit|4[- ]?bit|nf4|4位量化|int4)\b" + _NOT_SET_OFF,
        _unless_negated(_simple("quantization", "4bit")),
    ),
    # alpaca-lora's and FastChat's switches ("python generate.py --load_8bit", "--load-8bit"); a GPTQ or AWQ checkpoint
    # ("Charybdis-v1.0-GPTQ", "Llama-2-13B-chat-AWQ", "AutoGPTQ"), 4-bit weights as they are almost always published
    (
        r"(?<![\w-])--load[_-]([48])bit\b(?!\s*[=:]?\s*['\"]?(?:false|0)\b)",
        lambda m: [("quantization", f"{m.group(1)}bit")],
    ),
    (r"[\w.](?:-|_)(?:gptq|awq)\b|\b(?:auto)?(?:gptq|awq)\b", _unless_negated(_gptq_awq)),
    # which method quantized the weights: bitsandbytes' own names and settings (a bare "bitsandbytes", as in an
    # environment listing, says only that it is installed); a model's own int4 build ("chatglm2-6b-int4",
    # "Qwen-7B-Chat-Int4", ChatGLM's model.quantize(4)) is not bitsandbytes
    (
        r"\bBitsAndBytesConfig\b|\bbnb_4bit_\w+|\bload[_ ]in[_ ][48]bit\b" + _NOT_SET_OFF + r"|\bnf4\b",
        _unless_negated(_simple("quant_method", "bitsandbytes")),
    ),
    (
        r"(?<=[a-z0-9])[-_]int[48]\b(?![-_.]?(?:gptq|awq))|\.quantize\(\s*(?:bits\s*=\s*)?[48]\s*\)",
        _unless_negated(_simple("quant_method", "other")),
    ),
    # a quantization flag set off ("load_in_4bit = False", "load_in_8bit=False"): 16-bit weights, unless a bit width
    # is read first
    (r"\bload[_ ]in[_ ][48]bit['\"]?\s*[=:]\s*['\"]?false\b", _simple("quantization", "none")),
    (r"(?:\.|\b)quantize\(\s*(?:bits\s*=\s*)?([48])\s*\)", lambda m: [("quantization", f"{m.group(1)}bit")]),
    # weights kept in full precision, said in words
    (
        r"\b(?:only\s+)?(?:float32|fp32)\s+(?:is|was)\s+used\b|\b(?:loaded|loads?|loading|runs?|trained|training|kept)\s+(?:in|as|with)\s+"
        r"(?:full\s+precision|float32|fp32|32[- ]?bits?)\b|以?(?:fp32|float32|全精度|32\s*位(?:精度)?)(?:加载|训练)",
        _unless_negated(_simple("torch_dtype", "fp32")),
    ),
    (
        r"\b(?:load[_ ]in[_ ]8bit|8[- ]?bit|int8|8位量化)\b(?!\s*(?:adam|optim|lion))" + _NOT_SET_OFF,
        _unless_negated(_simple("quantization", "8bit")),
    ),
    (r"\b(bf16|fp16)\b", _unless_negated(lambda m: [("mixed_precision", m.group(1).lower())])),
    (r"\bsdpa\b", _unless_negated(_simple("attn_implementation", "sdpa"))),
    (
        r"\beager attention\b|attn_implementation\s*=\s*['\"]?eager",
        _unless_negated(_simple("attn_implementation", "eager")),
    ),
    (
        r"\bzero[- _]?(?:stage[- _]?)?([123])(?!\d|_init)|\bzero([123])\b|\bzero_stage[\"',]*\s*[=:]?\s*[\"',]*\s*([0-3])\b|"
        # the stage said set in words: "zero_stage指定为3", "ZeRO stage set to 2", "zero stage 设置成 3"
        r"\bzero[ _]?stage\s*(?:(?:is\s+|was\s+)?set\s+to|(?:指定|设置|设定|设|改)(?:为|成)|为|是)\s*([0-3])(?!\d)|"
        r"(?<![a-z0-9])ds_z([0-3])_(?:offload_)?config\b|\bzero_optimization_stage\s*\.*\s*([0-3])\b|"
        # DeepSpeed-Chat's per-model stages: "--actor_zero_stage 2" (the actor's, the model that trains)
        r"\bactor_zero_stage\s*[=:]?\s*([0-3])\b|"
        # the stage said after the library's name: "with DeepSpeed stage 3", "deepspeed zero stage-2"
        r"\bdeepspeed\s+(?:zero\s+)?stage[- _]?([0-3])\b",
        _unless_negated(lambda m: [("distributed", "deepspeed"), ("zero_stage", next(g for g in m.groups() if g))]),
    ),
    # ColossalAI's ZeRO strategies ("--strategy colossalai_zero2"): the stage, without DeepSpeed
    (r"\bcolossalai_zero([12])\b", _unless_negated(lambda m: [("zero_stage", m.group(1))])),
    (r"\bLLaMA[- ]?Factory\b|\bllamafactory\b", _unless_negated(_simple("framework", "llama_factory"))),
    (r"\baxolotl\b", _unless_negated(_simple("framework", "axolotl"))),
    (r"\bunsloth\b", _unless_negated(_simple("framework", "unsloth"))),
    (r"\b(?:HF|huggingface|transformers)\s+Trainer\b|\bSeq2SeqTrainer\b", _simple("framework", "hf_trainer")),
    (
        r"(?:显存|内存|memory|vram)\s*(?:占用)?\s*(?:一直|不断|持续|逐步|每一?步都?)\s*(?:在)?\s*(?:涨|上涨|增长|增加|变大)|"
        r"(?:显存|memory)[^,，。.]{0,12}越来越(?:大|多|高)|越(?:训|跑|用|推理)[^，。,；;]{0,10}越(?:大|多|高)|"
        r"\bmemory\s+(?:keeps?|kept)\s+(?:growing|increasing|climbing|going up|rising)|"
        r"\b(?:grows?|increases?|climbs?)\s+(?:a\s+(?:bit|little)\s+)?(?:every|each)\s+(?:step|iteration|batch)|"
        r"\bsteadily\s+(?:increasing|growing|climbing)",
        _simple("memory_growth", "growing"),
    ),
    (
        r"被\s*(?:系统)?\s*(?:kill(?:ed)?|杀(?:掉|死)?)了?|\bOOM[ -]?killer\b|(?:exit|退出)\s*(?:code|码|状态)?\s*[:：=]?\s*(?:-9|137)\b",
        _simple("error_kind", "host_oom"),
    ),
    # memory that grows over time, in more of the ways people say it
    (
        r"(?:显存|内存|memory|vram)[^。，,.;；]{0,10}(?:一直|不断|持续|逐渐|逐步|渐渐|慢慢|无限|越来越|一点点|一点一点|一步步)"
        r"[^。，,.;；]{0,6}(?:涨|增|升|加|多|大|高)|"
        r"\bmemory\b[^.;,]{0,30}\b(?:keeps?|kept)\s+(?:on\s+)?(?:growing|increasing|climbing|rising|going up)|"
        r"\b(?:growing|increasing|climbing|rising)\s+(?:a\s+(?:bit|little)\s+|slowly\s+)?"
        r"(?:every|each|with each|with every|per)\s+(?:step|iteration|batch|epoch)|"
        r"(?:每次|每轮|随着)(?:对话|提问|问答|推理|迭代|epoch)[^。，,.;；]{0,16}(?:增加|上涨|增长|变大|涨)|"
        r"\bmemory\s+(?:usage\s+)?(?:keeps?|kept)\s+(?:on\s+)?(?:growing|increasing|climbing|going up|rising)|"
        r"\b(?:memory|vram|gpu\s+usage)\s+(?:usage\s+|consumption\s+)?(?:slowly\s+|gradually\s+|steadily\s+|constantly\s+|continuously\s+)?"
        r"(?:grows|increases|climbs|creeps up)\b|"
        # a rise after each evaluation or save that is not given back: "vram usage doubles after the first evaluation"
        r"\b(?:memory|vram|usage)\s+(?:doubles|doubled|goes\s+up|went\s+up|increases|increased)\s+after\s+(?:each|every|the\s+first)\s+"
        r"(?:eval\w*|validation|epoch|save|checkpoint)\b|"
        # a chat that fails only after some turns: "CUDA out of memory after few messages in the chat" (TavernAI#15)
        r"\bafter\s+(?:a\s+)?(?:few|several|some|a\s+couple\s+of|\d+)\s+(?:chat\s+)?(?:messages|prompts|turns|replies|responses|rounds)\b|"
        # what an evaluation loop keeps: "the logits ... are accumulated", "会累积preds造成OOM" (transformers#12878, LlamaFactory#1595)
        r"\b(?:logits|preds|predictions)\b[^.;]{0,40}\b(?:are|is|get|gets|being)\s+accumulated\b|"
        r"\baccumulat(?:es|ed|ing)\s+(?:all\s+)?(?:the\s+)?(?:logits|preds|predictions)\b|累积\s*(?:了)?\s*(?:preds|logits|预测)|"
        # growth named as a noun: "a gradual increase in memory usage" (llm-compressor#1976), "a steady increase in GPU
        # memory"
        r"\b(?:gradual|steady|constant|continuous|continual|slow|linear)\s+(?:increase|growth|rise|climb)\s+(?:in|of)\s+"
        r"(?:the\s+)?(?:gpu\s+|cuda\s+)?(?:memory|vram)\b|"
        # more memory from a later epoch or step on: "跑到第二个epoch的时候就莫名内存占用变大了" (textgen#29)
        r"(?:跑到|训练到|训到|到了)\s*第?[^，。,；;]{0,8}(?:epoch|轮|步|step|iter)[^，。,；;]{0,12}?(?:显存|内存)(?:占用)?"
        r"(?:(?!突然|骤)[^，。,；;]){0,4}?(?:变大|增大|增加|上涨|涨)|"
        # "GPU memory usage increase with the number of training steps" (ms-swift#3461)
        r"\b(?:memory|vram)\s+(?:usage\s+)?increas(?:e|es|ing)\s+with\s+(?:the\s+)?(?:number\s+of\s+)?(?:training\s+)?"
        r"(?:steps|iterations|epochs|batches)\b|"
        # every page a user opens loads one more copy: "每多开一个网页...都会多占一份模型内存" (ChuanhuChatGPT#593)
        r"每多[^。；;！!？?]{0,16}多占|"
        # "Every time I run the model, the allocated memory by CUDA increase by several GB"
        r"\b(?:every|each)\s+time\b[^.;]{0,60}\b(?:memory|vram|usage)\b[^.;]{0,30}\b(?:increase[sd]?|grow[sn]?|goes\s+up)\b|"
        r"(?:每个?|每一)\s*(?:step|步|iteration|iter|batch|epoch|轮)[^，。,；;]{0,8}?(?:显存|内存)[^，。,；;]{0,4}?(?:都|会|也)?\s*(?:在)?\s*(?:增长|增加|上涨|变大|涨)",
        _simple("memory_growth", "growing"),
    ),
    # memory said not to grow: "memory stays constant", "VRAM usage is stable the whole time", "显存一直很稳定"
    (
        r"\b(?:memory|vram)\s+(?:usage\s+|consumption\s+)?(?:stays?|stayed|remains?|remained|is|was)\s+(?:(?:very|pretty|quite)\s+)?"
        r"(?:constant|stable|flat|steady)\b|(?:显存|内存)(?:占用)?\s*(?:一直)?\s*(?:很|比较|非常)?(?:稳定|平稳|不变)",
        _unless_negated(_simple("memory_growth", "steady")),
    ),
    # a memory leak named as what happens ("Memory leak during training", "训练过程中存在内存泄漏"); a guess at one is
    # not growth seen ("Maybe some library causes memory leak", "是否有显存泄露", "疑似显存泄露": development reports
    # whose threads were resolved as padding or a model too big)
    (
        r"\bmemory\s+leak(?:age|ing|s)?\b|内存泄[露漏]|显存泄[露漏]",
        _unless_guessed(_simple("memory_growth", "growing")),
    ),
    # host RAM, said in words: "内存" (not 显存) or RAM running out, a process killed
    (
        r"(?<!gpu)(?<!gpu )(?<!显卡)(?<!显卡的)内存[^，。,；;显]{0,12}?(?:爆掉|撑爆|被?吃满|耗尽|爆满)|"
        r"(?<!gpu)(?<!gpu )(?<!显卡)(?:超|爆)内存|(?<!gpu)(?<!gpu )(?<!显卡)(?<!显)内存\s*(?:oom|溢出|爆了|不够|不足|满了|"
        r"占用(?:特别|非常|很|太)?高|(?:一直|不断|持续)\s*(?:升高|上涨|增长|增加))|"
        r"\b(?:cpu|host|system)\s+(?:ram|memory)\s+(?:oom|usage|runs?\s+out|ran\s+out|is\s+full|exhausted)|"
        r"\bram\s+(?:oom|runs?\s+out|ran\s+out|is\s+full|exhausted|usage\s+(?:spikes|explodes|goes up))|"
        r"\b(?:was|got|gets|is|be(?:ing)?)\s+killed\b|\bmessage\s+[`'\"]?killed\b|\bray\b[^.]{0,30}\boom\b|"
        # what the shell printed: "prompt KILLED at the end", "it just shows Killed"
        r"\b(?:prompts?|shows?|showed|says?|said|prints?|printed|outputs?|displays?|displayed)\s+[`'\"]?killed\b|(?-i:\bKILLED\b)|"
        r"\bnot\s+enough\s+(?:cpu\s+|host\s+|system\s+)?ram\b|\bnot\s+enough\s+(?:cpu|host|system)\s+memory\b|"
        # "a 'killed' error", a bare "`Killed`" line, "is eventually killed", Colab's "session crashed after using all available RAM"
        r"[`'\"]killed[`'\"]\s*(?:error|message)?|^\W*killed\W*$|\b(?:is|was|got|gets|being)\s+(?:eventually|then|finally|just|simply)\s+killed\b|"
        r"\bafter\s+using\s+all\s+(?:the\s+)?available\s+ram\b|"
        r"\b(?:oom|out\s+of\s+memory)\b[^.;]{0,24}\bwith\s+\d+\s*g(?:b|ib)?\s+(?:of\s+)?(?:cpu\s+|host\s+|system\s+)?ram\b|"
        r"\b(?:cpu\s+|host\s+|system\s+)?ram\s+(?:is\s+|was\s+)?not\s+enough\b|\binsufficient\s+(?:cpu\s+|host\s+|system\s+)?ram\b|"
        r"\bswap\b[^.]{0,30}(?:full|out of|exhaust)|"
        r"\bkilled\s*(?:了|输出|退出)|出现\s*killed\b|被\s*kill(?:ed)?\b|进程被(?:系统)?(?:杀|终止)|\b(?:oom|out of memory)\s+with\s+\d+\s*gb?\s+(?:of\s+)?ram\b|"
        # more of how development reports say it: "每次加载到 38% 都会Killed" (ChatGLM-6B#918), "get kill" (transformers#24946),
        # "killing process when trying to train" (LLaMA-VID#35), "系统 RAM会炸" (ChatGLM-Tuning#99), "The OOM was for CPU RAM"
        # (llm-compressor#1183), "CPU内存容量异常增长导致OOM" (LlamaFactory#8846), "Excessive CPU memory need" (NeMo#14526)
        r"(?:会|就|都|直接|时|的时候|之后)\s*(?:被)?\s*killed\b|\b(?:get|gets|got)\s+kill\b|\bkilling\s+(?:the\s+)?process\b|"
        r"\bram\s*(?:会|就)?\s*(?:炸|爆)|\b(?:oom|out\s+of\s+memory)\s+(?:was|is)\s+(?:for|on|in)\s+(?:the\s+)?(?:cpu|host|system)\s+(?:ram|memory)\b|"
        r"cpu\s*(?:的)?\s*内存[^。；;！？!?，,]{0,16}?(?:oom|溢出|爆|不够|不足)|"
        r"\b(?:excessive|heavy|huge)\s+(?:cpu|host|system)\s+(?:ram|memory)\b|"
        # the host's memory filled: "RAM usage goes to 100%", "system memory hits 100%", "系统内存占用到100%" (a bare 内存
        # may be the card's)
        r"\b(?:ram|system\s+memory|cpu\s+memory|host\s+memory)\s+(?:usage\s+|use\s+)?(?:goes|went|reach(?:es|ed)?|hits?|"
        r"is\s+at|climbs?|rises?|gets?)\s+(?:up\s+)?(?:to\s+)?100\s*%|(?:cpu|系统|主机|机器)\s*内存(?:占用|使用率)?\s*(?:到了?|达到|飙到|直接)\s*100\s*%|"
        # a process that vanishes without a traceback: a CUDA OOM raises one, the kernel's OOM killer leaves none
        # ("加载到29%退出，无报错", ChatGLM3#1323; "it quits without outputting a model response", transformers#16616)
        # ("exits without errors" alone is a run that finished)
        r"\b(?:dies|died|crash(?:es|ed))\b[^.;\n]{0,30}?\bwithout\s+(?:any\s+|an\s+)?(?:error|message|traceback|exception)|"
        r"\b(?:quits?|quitted|exits?|exited|terminat(?:es|ed)|stops?|stopped)\b[^.;\n]{0,30}?\b(?:without|with\s+no)\s+(?:any\s+|an\s+)?"
        r"(?:(?:error\s+)?(?:message|traceback)|output(?:ting)?\b)|"
        # a run cut off mid-way with no word of why: "It gets to 4/9 on the progress bar and then just exits", "the
        # process disappears" (a finished run "exits"; it does not "just exit" part-way)
        r"\bthen\s+just\s+(?:exits|exited|quits|disappears|disappeared|vanishes|vanished)\b|"
        r"\b(?:the\s+)?process\s+(?:just\s+)?(?:disappears|disappeared|vanishes|vanished)\b|"
        r"(?<!正常)(?:退出|闪退|崩溃|挂掉|停止运行)了?[，,\s]*也?(?:无|没有|没)(?:任何)?(?:报错|错误|提示|输出)|"
        r"(?:无|没有|没)(?:任何)?(?:报错|错误提示|提示)[，,\s]*(?:就|直接|自动){0,2}(?:退出|闪退|崩溃)",
        _unless_negated(_simple("error_kind", "host_oom")),
    ),
    # the card's memory ran out, said in words: "爆显存", "显存不足", "ran out of VRAM"
    (
        r"(?:爆显存|显存\s*(?:不足|不够|溢出|爆了|炸了|爆掉|oom|超了|用完)|" + ZH_CARD_OVERFLOW + r")"
        r"(?![^，。,；;\n]{0,6}[吗么？?])|"
        r"\b(?:ran|runs?|running)\s+out\s+of\s+(?:vram|gpu\s+(?:memory|ram))\b|\b(?:gpu|vram)\s+(?:oom|out\s+of\s+memory)\b|"
        # CUDA's own words in prose: "I still got CUDA Out of memory", "Running CUDA OOM with PPO", "cuda out of memory 大神"
        r"\bcuda\s*(?:oom|out[\s_-]*of[\s_-]*memory)\b",
        _unless_negated(_simple("error_kind", "cuda_oom")),
    ),
    # the run trained for a while before the OOM
    (
        r"(?:训练|微调|跑)(?:了)?\s*(?:一会|一会儿|一段时间|几个小时|几小时|半天|好几个小时|几个epoch|几轮)(?:后|之后|以后)?|"
        r"(?:训练|微调|跑)(?:了)?\s*(?:十几|几十|二十几|好几|\d+)\s*个?\s*(?:小时|天|epochs?|轮)|"
        r"(?:跑|训练)了\s*(?:不到|大概|约)?\s*\d+\s*个?\s*(?:steps?|步|epochs?|轮)|"
        # "20~50步训练后出现OOM" (slime#1951): some steps trained, then the failure
        r"(?<![\d.])(?!0\s*(?:个)?\s*(?:steps?|步))\d{1,7}\s*(?:[~～\-到]\s*\d{1,7}\s*)?(?:个)?\s*(?:steps?|步)\s*训练\s*(?:之?后|以后)|"
        r"(?:跑|训练)(?:到|了)(?:一半|中途)|训练(?:中途|过程中)(?:突然)?|"
        r"(?:跑|训|训练)(?:到|了)\s*(?:第)?\s*\d+\+?\s*(?:个)?\s*(?:samples?|steps?|步|条|个?样本|epochs?|轮|小时|分钟|天)|"
        r"(?:跑|训|训练)到\s*\d{1,2}\s*%|\b\d{1,2}\s*%\s+(?:of|through|into)\s+(?:the\s+)?(?:first\s+)?(?:epoch|training|run)\b|"
        r"\b(?:trains?|training|ran|runs?|running|worked|works)\s+(?:fine\s+|normally\s+|well\s+|ok\s+)?"
        r"for\s+(?:a\s+while|some\s+time|a\s+few\s+hours|several\s+hours|hours|\d+\s+(?:hours?|epochs?|steps))\b|"
        r"\b(?:after|in the middle of)\s+(?:a\s+while|some\s+time|a\s+few\s+hours|several\s+hours|"
        r"\d+\s+(?:hours?|epochs?)|the\s+first\s+epoch|(?:a|one)\s+(?:few|couple of)\s+epochs?)\b|"
        r"\b(?:mid|middle)[- ](?:run|training|epoch)\b|\b(?:halfway|partway|midway)\s+(?:through|into)\s+(?:the\s+)?(?:first\s+|second\s+)?(?:epoch|training|run)\b",
        _unless_negated(_simple("trained_before_oom", True)),
    ),
    # unsloth's own checkpointing: "use_gradient_checkpointing = \"unsloth\"" (unslothai/unsloth#1326) is on
    (
        r"\buse_gradient_checkpointing\s*[=:]\s*['\"]?(?:unsloth|true)\b",
        _simple("gradient_checkpointing", True),
    ),
    # a fine-tuning method stated as a config key, as LLaMA-Factory, swift and Firefly write it
    (
        r"\b(?:finetuning_type|finetune_type|train_mode|sft_type|train_type|training_type|tuning_type)"
        r"[\"']?\s*[:=]?\s*[\"']?(?P<m>full|lora|qlora|freeze)\b",
        lambda m: [("finetune_method", m.group("m").lower())],
    ),
    # what triage does not cover: an inference server, an image model
    (
        r"\bvllm\s+serve\b|vllm\.entrypoints|openai\.api_server|\btext-generation-inference\b|\bTGI\b|"
        r"\bswift\s+deploy\b|\bllamafactory-cli\s+api\b|\bapi_demo\.py\b|\bollama\b|\bllama\.?cpp\b|"
        # a deployment that serves requests ("部署后...调用接口"), not a local demo deployed ("按照说明部署后，运行webui.py")
        r"推理服务(?:后|时|的时候)|部署(?:后|时|的时候)[^。；;\n]{0,50}?(?:接口|\bapi\b|服务|调用|请求|并发)|"
        r"\bswift\s*在\s*部署|"
        # vLLM used as an inference engine, not inside an RL trainer (see read_lines)
        r"--infer_backend[=\s]+vllm\b|\binfer_backend:\s*vllm\b|VllmWorkerProcess|\bvllm\.(?:worker|engine)\b|\bLLMEngine\b|"
        r"\bfrom\s+vllm\s+import\b|(?<![\w.])gpu_memory_utilization\b|NIXLConnector|\bcudagraph\s+capture\b|"
        r"(?:用|使用|采用)\s*vllm\s*(?:推理|部署)|\bvllm\s*(?:推理|部署)|\b(?:serving|serve)\s+(?:it\s+|the\s+model\s+)?with\s+vllm\b|"
        # vLLM run as the engine ("vLLM 运行 qwen-7b-chat", "VLLM镜像部署", "run in vllm==0.6.3")
        r"\bvllm\s*(?:==|运行|镜像|serve\b)|\b(?:run|running|ran|runs)\s+(?:it\s+|the\s+model\s+)?(?:in|with|on|using)\s+vllm\b|"
        # other inference engines and their deployments: LMDeploy/TurboMind, swift's deploy
        r"\blmdeploy\s*(?:serve|chat|推理|部署)|\bfrom\s+lmdeploy\b|\blmdeploy\.(?:pipeline|serve)|(?:用|使用|采用|通过)\s*lmdeploy|"
        r"\bturbomind\b|swift\s*部署|部署(?:了|的)?\s*(?:推理)?服务",
        _simple("out_of_scope", "serving"),
    ),
    (
        _IMAGE_APP_PATTERN + r"|CUDNN_STATUS",
        _simple("out_of_scope", "image_model"),
    ),
    # memory that grows, said without an adverb ("显存也在增加", "ram keep increasing", "usage goes up each time")
    (
        r"(?:显存|内存)(?:占用|使用)?\s*(?:也|还)?\s*(?:在|会)\s*(?:不断|持续|一直)?\s*(?:增加|增长|上涨|上升|变大)|"
        r"\b(?:ram|vram|memory|usage)\s+(?:keeps?|kept)\s+(?:on\s+)?(?:increasing|growing|climbing|rising|going\s+up)|"
        r"\b(?:memory|vram|ram)(?:\s+usage)?\s+(?:goes|went)\s+up\s+(?:every|each|with|after)\b|\bkeeps?\s+(?:climbing|creeping\s+up)\b|"
        # "Rapidly Increasing VRAM Use in Chat Mode", "steadily growing GPU memory"
        r"\b(?:rapidly|steadily|constantly|continuously|gradually)\s+(?:increasing|growing|rising|climbing)\s+(?:gpu\s+)?(?:vram|memory|ram)\b|"
        # "显存cuda增加，直到溢出", "内存容量异常增长导致OOM": growth until it ran out
        r"(?:显存|内存|cuda|memory)[^。，,；;]{0,6}(?:增加|增长|上涨|上升)[，,]?\s*(?:直到|直至)|(?:显存|内存)[^。，,；;]{0,6}异常(?:增加|增长|上涨)|"
        # the subject said another way and an adverb between: "mem usage slowly grows", "the memory footprint grows
        # linearly", "VRAM use climbing steadily", "memory goes up by ~200MB each step"
        r"\b(?:mem|memory|vram|ram)\s+(?:usage|use|footprint|consumption|utili[sz]ation)\s+(?:is\s+|was\s+)?"
        r"(?:slowly\s+|steadily\s+|gradually\s+|linearly\s+|constantly\s+|continuously\s+)?"
        r"(?:grows|growing|increases|increasing|climbs|climbing|creeps\s+up|creeping\s+up|rises|rising)\b|"
        r"\b(?:memory|vram|usage)\s+(?:grows|increases|climbing|creeping\s+up|growing|increasing)\s+(?:linearly|steadily|gradually|slowly)\b|"
        r"\b(?:memory|vram|ram|usage)\s+(?:goes|went)\s+up\s+by\s+~?\s*\d[\d.]*\s*[mg]i?b\b[^.;]{0,12}\b(?:every|each|per)\b|"
        # a rise from one size to another: "memory went from 20GB to 24GB and then OOM"
        r"\b(?:memory|vram|usage)\b[^.;\n]{0,20}\b(?:goes|went|grows?|grew|climbs?|climbed|rises?|rose|increases?|increased)"
        r"\s+(?:slowly\s+|steadily\s+|gradually\s+)?from\s+~?\d[\d.]*\s*[mg]i?b\s+to\s+~?\d|"
        # "显存随着训练步数增加而增加", "显存在每次评估后都上升", "显存缓慢上涨", "推理时显存叠加且不释放"
        r"(?:显存|内存)[^。，,；;]{0,4}随着[^。，,；;]{0,6}(?:训练|迭代|steps?|步|epochs?|轮|时间|对话|次数|iter)"
        r"[^。，,；;]{0,8}(?:增加|增长|上涨|上升|变大)|"
        r"(?:显存|内存)[^。，,；;]{0,4}每次[^。，,；;]{1,12}(?:都|也|就)?\s*(?:会)?(?:增加|增长|上涨|上升|变大)|"
        # "每次eval之后显存都会增加一点", "跑着跑着显存就满了"
        r"每次[^。，,；;]{1,12}(?:之后|以后|后)[^。，,；;]{0,2}(?:显存|内存)[^。，,；;]{0,6}(?:增加|增长|上涨|上升|变大|涨)|"
        r"(?:跑|训|训练)着(?:跑|训|训练)?着[^。，,；;]{0,6}(?:显存|内存)[^。，,；;]{0,4}(?:就)?(?:满|爆|不够|涨)|"
        r"(?:显存|内存)[^。，,；;]{0,4}(?:缓慢|慢慢地?)\s*(?:增加|增长|上涨|上升|变大)|(?:显存|内存)(?:占用)?\s*(?:不断)?叠加|"
        # an amount left behind at every step: "each time I called loss.backward() and enter the next batch, there would
        # be 30mb of gpu memory which could not be released" (mistral-inference#20), "every step leaks 30MB"
        r"\b(?:each|every)\s+(?:time|step|batch|iteration|iter|epoch|call)\b(?:[^.;\n]|\.(?=\w)){0,100}?\d[\d.]*\s*[mg]i?b\s+(?:of\s+)?"
        r"(?:gpu\s+|cuda\s+)?(?:memory|vram)?\s*(?:which|that)?\s*(?:could|can|ca|would|wo|will|is|was)?\s*(?:not|n.t|never)\s+"
        r"(?:be\s+)?(?:released|freed)|"
        r"\b(?:leaks?|leaking|leaked)\s+(?:about\s+|around\s+|~\s*)?\d[\d.]*\s*[mg]i?b\b[^.;]{0,30}\b(?:every|each|per)\b|"
        # "it leaks memory", "the loop is leaking GPU memory"
        r"\b(?:leaks?|leaking|leaked)\s+(?:gpu\s+|cuda\s+|host\s+|cpu\s+)?(?:memory|vram|ram)\b|"
        r"\b(?:each|every|per)\s+(?:step|batch|iteration|iter|epoch)\b[^.;]{0,20}\b(?:leaks?|leaking)\s+(?:about\s+|around\s+|~\s*)?\d[\d.]*\s*[mg]i?b\b",
        _unless_negated(_simple("memory_growth", "growing")),
    ),
    # one jump: "从37G直接飙升到68G", "memory suddenly spikes"
    (
        r"飙升|暴涨|激增|突然(?:增加|上涨|涨|飙)|\b(?:memory|vram|usage)\s+(?:suddenly\s+)?(?:spikes?|jumps?)\b|"
        r"\bsuddenly\s+(?:jumps?|spikes?|increases?)\b",
        _unless_negated(_simple("memory_growth", "spike")),
    ),
    # the run trained for some steps first: "跑几步就爆", "crashes after a few steps", "after 300 iterations"
    (
        r"(?:跑|训练)(?:了)?\s*(?:几|十几|几十|几百|几千|上百|上千|数百|数千|没几|没多少)\s*(?:个)?\s*(?:步|steps?|epochs?|轮|iter)|训着训着|跑着跑着|一段时间(?:之?后|以后)|"
        # "训练进行到30step左右时", "训到一半的时候", "训练了一定的步骤才会出现"
        r"(?:训练|训|跑)(?:进行)?到\s*第?\s*[1-9]\d*\s*(?:个)?\s*(?:steps?|步|轮|epochs?|iters?)|训(?:练)?到一半|训练了一定(?:的)?(?:步骤|步数|时间)|"
        r"\b\d+\s*(?:hours?|hrs?|minutes?|mins?)\s+later\b|\bafter\s+(?:about\s+|around\s+)?\d+\s*(?:hours?|hrs?)\s+of\s+training\b|"
        r"\b(?:after|for)\s+(?:a\s+)?(?:few|couple(?:\s+of)?|several|some|many|\d+)\s+(?:training\s+|optimi[sz]ation\s+|optimi[sz]er\s+|gradient\s+)?"
        r"(?:steps|iterations|batches|epochs)\b",
        _unless_negated(_simple("trained_before_oom", True)),
    ),
    # the same with a rough count or in Chinese numerals: "ran fine for about 3000 steps", "runs for a couple of thousand
    # steps and then dies", "跑了一千二百多步", "跑了两三个小时", "跑了一晚上", "挂在 2000 多步", "跑到三分之二", "1500 步之前都正常"
    (
        r"\b(?:fine|normally|well|ok|okay|smoothly|good)\s+for\s+(?:about\s+|around\s+|roughly\s+|over\s+|more\s+than\s+|"
        r"nearly\s+|almost\s+|~\s*)?(?:\d[\d,.]*k?|a\s+couple\s+(?:of\s+)?(?:thousand|hundred)|a\s+few\s+(?:thousand|hundred)|"
        r"several\s+(?:thousand|hundred)|thousands\s+of|hundreds\s+of)\s+(?:training\s+)?(?:steps|iterations|its|batches|epochs|hours|minutes)\b|"
        r"\b(?:trains?|training|trained|ran|runs?|running|worked|works|goes|went)\s+for\s+(?:about\s+|around\s+|roughly\s+|over\s+|"
        r"more\s+than\s+|~\s*)(?:\d[\d,.]*k?)\s+(?:steps|iterations|hours|epochs)\b|"
        r"\b(?:a\s+couple\s+(?:of\s+)?|a\s+few\s+|several\s+)(?:thousand|hundred)\s+(?:training\s+)?(?:steps|iterations)\b|"
        r"(?:跑|训练?)了\s*(?:不到|大概|大约|约|差不多)?\s*(?:\d+|[一二两三四五六七八九十百千万几]+)\s*多?\s*个?\s*(?:steps?|步|epochs?|轮|小时|钟头)|"
        r"(?:跑|训练?)了\s*(?:整整)?(?:一个?|一整个?|大半个?|半个?)\s*(?:晚上|夜|通宵|白天|下午|上午|天)|"
        r"(?:挂|死|崩|卡|停|断)在\s*(?:了)?\s*(?:第)?\s*\d+\s*多?\s*(?:个\s*)?(?:steps?|步|iters?)|"
        r"(?:跑|训练?)到\s*(?:了)?\s*(?:大概|约)?\s*[一二三四五六七八九十]\s*分之\s*[一二三四五六七八九]|"
        r"(?<!\d)\d+\s*多?\s*(?:个\s*)?(?:steps?|步|epochs?|轮)\s*(?:之前|以前)\s*(?:都|一直|还)?\s*(?:正常|没问题|好好的|挺好|可以)",
        _unless_negated(_simple("trained_before_oom", True)),
    ),
    # checkpointing asked for but off on the model: "print(model.is_gradient_checkpointing) -> False", "model.is_gradient_checkpointing 是 False"
    (
        r"\bis_gradient_checkpointing\b\)?\s*(?:->|=>|==|:|=|是|为|returns?|prints?|gives?|shows?|is)\s*[`'\"]?false\b",
        lambda m: [("gradient_checkpointing", True), ("gc_active", False)],
    ),
    # FSDP said as what the run uses: "用 FSDP 训练", "accelerate + FSDP 全参", "distributed_type: FSDP", "moved from DDP to FSDP",
    # "All FSDP jobs start to have OOM" (Megatron-Bridge#1856)
    (
        r"(?:用|使用|采用|基于|开启了?|开了)\s*(?:pytorch\s*|torch\s*)?fsdp2?\b|\+\s*fsdp2?\b|\bfsdp2?\s*\+|"
        r"\bfsdp2?\s+(?:jobs?|runs?|training\s+(?:jobs?|runs?)|experiments?|workloads?)\b|"
        r"\bfsdp2?\s*(?:训练|微调|全参|全量|多卡)|\bdistributed_type\s*[:=]\s*['\"]?fsdp2?\b|^\s*fsdp_config\s*:|"
        r"\b(?:with|using|via|uses|use|used|enable|enabled|to)\s+(?:pytorch\s+|torch\s+|the\s+)?fsdp2?\b(?!\s*(?:is|was)\b)|"
        # named as what trains or fails ("FSDP training of llama 7b OOMs", "FSDP full shard across 4 A6000s", "fsdp OOM
        # when saving"), or as one item of a list of the run's set-up ("llama 70b, fsdp, 8xA100, OOM")
        r"\bfsdp2?\s+(?:training|fine-?tun\w*|finetun\w*|sft|oom\w*|out\s+of\s+memory|full[_ ]?shard|shard[_ ]grad[_ ]op|hybrid[_ ]shard)\b|"
        r"(?:^|[,;|/(])\s*fsdp2?\s*(?=[,;|/)]|-\s)|"
        # PyTorch's own names and accelerate's key: "FullyShardedDataParallel(model)", "fully_shard(layer)",
        # "fsdp_version: 2"
        r"\bFullyShardedDataParallel\s*\(|\bfully_shard\s*\(|\bfsdp_version\s*[:=]\s*['\"]?[12]\b",
        _unless_sharding_asked(_unless_negated(_simple("distributed", "fsdp"))),
    ),
    # host RAM said in words: "CPU OOM", "not GPU memory, but regular system memory", "out of my 64G ram", "system RAM
    # fills up to 64GB", "the kernel kills it"
    (
        r"\b(?:cpu|host|system)\s+(?:oom|out\s+of\s+memory)\b|\bnot\s+(?:the\s+)?gpu\s+memory\b|"
        r"\b(?:system|host|cpu)\s+(?:ram|memory)\s+(?:fills?\s+up|filled\s+up|is\s+full|maxes\s+out|maxed\s+out)\b|"
        r"\b(?:the\s+)?(?:linux\s+)?(?:kernel|oom[- ]?killer)\s+(?:kills?|killed|terminat(?:es|ed))\b|"
        r"\b(?:cpu|host|system)\s+ram\s+(?:keeps?|kept)\b|\bout\s+of\s+(?:my\s+|the\s+)?(?:\d+\s*G[B]?\s+)?(?:cpu\s+|host\s+|system\s+)?ram\b|"
        # "out-of-memory (CPU memory)" (NeMo#11784); a notebook kernel that dies or is restarted, which is what the
        # OOM killer does to it ("Kernel dying when running the SST classification example", "score() causes kernel
        # restart", "the jupyter-kernel is forced to restart")
        r"\bout[- ]of[- ]memory\s*\((?:cpu|host|system)\s+(?:memory|ram)\)|"
        # (not a restart the user makes to free memory: "only a kernel restart frees it", "I restarted the kernel")
        r"\bkernel\s+(?:keeps\s+|kept\s+)?(?:died|dies|dying)\b|\bkernel\s+appears\s+to\s+have\s+died\b|"
        r"\b(?:caus\w*|forc\w*|leads?\s+to|trigger\w*)\s+(?:a\s+|the\s+)?(?:jupyter[- ])?kernel\s+(?:to\s+)?restart|"
        r"\bkernel\s+(?:is|was|gets|got)\s+forced\s+to\s+restart|"
        r"\bkernel\s+(?:restarts|restarted)\s+(?:itself|automatically|on\s+its\s+own)\b|"
        r"(?:kernel|内核)\s*(?:挂了|崩溃了?|重启了?)",
        _unless_negated(_simple("error_kind", "host_oom")),
    ),
    # the allocator's spare memory said in prose, not in the OOM message: "reserved but unallocated memory is 6 GiB"
    (
        r"\breserved[- ]but[- ]unallocated\s+(?:memory\s+)?(?:is|was|of|=|:)\s*(?:about\s+|around\s+|~)?"
        r"(?P<n>\d+(?:\.\d+)?)\s*(?P<u>[gm])i?b\b",
        lambda m: [
            (
                "torch_reserved_unallocated_bytes",
                int(_num(m.group("n")) * (GiB if m.group("u").lower() == "g" else MiB)),
            )
        ],
    ),
    # every process on one card: "the weights still land on rank 0", "所有进程都在0卡上"
    (
        r"\b(?:allocated|placed|loaded|put|land(?:s|ed)?|end(?:s|ed)?\s+up|all\s+go|sit(?:s|ting)?)\s+(?:on|to)\s+[`'\"]?"
        r"(?:rank|gpu|cuda:?|device)\s*0\b|\b(?:all|every|each)\s+(?:of\s+the\s+)?(?:processes|ranks|workers)\b[^.;]{0,30}"
        r"\b(?:on|use|uses|using)\s+(?:the\s+same\s+gpu|[`'\"]?(?:gpu|cuda:?)\s*0)\b|"
        r"\b(?:processes|ranks|workers)\s+(?:are\s+|sit\s+|sitting\s+)?all\s+(?:on|use|using|sit\s+on|sitting\s+on)\s+"
        r"[`'\"]?(?:gpu|cuda:?|device)\s*0\b|"
        r"(?:进程|rank)[^，。,；;]{0,8}(?:都|全)(?:在|跑到|加载到|放到|挤在)\s*(?:0|零)\s*号?(?:卡|gpu)",
        _unless_negated(_simple("all_ranks_on_gpu0", True)),
    ),
    # memory another process holds: "有一张卡已经被占用了15G显存", "15 GB used by another process"
    (
        r"(?:已经|已)?被(?:其他|别的|另一个|别人的)?(?:进程|程序|任务|人)?占(?:用)?了?\s*(?P<n>\d+(?:\.\d+)?)\s*G|"
        r"(?:显存|memory)\s*还?(?:有|剩)\s*(?P<r>\d+(?:\.\d+)?)\s*G[B]?\s*(?:没有?|未)(?:被)?释放|"
        r"(?<![\w.])(?P<e>\d+(?:\.\d+)?)\s*G(?:i?B)?\s+(?:is\s+|are\s+)?(?:already\s+)?(?:used|occupied|taken|held)\s+by\s+"
        r"(?:another|other|a\s+different|some\s+other)\b|"
        # "another user's job is using 10GB", "someone else's process occupies 8GB"
        r"\b(?:another|other|a\s+different|some\s+other|some(?:one|body)\s+else'?s)\s+(?:user'?s\s+|person'?s\s+|team'?s\s+)?"
        r"(?:process|program|job|user|task|run)(?:es|s)?\s+(?:is\s+|are\s+)?(?:already\s+)?"
        r"(?:using|uses|holds?|holding|occupies|occupying|takes|taking)\s+(?:about\s+|around\s+|~)?(?P<o>\d+(?:\.\d+)?)\s*G(?:i?B)?\b",
        lambda m: [
            ("other_process_bytes", int(_num(m.group("n") or m.group("r") or m.group("e") or m.group("o")) * GiB))
        ],
    ),
    # resuming: "after I restart from a saved checkpoint", "断点续训"
    (
        r"\b(?:resum(?:e|ed|ing)|restart(?:ed|ing)?|continu(?:e|ed|ing))\s+(?:(?:the\s+|my\s+|our\s+)?(?:[\w-]+\s+)?(?:training|run)\s+)?"
        r"from\s+(?:a\s+|the\s+|my\s+|our\s+|an?\s+old\s+)?(?:saved\s+|previous\s+|last\s+|sharded\s+|distributed\s+)?checkpoint|断点续训|从\s*(?:checkpoint|检查点|断点)\s*(?:恢复|继续|重新)|恢复训练",
        _unless_negated(_simple("resume_from_checkpoint", True)),
    ),
    # the setting given a checkpoint or true: "resume_from_checkpoint=output/checkpoint-2000", "--resume_from_checkpoint True"
    # (not false, none or null, a config's default, nor a variable: "resume_from_checkpoint=args.resume_from_checkpoint")
    (
        r"(?<![\w-])(?:--)?resume_from_checkpoint[\"']?\s*(?:[=:]|\s)\s*[\"']?"
        r"(?:(?:true|yes)\b|[\w.~-]*/[\w./~-]*|[\w.~-]*checkpoint-\d+)",
        _unless_negated(_simple("resume_from_checkpoint", True)),
    ),
    # how many GPUs a launcher or the environment names: "CUDA_VISIBLE_DEVICES=0,1,2,3", "--nproc_per_node 8",
    # DeepSpeed's "--include localhost:0,1" (the ids of one host),
    # "GPUS=8" (but not a list of GPU ids in prose: "on GPUs 1, 2, and 3")
    (
        # also the key quoted ('os.environ["CUDA_VISIBLE_DEVICES"] = "2, 3, 4"', ChatGLM-Finetuning#66), PaddlePaddle's
        # launcher ('paddle.distributed.launch --gpus "0,2"', PaddleNLP#5822)
        r"\bCUDA_VISIBLE_DEVICES?[\"'\]]*\s*=\s*[\"']?(?P<ids>\d+(?:\s*,\s*\d+)*)(?![\w,])|"
        r"(?<![\w-])--gpus[=\s]+[\"']?(?P<gid>\d+(?:\s*,\s*\d+)+)(?![\w,])|"
        r"--include[=\s]+[\"']?(?:localhost|[\w.-]+):(?P<inc>\d+(?:,\d+)*)(?![\w,@])|"
        r"(?:--(?:nproc_per_node|num_gpus|num_processes|n_gpus|ngpus)[\"']?\s*[=:\s]|"
        r"\b(?:nproc_per_node|num_gpus|num_processes|n_gpus|ngpus|GPUS|GPUS_PER_NODE|NPROC_PER_NODE|NUM_GPUS)[\"']?\s*[=:])"
        r"\s*[\"']?(?P<n>\d{1,3})\b",
        lambda m: [
            (
                "gpu_count",
                len((m.group("ids") or m.group("inc") or m.group("gid")).split(","))
                if m.group("ids") or m.group("inc") or m.group("gid")
                else int(m.group("n")),
            )
        ],
    ),
    # several processes, one per GPU, when no other scheme is named (read last: see read_lines)
    # the trainer a script or launcher names: "train_ppo_ray.py", "run_dpo.sh", "ppo_trainer", "--stage dpo"
    (
        r"\b(?:train|run)_(?P<s>dpo|ppo|grpo|sft|kto|orpo|rm|simpo)(?:_\w+)?(?:\.sh|\.py)?\b|"
        r"\b(?P<t>dpo|ppo|grpo|sft|kto|orpo)_?trainer\b|(?:--|\b)stage[\"']?\s*[:=\s]\s*[\"']?(?P<g>sft|dpo|ppo|rm|kto|orpo)\b",
        lambda m: (
            [("trainer_type", {"rm": "reward", "simpo": "dpo"}.get(k, k))]
            if (k := (m.group("s") or m.group("t") or m.group("g")).lower())
            else []
        ),
    ),
    # a second model on the GPU: "makes a copy of the initial model", "reference model", "参考模型"
    (
        r"\bref(?:erence)?[ _]model\b(?!\s*=\s*None)|参考模型|"
        r"\b(?:makes?|keeps?|creates?|loads?)\s+a\s+(?:second\s+)?copy\s+of\s+the\s+(?:initial\s+|base\s+|whole\s+|same\s+)?model\b",
        _unless_negated(_simple("ref_model_separate", True)),
    ),
    (r"\bprepare_model_for_(?:kbit|int8)_training\b", _unless_negated(_simple("prepare_kbit_training", True))),
    (
        r"--rlhf_type[=\s]+(?P<r>dpo|ppo|kto|orpo|cpo|simpo|grpo|rm)\b",
        lambda m: (
            [("trainer_type", {"rm": "reward", "simpo": "dpo", "cpo": "dpo"}.get(k, k))]
            if (k := m.group("r").lower())
            else []
        ),
    ),
    # what changed since it last worked: the data ("when I use a larger dataset", "换了数据集之后就爆显存")
    (
        r"\b(?:when|after|once|since|with|to)\s+(?:i\s+|we\s+)?(?:(?:use|using|used|switch(?:ed|ing)?\s+to|"
        r"chang(?:e|ed|ing)\s+to|mov(?:e|ed)\s+to|train(?:ed|ing)?\s+on)\s+)?(?:a|the|my)\s+(?:much\s+)?"
        r"(?:larger|bigger|different|new|longer)\s+(?:dataset|data\s*set|corpus)\b|"
        r"(?:换|更换|换成)了?(?:一个)?(?:新的|更大的|别的|其他的?|不同的|自己的)?数据集|数据集(?:换了|变大了?|更大了)",
        _unless_negated(_data_changed),
    ),
    (r"\bWSL2?\b", _simple("os", "wsl")),
    (r"\bwindows\b", _simple("os", "windows")),
    (r"\b(?:ubuntu|linux|centos|debian)\b", _simple("os", "linux")),
    (r"\bmac ?os\b|\bmacbook\b|\bapple m[1-4]\b", _simple("os", "macos")),
    (r"第\s*(?P<n>\d+)\s*(?:个)?\s*(?:step|步)", _step_named),
    # "训练了3000步之后OOM", "跑了大概500个step以后爆显存"
    (
        r"(?:训练|跑|运行|迭代)了?\s*(?:大概|大约|约|差不多|将近)?\s*(?P<n>\d+)\s*(?:个)?\s*(?:steps?|步|次迭代|iter(?:ation)?s?)"
        r"\s*(?:之后|以后|后|左右)",
        _simple("oom_step"),
    ),
    (
        # a count said roughly: "at step ~1500", "after about 300 steps", "after around 2000 training steps"
        r"\b(?:at|on|around|by|reach(?:es|ed)?|until)\s+(?:the\s+)?(?:training\s+)?(?:step|batch|iteration)\s*#?\s*~?\s*"
        r"(?P<n>\d+)\b(?!\s*(?:/|of\s+\d))|"
        r"\bafter\s+(?:~\s*|(?:about|around|approximately|roughly|some|nearly|almost|over|more\s+than)\s+)?"
        r"(?P<a>\d+)\s+(?:training\s+)?(?:steps|iterations|iters)\b|"
        # "it runs for 200 steps then OOMs", "trained fine for about 1500 iterations"
        r"\b(?:runs?|ran|trains?|trained|goes|went)\s+(?:fine\s+|ok\s+|well\s+)?for\s+"
        r"(?:~\s*|(?:about|around|approximately|roughly|some|nearly|almost|over)\s+)?(?P<r>\d+)\s+(?:steps|iterations|iters)\b|"
        # not a pipeline's stage: DeepSpeed-Chat's "RuntimeError: Step 1 exited with non-zero status 1", "---=== Running
        # Step 1 ===---", "Step 1 model has not been trained", "train.py --step 1"
        r"(?<!-)(?<!running\s)(?<!finished\s)\bstep\s+(?P<s>\d+)\b"
        r"(?!\s+(?:exited|failed\s+with\s+(?:exit|non-zero)|of\s+the\s+(?:pipeline|readme|tutorial)|model\b|in\s+\d|===))",
        _step_named,
    ),
    (
        r"\b(?:the\s+)?(?:very\s+)?first\s+(?:training\s+)?step\b|第一步|一开始(?:训练)?就|"
        r"\b(?:ooms?|crash(?:es|ed)?|fails?|failed|dies|died|errors?\s+out)\s+(?:immediately|instantly|right\s+away)\b|"
        r"\bimmediately\s+(?:ooms?|runs?\s+out|crash(?:es)?|fails?|dies)\b|"
        # "as soon as trainer.train() starts", "on the very first forward pass"
        r"\bas\s+soon\s+as\s+(?:the\s+)?(?:training|fine-?tuning|trainer\.train\(\)|train\(\))\s+(?:starts|begins|is\s+called)\b|"
        r"\b(?:on|in|during)\s+the\s+(?:very\s+)?first\s+(?:forward|backward)(?:\s+pass)?\b|"
        r"\bat\s+the\s+(?:very\s+)?(?:start|beginning)\s+of\s+(?:the\s+)?training\b|\bon\s+the\s+(?:very\s+)?first\s+batch\b|"
        r"第一个\s*(?:step|batch|iteration|迭代)|刚(?:开始|启动)(?:训练)?就|(?:训练)?一(?:启动|跑|运行|执行)就|还没(?:开始)?(?:训练|跑)就|"
        # "在训练开始前就报错OOM", "before training even starts"
        r"训练(?:开始|启动)(?:之)?前(?:就)?|\bbefore\s+(?:the\s+)?training\s+(?:even\s+)?(?:starts|started|begins|began)\b",
        _unless_negated(_first_step),
    ),
    # a later step by its ordinal: "it OOMs on the 3rd step", "OOM on the second iteration"
    (
        r"\b(?:on|at|in|during)\s+the\s+(?P<o>second|third|fourth|fifth|2nd|3rd|[4-9]th)\s+(?:training\s+)?(?:step|iteration|batch)\b|"
        r"第\s*(?P<z>[二三四五])\s*(?:个)?\s*(?:step|步|iteration|batch|迭代)",
        _unless_negated(_ordinal_step),
    ),
    # a later epoch: "at epoch 3", "第3个epoch的时候"
    (
        r"\b(?:at|in|during)\s+(?:the\s+)?(?:(?:start|beginning|end|middle)\s+of\s+(?:the\s+)?)?"
        r"(?:epoch\s+[2-9]\d*|(?:second|third|fourth|2nd|3rd|\d+th)\s+epoch)\b|"
        r"第\s*[2-9二三四五六七八九]\s*个?\s*(?:epoch|轮)|\bepoch\s*[2-9]\d*\s*的?(?:时候|时)",
        _unless_negated(_simple("trained_before_oom", True)),
    ),
    # DeepSpeed as the launcher or its config: "deepspeed --include localhost:2 train.py", "deepspeed配置如下", "用deepspeed双卡"
    (
        r"^\s*deepspeed\s+(?:--|\S+\.py\b)|(?<![\w-])--deepspeed(?:_config|_config_file|_multinode_launcher)?\b(?!\s*(?:none|false)\b)|"
        # the engine's set-up, called or named as where it failed: "在deepspeed.initialize阶段还是oom了" (EAGLE#260)
        r"(?<![\w.])deepspeed\.initiali[sz]e\b|"
        r"\bdeepspeed\s*(?:的)?\s*(?:配置|config(?:uration)?\s*(?:is|was|file|:))|(?:用|使用|采用|基于|开启了?)\s*deepspeed|"
        # named as what trains or fails, or as one item of a list of the run's set-up (as FSDP above)
        r"\bdeepspeed\s+(?:training|fine-?tun\w*|finetun\w*|sft|oom\w*|out\s+of\s+memory)\b|"
        r"(?:^|[,;|/(])\s*deepspeed\s*(?=[,;|/)])",
        _unless_sharding_asked(_unless_negated(_simple("distributed", "deepspeed"))),
    ),
    # DeepSpeed named by what only a DeepSpeed run has: its config keys, DeepSpeed-Chat's scripts (its own code in a
    # traceback: _SHARDING_FRAME)
    (
        r"\bdeepspeed_config(?:_file)?\s*[:=]|\bDeepSpeed-Chat\b",
        _unless_negated(_simple("distributed", "deepspeed")),
    ),
    # the stage in a config file's name: "ds_config_zero3.json", "qwen2_7b_full_sft_ds3.yaml", "ds_stage3.yaml"
    (
        r"(?<![a-z0-9])ds_config_zero([123])(?![0-9])|_ds([123])\.(?:ya?ml|json)(?![\w.])|(?<![a-z0-9])ds_stage([123])\b|"
        # DeepSpeed's config named by its stage: "the stage2.json", "zero3.json", "zero_stage3_config.json"
        r"(?<![\w/-])(?:zero_?)?stage_?([123])(?:_config)?\.json\b|(?<![\w/-])zero([123])(?:_[a-z]+)*\.json\b",
        _unless_negated(lambda m: [("distributed", "deepspeed"), ("zero_stage", next(g for g in m.groups() if g))]),
    ),
    # FSDP by llama-recipes' flag, "--enable_fsdp" (its own code in a traceback: _SHARDING_FRAME)
    (
        r"(?<![\w-])--enable_fsdp\b|\benable_fsdp\s*[=:]\s*true\b",
        _unless_negated(_simple("distributed", "fsdp")),
    ),
    # ZeRO with offload in one word: "zero3+offload", "zero3_offload", "ds_z3_offload_config.json"
    (
        r"\bzero[_-]?(?:stage[_-]?)?[123]\s*(?:\+|_|-|\s)\s*(?:cpu[_-]?)?offload\b|(?<![a-z0-9])ds_z[123]_offload",
        _unless_negated(_simple("offload", True)),
    ),
    # ZeRO offload by its device on one line: '"offload_optimizer": {"device": "cpu"}', "offload_param_device: cpu"
    # (accelerate's config), "offload_optimizer和offload_param的device都设置了cpu" (a config pasted over several
    # lines: _OFFLOAD_BLOCK)
    (
        r"\boffload_(?:optimizer|param)(?:_device)?[\"']?\s*[:=]\s*\{?\s*(?:[\"']?device[\"']?\s*[:=]\s*)?[\"']?(?:cpu|nvme)\b|"
        r"\boffload_(?:optimizer|param)[^。；;！!？?\n]{0,40}?device[^。；;！!？?\n]{0,6}?(?:设置|设|改|配置)(?:成|为|了|到)+\s*[\"']?(?:cpu|nvme)\b",
        _unless_negated(_simple("offload", True)),
    ),
    # the optimizer states or the parameters placed on the CPU, in words: "I offloaded the optimizer to CPU",
    # "parameters offloaded to the CPU", "deepspeed zero3配置，并尽可能将所有参数放置在cpu上" (MiniCPM-V#286),
    # "把优化器放到cpu上", "offload_optimizer到cpu". Not a model's layers dispatched by a device map.
    (
        r"\b(?:offload(?:ed|s)?|mov(?:e|ed|es|ing)|put(?:ting|s)?|plac(?:e|ed|es|ing)|kept|keep(?:s|ing)?)\s+"
        r"(?:the\s+|all\s+(?:of\s+)?(?:the\s+)?|most\s+of\s+the\s+)?(?:optimi[sz]er(?:\s+states?)?|param(?:eter)?s)\s+"
        r"(?:on|to|onto|in)(?:\s+the)?\s+(?:cpu|nvme)\b|"
        r"\b(?:optimi[sz]er(?:\s+states?)?|param(?:eter)?s)\s+(?:(?:are|were|is|was|being)\s+)?offloaded\s+(?:on)?to\s+"
        r"(?:the\s+)?(?:cpu|nvme)\b|"
        r"(?:参数|优化器(?:状态)?|optimizer)(?:都|全部|全)?\s*(?:放置|放|卸载|转移|移|offload)\s*(?:到|在|至)\s*(?:了\s*)?cpu|"
        r"offload_(?:optimizer|param)\s*(?:到|至|放到|设为|设置为|设成)\s*cpu",
        _unless_negated(_simple("offload", True)),
    ),
    # the layers split over the cards of one process: "模型并行参数开启", "model parallel (device_map)"
    (
        r"模型并行(?:参数)?\s*(?:开启|打开|已开|开着)|(?:开启|打开|使用|用)了?\s*模型并行|"
        r"\bnaive\s+(?:pipeline|model)\s+parallel(?:ism)?\b|\bmodel[ _]parallel(?:ism)?\s+(?:with|via|using)\s+device_map\b",
        _unless_negated(_simple("distributed", "model_parallel")),
    ),
    # the device map said in code or prose: "device_map='auto'", "different type of device_map(auto,balanced,balanced_low_0)"
    (
        r"\bdevice_map\s*(?:=|:|\(|\s+to\s+|\s+is\s+)\s*[\"'`]?(?P<dm>auto|balanced_low_0|balanced|sequential)\b",
        _unless_negated(lambda m: [("device_map", m.group("dm").lower())]),
    ),
    # LoRA said by its flags or a script's name: "--lora_rank 4", "baichuan_lora_tuning.py", "..._finetune_lora.sh"
    (
        r"(?<![\w-])--?lora_(?:rank|r|alpha|target|dropout)\b|(?<![\w.])lora_(?:rank|alpha)\s*[:=]|"
        # DeepSpeed-Chat's and swift's LoRA settings said bare: "lora_dim设成了1", "lora_target_modules 设置为'ALL'"
        r"(?:(?<![\w.-])|(?<=--))(?:actor_|critic_)?lora_(?:dim|module_name|target_modules)\b|"
        r"\b\w*(?:_lora_(?:tun|train|finetun|sft)\w*|(?:finetune|train|sft|tuning)\w*_lora)\w*\.(?:sh|py)\b|"
        # its switch on a command line: "--use_lora true", "--lora_enable True", "--lora True", "add --use_lora"
        r"(?<![\w-])--(?:use_lora|lora_enable|lora)\b\s*[=:]?\s*['\"]?(?:true|1)\b|"
        r"(?<![\w-])--(?:use_lora|lora_enable)\b(?!\s*[=:]?\s*['\"]?(?:false|0|no)\b)",
        _unless_negated(_simple("finetune_method", "lora")),
    ),
    # QLoRA by a script's name: "finetune_qlora_single_gpu.sh", "qlora_finetune"
    (
        r"\b\w*(?:(?:finetune|train|sft|tuning)\w*_qlora|qlora_(?:finetune|train|sft|tuning))\w*(?:\.(?:sh|py))?\b",
        _unless_negated(lambda m: [("finetune_method", "qlora"), ("quantization", "4bit")]),
    ),
    # quantization said in Chinese with its bits: "--quatization_bit 4 进行量化", "量化到int4", "8位的量化"
    (
        r"(?<![\w.])(?:int)?(?P<b>[48])\s*(?:(?:bit|bits|位|比特)\s*(?:的)?\s*(?:进行|来)?|进行|来)\s*量化|"
        r"量化(?:到|成|为)\s*(?:int)?(?P<a>[48])(?!\d)",
        _unless_negated(lambda m: [("quantization", f"{m.group('b') or m.group('a')}bit")]),
    ),
    # a vision-language model named without its size: "minicpm-v-2.6", "Qwen2-VL", "InternVL2.5"
    (
        r"(?<![\w/.-])((?:qwen[-_]?[23](?:\.5)?[-_]?vl|qwen[-_]?vl|minicpm[-_]?[vo]|internvl|cogvlm|cogagent|glm[-_]?4v|"
        r"deepseek[-_]?vl|llava)[\w.-]*)(?![\w/])",
        lambda m: [("model_name", m.group(1).rstrip(".-"))],
    ),
    # half precision in words or ChatGLM's .half()
    (
        r"半精度(?:加载|训练|推理)?|\bmodel\.half\(\)|\.half\(\)\.cuda\(\)|\.cuda\(\)\.half\(\)",
        _unless_negated(_simple("torch_dtype", "fp16")),
    ),
    # the weights' dtype by other names: vLLM's and lm-eval's "dtype=torch.bfloat16", llama-recipes' "--pure_bf16",
    # Lightning's "--precision bf16-true", "用bf16加载", ".float()" that casts the model to float32
    (
        r"(?<![\w.])dtype\s*[=:]\s*['\"]?(?:torch\.)?(?P<d>bfloat16|bf16|float16|fp16|half|float32|fp32)\b|"
        r"(?<![\w-])--pure_(?P<p>bf16|fp16)\b|\bprecision[\s=:'\"]+(?P<t>bf16|16)-true\b|"
        r"(?:用|以|按)\s*(?P<z>bf16|fp16|bfloat16|float16)\s*(?:精度)?\s*加载|\bload(?:ed|s|ing)?\s+(?:it\s+|the\s+model\s+)?in\s+(?P<l>bf16|fp16|bfloat16|float16)\b|"
        r"(?P<f>\bmodel\.float\(\)|加了?\s*\.?float\(\))",
        _unless_negated(_weights_dtype),
    ),
)
#: A setting or a line of code commented out in a pasted script or config: "# --gradient_checkpointing",
#: "#deepspeed=ds.json", "# gradient_checkpointing: true", "# model.gradient_checkpointing_enable()". A Markdown
#: heading ("# System Info", "## Reproduction: ...") is not one.
_COMMENTED_OUT = re.compile(
    r"\s*#+\s*(?:--?[a-z][\w-]*|[a-z_][\w.]*\s*=(?!=)|[a-z][a-z0-9]*_[\w.]*\s*:\s*\S|[\w.]+\.[a-z_]\w*\()", _I
)

PATTERNS: tuple[tuple[re.Pattern[str], Extract], ...] = tuple((re.compile(p, _I), f) for p, f in _PATTERN_TABLE)


def _gpus_any(m: re.Match[str]) -> list[tuple[str, object]]:
    raw = next((m.group(g) for g in ("n", "n1", "n2", "n2c", "n3", "n4", "n5", "n6", "n7", "n8") if m.group(g)), None)
    if (
        raw is None
        or (m.group("n5") and int(m.group("m5")) not in _GPU_MEMORY_SIZES)
        or (m.group("n8") and int(m.group("m8")) not in _GPU_MEMORY_SIZES)
    ):
        return []  # "80G*8 VRAM" is eight cards of a card's size; "100G*3" is not
    count = _with_the_one(m, _count(raw))
    if count == 1 and _PLACED_ON_ONE.search(m.string[max(0, m.start() - 40) : m.start()]):
        return []  # where the model went, not the machine: "loads the model directly into one GPU", "uses only one gpu"
    return [("gpu_count", count)] if count and 1 <= count <= 1024 else []


#: Words before "one GPU" that say where the model or the work went, not how many cards there are.
_PLACED_ON_ONE = re.compile(
    r"(?:\b(?:into|onto)|\b(?:load(?:s|ed|ing)?|put(?:s|ting)?|plac(?:es|ed|ing)|mov(?:es|ed|ing))\b[^.,;\n]{0,30}\bto|"
    r"\b(?:uses?|using|used)\s+(?:only|just)|\butili[sz](?:es|ed|ing|e)(?:\s+(?:only|just))?|"
    r"\b(?:only|just)\s+(?:uses|using|used|utili[sz]\w*)"
    r"|只(?:用|使用|占用|调用|加载到|放到|跑在)了?)\s*$",
    _I,
)


def _near(text: str, start: int, end: int, pattern: re.Pattern[str], before: int = 24, after: int = 16) -> bool:
    return bool(pattern.search(text[max(0, start - before) : start]) or pattern.search(text[end : end + after]))


_INEFFECTIVE = re.compile(
    r"[`'\"]?"  # "`finetune_gradient_checkpointing` has no effect"
    r"(?:\s+(?:of|for|in|on)\s+(?:the\s+)?[\w.-]+(?:\s+model)?)?"  # "gradient checkpointing of the LLaMA model does not work"
    r"(?:\s*(?:is|was|seems|doesn'?t|does not|did not|didn'?t)?\s*(?:not\s+)?(?:tak(?:e|ing)\s+effect|ineffective|"
    r"(?:not\s+)?(?:active|applied)\b)|\s*(?:does\s+not|doesn'?t|did\s+not|didn'?t|is\s+not|isn'?t)\s+(?:seem\s+to\s+)?"
    r"(?:work(?:s|ing|ed)?|do\s+anything|make\s+(?:any\s+)?difference|change\s+anything|(?:reduce|save|lower)\s+(?:any\s+)?memory)\b|"
    r"\s*(?:makes|made)\s+no\s+difference\b|\s*does\s+nothing\b|"
    # "加了 --gradient_checkpointing 显存和不加一样", "开了梯度检查点跟不开的时候显存一样", "开了梯度检查点，显存一点没降"
    r"(?:\s*[=:]\s*true)?\s*(?:之?后|以后)?[，,]?\s*(?:可是|但是?|却|然而)?\s*(?:"
    r"(?:显存|memory)?(?:占用)?\s*(?:还是)?\s*(?:和|跟|与)\s*(?:不|没)(?:加|开|用)(?:的时候)?\s*(?:显存|memory)?(?:占用)?\s*"
    r"(?:一样|差不多|相同|没区别|没有区别)|显存(?:占用)?\s*(?:一点|丝毫)?(?:都|也)?\s*没(?:有)?(?:降|减少|变化|变))|"
    r"\s*(?:has|had|have)\s+no\s+effect\b|\s*(?:is|was|gets?|got)\s+(?:silently\s+)?ignored\b|"
    r"\s*(?:好像|似乎)?(?:没有?生效|不生效|未生效|没起作用|不起作用|没用上|没有?效果|无效))",
    _I,
)


#: A setting not turned off, right before it: two negations that leave it on.
_NOT_TURNED_OFF = re.compile(
    r"(?:没有?|未|忘了?|忘记)\s*(?:关|关闭|关掉|禁用)\s*(?:掉|了)?\s*$|"
    r"\b(?:didn'?t|did\s+not|never|forgot\s+to|forget\s+to)\s+(?:turn\s+off|disable|switch\s+off)\s+(?:the\s+)?$",
    _I,
)


def _toggle_state(line: str, start: int, end: int) -> bool | str | None:
    """On (True), off (False), "inactive" (set but without effect) or unsaid (None) for line[start:end]."""
    before = line[max(0, start - 24) : start]
    after = line[end : end + 20]
    wide = line[end : end + 36]
    if _INEFFECTIVE.match(wide) and not re.match(r"\s*(?:is|was)?\s*active\b", wide, _I):
        return "inactive"
    term = line[start:end].lower()
    if term.endswith(":true") or re.match(r"\s*[:=]\s*(?:true|1)\b", after, _I):
        return True
    if re.match(r"\s*[:=]\s*(?:false|0)\b", after, _I):
        return False
    if _NOT_TURNED_OFF.search(before):
        return True  # "训练时没关use_cache", "I forgot to disable packing": left on
    if NEGATE.search(before) or re.match(
        r"\s*(?:is|was)?\s*(?:not|off|disabled|false)\b|\s*(?:没|未|关|不)", after, _I
    ):
        return False
    if re.search(r"(?<![\w-])--[\w-]*$", before) and not re.match(r"[\w-]*\s*[=\s]\s*(?:false|0|none)\b", after, _I):
        return True  # a command-line flag: "--adam_offload", "--flash_attn"
    if AFFIRM.search(before) or re.match(
        r"\s*(?:is|was)?\s*(?:on|enabled|true|set)\b|\s*(?:已|开|打开|启用)", after, _I
    ):
        return True
    return None


def _fuzzy_span(low: str, phrase: str) -> tuple[int, int] | None:
    from rapidfuzz import fuzz

    if len(low) < len(phrase) // 2:
        return None
    found = fuzz.partial_ratio_alignment(phrase, low, score_cutoff=88)
    return None if found is None else (found.dest_start, found.dest_end)


#: What an optimizer's name contains (HF ``optim`` values, torch and bitsandbytes class names).
_OPTIMIZER_WORD = re.compile(
    r"adam|lion|sgd|adafactor|lomo|galore|sophia|rmsprop|adagrad|ademamix|muon|shampoo|apollo", _I
)


def _inline_key(m: re.Match[str]) -> str:
    """The config key an :data:`_INLINE` match names, as :data:`RULES` spells it ("--batch-size" -> "batch_size")."""
    return m.group(1).lower().replace("-", "_")


def _inline(m: re.Match[str]) -> list[tuple[str, object]]:
    key = _inline_key(m)
    raw = m.group(2)
    if raw is None or raw.lower() in ("and", "or", "to", "is"):
        return RULES[key](True) if key in _BOOL_FLAG and m.group(0).startswith("--") else []
    # a sentence's full stop is not part of the value, nor the Chinese words glued after it ("是float16的")
    value: object = re.sub(r"[\u4e00-\u9fff]+$", "", raw).strip("'\",").rstrip(".")
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if key == "optim" and not _OPTIMIZER_WORD.search(str(value)):
        return []  # "the optim states are kept on GPU": prose after the word, not an optimizer's name
    if key in ("target_modules", "lora_target_modules", "modules_to_save") and isinstance(value, str):
        value = [v for v in re.split(r"[\[\],'\"\s]+", value) if v] or value
    try:
        return RULES[key](value)
    except (TypeError, ValueError):
        return []


def read_text(text: str) -> list[Found]:
    """Facts stated in free text, first mention of each fact wins, with line numbers and excerpts."""
    return read_lines(iter_text_lines(text))


#: A setting changed from one value to another: "batch size从8改成2就能跑了", "reduced max_length from 4096 to 2048".
def _setting_named(key: str) -> str:
    """The fact a setting's name in a "from A to B" or "the same X" phrase stands for.

    By the words it is made of rather than a table of spellings, so every spelling the phrases
    match has a fact ("max sequence length", "max_seq_len", "cutoff_len", "批大小", "the same batch").
    """
    low = re.sub(r"[\s_-]", "", key.lower())
    if "batch" in low or low == "bs" or "批" in low:
        return "batch_size"
    if "accumulation" in low:
        return "grad_accum"
    if low.startswith("lora"):
        return "lora_r"
    return "max_length"  # every other name the phrases match is a length: max_length, cutoff_len, 序列长度, 长度


_SPLIT_NOTE = "a device map over several cards in one process splits the layers across them"
#: A launcher that starts several processes: then a device map is not the only thing placing the model.
_LAUNCHER = re.compile(
    r"\baccelerate\s+launch\b|\btorchrun\b|torch\.distributed\.(?:launch|run)|--nproc[_-]per[_-]node|--num[_-]processes|"
    r"\bdeepspeed\b|\bmpirun\b|\bdistributed\s+mode\b|\bDDP\b|多卡训练|分布式",
    re.IGNORECASE,
)

#: Words right before a setting that say the fix added it: "我增加load_in_8bit就可以正常跑", "I added use_cache=False".
_ADDED = re.compile(r"(?:增加|加上|加了|添加|\badd(?:ed|ing)?|\bpass(?:ed|ing)?)\s*(?:了)?\s*(?:the\s+)?[`'\"]?$", _I)


def _changed_key(batch: str = r"batch[ _-]?size", group: str = "key") -> str:
    """A setting's name in the phrases that change it, ``batch`` the plain batch's spelling, ``group`` the name of the
    group that holds it."""
    return (
        # the trainers' own spellings with a prefix: "train_batch_size" (DeepSpeed), "per_gpu_train_batch_size"
        rf"(?:(?<=--)|(?<![\w-]))(?P<{group}>per[_ ]device[_ ]train[_ ]batch[_ ]size|micro[_ ]batch[_ ]size|"
        r"(?:per[_ ]gpu[_ ])?train[_ ]batch[_ ]size|" + batch + r"|\bbs\b|批大小|"
        r"max[_ ]seq(?:uence)?[_ ]len(?:gth)?|max[_ ]length|cutoff[_ ]len|block[_ ]size|seq(?:uence)?[ _-]?len(?:gth)?|序列长度|最大长度|截断长度|"
        r"gradient[_ ]accumulation[_ ]steps|lora[_ ]r(?:ank)?)"
    )


#: A setting's name in the phrases that change it (:data:`_FROM_TO`, :data:`_WORKS_THEN`; :func:`_setting_named`).
_CHANGED_KEY = _changed_key()
#: A setting lowered without a value ("Reducing seq_len solves it", "调小max_length就好了"): with a clause saying
#: that made it work (:func:`describes_a_fix`), the change that fixed the run.
_LOWERED = re.compile(
    r"(?:\b(?:reduc\w*|lower\w*|decreas\w*|shorten\w*|cutting|cut|drop\w*)\s+(?:down\s+)?(?:the\s+|my\s+)?|"
    r"(?:调小|减小|降低|缩短|减少|改小|调低)(?:了)?\s*)`?" + _CHANGED_KEY,
    _I,
)
#: The same with the setting first, in Chinese: "batch调小了还是OOM", "cutoff_len 已经减小，还是爆".
_LOWERED_AFTER = re.compile(
    # a bare "batch" names the batch here: a Chinese verb of lowering follows it
    _changed_key(batch=r"batch(?:[ _-]?size)?")
    + r"`?\s*(?:已经|也|都)?\s*(?:调小|减小|降低|缩短|减少|改小|调低|调到最小|降到最小)(?:了)?",
    _I,
)
#: A batch or length raised, then the failure: "I doubled the batch size and now it fails", "after increasing
#: max_length it OOMs", "调大batch size就爆显存", "batch_size改大之后OOM".
_RAISED = re.compile(
    r"(?:\b(?:increas\w*|rais\w*|doubl\w*|bump\w*|bigger|larger|longer)\s+(?:up\s+)?(?:the\s+|my\s+)?|"
    r"(?:调大|增大|加大|增加|提高|改大)(?:了)?\s*)`?" + _CHANGED_KEY,
    _I,
)
_RAISED_AFTER = re.compile(
    _changed_key(batch=r"batch(?:[ _-]?size)?") + r"`?\s*(?:调大|增大|加大|改大|翻倍|变大)(?:了)?", _I
)
#: More GPUs or another launcher, then the failure: "since moving to multi-GPU it OOMs", "after adding a second GPU",
#: "换成多卡就爆显存".
_WENT_MULTI = re.compile(
    r"\b(?:since|after|when)\s+(?:i\s+|we\s+)?(?:mov\w*|switch\w*|go(?:ing)?|went|chang\w*)\s+to\s+(?:a\s+)?"
    r"(?:multi(?:ple)?[- ]?gpus?|multi[- ]?node|several\s+gpus|more\s+gpus|ddp|distributed)\b|"
    r"\b(?:since|after|when)\s+(?:i\s+|we\s+)?add(?:ed|ing)?\s+(?:a\s+)?(?:second|another|more)\s+(?:gpu|card)s?\b|"
    r"(?:换成|改成|改用|切换到|换到)(?:了)?(?:多卡|多机|多张卡|分布式)",
    _I,
)
#: A 16-bit dtype chosen over fp32: "load PI0.5 in bfloat16 instead of fp32", "use fp16 rather than float32".
_DTYPE_INSTEAD = re.compile(
    r"\b(?P<new>bf16|bfloat16|fp16|float16|half(?:\s+precision)?)\s+(?:instead\s+of|rather\s+than|not)\s+"
    r"(?:the\s+(?:default\s+)?)?(?:fp32|float32|full\s+precision|32[- ]bit)\b",
    _I,
)
#: A package upgraded, then the failure: "after upgrading transformers it OOMs", "since I updated trl",
#: "升级transformers之后就爆显存".
_UPGRADED = re.compile(
    # not the weights a step updates ("after updating the weights it OOMs")
    r"\b(?:after|since)\s+(?:i\s+|we\s+)?(?:upgrad|updat|bump)\w*\b(?!\s+(?:the\s+)?(?:weights|param|optimi[sz]er|gradients|model\s+param))|"
    r"\bpip\s+install\s+(?:-U|--upgrade)\b|"
    # "After the 1.2.0 release my job OOMs", "since the latest update"
    r"\b(?:after|since)\s+(?:the\s+)?(?:latest\s+|new\s+|recent\s+)?(?:v?\d+(?:\.\d+)+\s+)?(?:release|update|upgrade)\b|"
    r"(?:升级|更新)(?:了)?[^。，,；;\n]{0,24}(?:之后|以后|后)|"
    # an upgrade named by its two versions: "Upgrade from 4.37.2 to 4.38.2 causes CUDA out of memory", "I recently
    # switched from version 3.10.3 to version 3.12.3, and I started getting OOM errors"
    r"\b(?:upgrad|updat|switch|bump|mov)\w*\s+(?:[\w.-]+\s+){0,2}from\s+(?:version\s+)?v?\d+(?:\.\d+)+\w*\s+to\s+"
    r"(?:version\s+)?v?\d+(?:\.\d+)+|"
    # "Transformers update lead to VRAM OOM", "the new release broke my training"
    r"\b(?:update|upgrade|new\s+(?:release|version))\s+(?:lead|led|leads|caus\w+|broke|results?\s+in)\b",
    _I,
)
#: The packages whose versions the reader names in the words around an upgrade or a downgrade.
_PACKAGES = r"(?:transformers|torch|pytorch|peft|trl|accelerate|bitsandbytes|deepspeed|vllm|unsloth|flash[-_ ]?attn)"
#: A package changed by name: "upgrading bitsandbytes fixed it", "升级 bitsandbytes 之后好了", "transformers 降级之后就好了".
#: Said with what made the run work, the package's version is what fixed it (``resolved_by``).
_PACKAGE_CHANGED = re.compile(
    r"(?:\b(?:upgrad|updat|downgrad|bump|revert|roll\w*\s+back)\w*|升级|降级|更新|回退|退回)\s*(?:to\s+)?(?:the\s+)?"
    r"(?:(?:latest|newest|new|older|previous)\s+)?(?P<pkg>" + _PACKAGES + r")\b|"
    r"(?<![\w.])(?P<pkg2>" + _PACKAGES + r")\s*(?:版本)?\s*(?:升级|降级|回退|更新)",
    _I,
)
#: Memory that went up after an upgrade, said instead of a failure: "显存明显变多", "uses much more memory".
_MORE_MEMORY = re.compile(
    r"显存[^。；;\n]{0,6}(?:变多|增加|上涨|涨了|翻倍|变大)|\bmore\s+(?:gpu\s+|vram\s+)?memory\b|"
    r"\bmemory\s+(?:usage\s+|consumption\s+)?(?:increas\w*|went\s+up|doubl\w*|grew|jump\w*)",
    _I,
)
#: A package and its version: "transformers 4.57", "trl==0.22.2".
_NAMED_VERSION = re.compile(r"(?P<pkg>" + _PACKAGES + r")\s*(?:==\s*|v)?(?P<v>\d+\.\d+(?:\.\d+)?)", _I)
#: Another version of a package ran the same thing (``last_change: library_upgrade``, said with no failure on the
#: line): "the same scripts used to work perfectly well on the older version", "it worked with transformers 4.57",
#: "the model loaded in 9 GB with transformers 4.57", "older versions work fine", "次新版本正常，最新版本 OOM",
#: "降级到 4.57 就好了". Not a run that went well for a while, nor a setting that worked ("worked with batch size 4").
_OTHER_VERSION_WORKED = re.compile(
    r"\b(?:work(?:ed|s)?|was\s+(?:fine|working)|ran\s+fine|loaded|fit(?:s|ted)?|trained)\s+"
    r"(?:(?:fine|well|perfectly(?:\s+well)?|without\s+(?:any\s+)?(?:issues?|problems?|oom))\s+)?"
    r"(?:in\s+(?:about\s+|around\s+|roughly\s+|~\s*)?\d+(?:\.\d+)?\s*gb\s+)?(?:on|with|in|using|under)\s+"
    r"(?:(?:the\s+)?(?:older|previous|earlier|old|last)\s+(?:version|release)|"
    + _PACKAGES
    + r"\s*(?:==\s*|v)?\d+\.\d+(?!\.?\d*\s*(?:gb|g\b|gib|mb)))|"
    # "transformers==4.37.2 works fine, 4.38 OOMs"
    r"(?<![\w.])"
    + _PACKAGES
    + r"\s*(?:==\s*|v)?\d+\.\d+(?:\.\d+)?\s*(?:\)\s*)?(?:(?:works?|worked|(?:is|was)\s+fine|runs?\s+fine|ran\s+fine|fits?)\b|能跑|可以跑|正常|没问题)|"
    r"\b(?:older|previous|earlier)\s+(?:versions?|releases?)\b[^.\n]{0,40}\b(?:works?|worked|(?:is|was|are|were)\s+fine|fits?|no\s+oom)\b|"
    r"(?:旧版本?|老版本?|之前的版本|以前的版本|上一个版本|上个版本|次新版本?)[^。；;\n]{0,10}(?:正常|能跑|可以跑|没问题|没有问题|可以训练)|"
    r"(?:降级|回退|退回)(?:到)?[^。；;\n]{0,20}(?:就|又)?(?:好了|正常了?|没问题了?|能跑了?|可以跑了?)",
    _I,
)
#: The run worked before, with no word of what changed since (``last_change: worked_before``, which a change named
#: anywhere in the text replaces): "it worked yesterday", "this used to work", "was running fine last week", "昨天还能跑",
#: "之前可以跑的". Not the run itself going well for a while ("worked fine for 2 epochs", "之前都正常，跑到第3个epoch就爆了"),
#: which is the run training before its OOM: only words of an earlier run (a day, a week, "used to").
_HOW_IT_WENT = r"(?:fine|well|perfectly|ok(?:ay)?|without\s+(?:any\s+)?(?:problems?|issues?|errors?))\s+"
_WORKED_BEFORE = re.compile(
    r"\bused\s+to\s+(?:work|run|fit|train)\b|"
    # "worked" says it went well; "ran" and "trained" only with how it went ("I trained yesterday and it OOMed" says
    # nothing of an earlier run that worked)
    r"\b(?:(?:worked|was\s+working|was\s+running)\s+(?:"
    + _HOW_IT_WENT
    + r")?|(?:ran|trained|fit)\s+"
    + _HOW_IT_WENT
    + r")"
    r"(?:just\s+)?(?:yesterday|last\s+(?:week|month|night|time)|(?:a\s+)?(?:few|couple\s+of|\d+)\s+(?:days?|weeks?|months?)\s+ago|"
    r"previously|in\s+the\s+past)\b|"
    r"\b(?:previously|always)\s+(?:worked|ran|trained|fit)\b|"
    r"\b(?:has|had)\s+(?:always\s+)?(?:worked|been\s+working)\s+(?:fine\s+|well\s+)?(?:before|until\s+(?:now|today))\b|"
    r"(?:昨天|前几天|上周|上个月|以前|之前|原来|本来)(?:都|还|一直)?(?:是)?(?:能跑|可以跑|能训练|可以训练|跑得通|能跑通|可以跑通)",
    _I,
)


def _versions_that_worked(said: str, line: str, number: int) -> list[tuple[int, str, str, str | None]]:
    """The package versions named in ``said`` (words saying they worked), each with the line's other version of the same
    package, which is the failing run's ("loaded in 9 GB with transformers 4.57, now it OOMs with transformers 5.2")."""
    out: list[tuple[int, str, str, str | None]] = []
    for named in _NAMED_VERSION.finditer(said):
        name = _version_fact(named.group("pkg"))
        if name is None:
            continue
        others = [
            m.group("v")
            for m in _NAMED_VERSION.finditer(line)
            if m.group("v") != named.group("v") and _version_fact(m.group("pkg")) == name
        ]
        out.append((number, name, named.group("v"), others[0] if others else None))
    return out


#: A change said before the failure, and what it changed (the value of the ``last_change`` fact): "since moving to multi-GPU it
#: OOMs", "after upgrading transformers it OOMs".
_CHANGED_THEN_FAILED = ((_WENT_MULTI, "gpus_or_launch"), (_UPGRADED, "library_upgrade"))
#: A setting changed to a value: "set max_length to 512", "把batch size改成1". With a clause saying the run still
#: failed (:func:`~triage.ingest.fixes.tried_in_vain`), a change that did not help.
_SET_TO = re.compile(
    r"\b(?:set|setting|chang(?:e|ed|ing)|put)\s+(?:the\s+|my\s+)?`?" + _CHANGED_KEY + r"`?\s*(?:to|=)\s*\d+", _I
)
_SET_TO_AFTER = re.compile(
    _changed_key(batch=r"batch(?:[ _-]?size)?")
    + r"`?\s*(?:改成|改为|改到|调到|调成|设为|设成|设置为|降到|减到)了?\s*\d+",
    _I,
)
_FROM_TO = re.compile(
    _CHANGED_KEY + r"\s*(?:from|从)\s*(?P<a>\d+)\s*"
    r"(?:(?:" + _CHANGED_TO + r"|" + _RAISED_TO + r"|变成)了?|to|->|→|-->)\s*(?P<b>\d+)\b",
    _I,
)

#: A change of the number of cards: "going from 2 GPUs to 4", "from 1 to 8 A100s", "从2卡换到4卡", "从单卡换成4卡".
_CARDS_FROM_TO = re.compile(
    r"\bfrom\s+(?P<a>\d{1,3}|one|a\s+single)\s*(?:x\s*)?(?P<ua>gpus?|cards?|devices?)?\s+to\s+(?P<b>\d{1,3})\b\s*(?:x\s*)?"
    r"(?P<ub>gpus?|cards?|devices?|(?:rtx\s*)?[a-z]?\d{2,4}s?\b|[ah]100s?|[ah]800s?)?|"
    r"从\s*(?P<za>\d{1,3}|单|一|两)\s*(?:张|块)?(?:卡|gpu)?\s*(?:换成|换到|改成|改为|加到|增加到|扩到|扩展到)\s*(?P<zb>\d{1,3})\s*(?:张|块)?(?:卡|gpu)",
    _I,
)
_CARD_WORDS = {"one": 1, "a single": 1, "单": 1, "一": 1, "两": 2}
#: A value that works, then the one that failed: "max_length 1024 能跑，调成 4096 就 OOM", "batch size 2 works fine, but
#: at 8 it runs out of memory" (the failing run had the second; the first is what works).
_WORKS_THEN = re.compile(
    _CHANGED_KEY + r"\s*(?:[=:：]|为|是|设为|设成)?\s*(?P<a>\d+)\s*(?:的时候|时)?\s*(?:都|还|是|就)?\s*"
    r"(?:能跑|可以跑|能训练|可以训练|没问题|正常|\bworks?\b|\bworked\b|\b(?:is|was)\s+fine\b|\bruns?\s+fine\b|\bran\s+fine\b|\bfits\b)"
    r"[^。.;；!?\n\d]{0,16}?(?:[，,]\s*)?(?:但是?|可是|然而|\bbut\s+|\band\s+)?(?:一旦|如果)?\s*(?:(?:再)?(?:"
    + _CHANGED_TO
    + r"|"
    + _RAISED_TO
    + r"|设为|设成|换成|到)了?|\b(?:set|change|changed|increase|increased|raise|raised|bump|bumped|go|going|went)\s+(?:it\s+)?to\b|"
    r"\b(?:at|with)\b)?\s*(?P<b>\d+)\b(?!\s*(?:gpus?|cards?|nodes?|张|块|卡|台|x\b|×|gb?\b|%|步|steps?))",
    _I,
)

#: The largest value that works, said with "only": "70B训8k只能设bs=1，...而设为2会OOM" (LlamaFactory#4268), "batch
#: size只能设置为1", "最大只能开到batch size 2", "I can only use a batch size of 1", "it only fits with bs=2". The value
#: is what made the run fit, not the failing run's; a larger value said to fail on the same line is the run's.
_ONLY_BATCH = r"batch(?:[ _-]?size)?"
#: What may follow the value without it being the setting's: "只能用2张卡", "only fits 7B", "bs=1.5k".
_NOT_A_SETTING = r"(?!\s*(?:\.\d|[kKwW](?![a-zA-Z])|[万千]|gpus?|cards?|张|块|卡|台|x\b|×|gb?\b|%|步|steps?|b\b))"
_ONLY_VERB_ZH = r"(?:设置?|设置?为|设置?成|开|开到|用|跑|调到|调成|调为|改成|改为)?"
_ONLY_VALUE = re.compile(
    r"(?:(?:最多|最大|也)?只能(?:够)?|只可以)\s*"
    + _ONLY_VERB_ZH
    + r"\s*"
    + _changed_key(batch=_ONLY_BATCH)
    + r"`?\s*(?:[=:：]|为|是|到|成)?\s*(?P<a>\d{1,6})(?!\d)"
    + _NOT_A_SETTING
    + "|"
    + _changed_key(batch=_ONLY_BATCH, group="key1")
    + r"`?\s*(?:最多|最大|也)?只能(?:够)?\s*"
    + _ONLY_VERB_ZH
    + r"\s*(?:[=:：]|为|到|成)?\s*(?P<a2>\d{1,6})(?!\d)"
    + _NOT_A_SETTING
    + "|"
    r"\b(?:can|could)\s+only\s+(?:use|fit|run|train\s+with|set|afford|go\s+(?:up\s+)?to|get\s+away\s+with)\s+"
    r"(?:it\s+to\s+)?(?:a\s+|an\s+|the\s+)?`?"
    + _changed_key(group="key2")
    + r"`?\s*(?:of|=|:|to|at)?\s*(?P<a3>\d{1,6})(?!\d)\b"
    + _NOT_A_SETTING
    + "|"
    r"\bonly\s+(?:works?|fits?|runs?|trains?)\s+(?:fine\s+)?(?:with|at|using)\s+(?:a\s+|an\s+)?`?"
    + _changed_key(group="key3")
    + r"`?\s*(?:of|=|:)?\s*(?P<a4>\d{1,6})(?!\d)\b"
    + _NOT_A_SETTING,
    _I,
)
#: After such a value, a larger one that fails: "...而设为2会OOM", "...; with 2 it runs out of memory".
_THEN_FAILS_AT = re.compile(
    r"(?:设为|设成|设置为|设置成|改成|改为|调到|调成|开到|用|to|with|at)\s*(?P<b>\d{1,6})\b", _I
)
#: A DeepSpeed config's ZeRO block opening, and the stage key inside it (DeepSpeed#2977, LlamaFactory#4156).
_ZERO_BLOCK = re.compile(r"[\"']?zero_optimization[\"']?\s*:\s*\{")
_STAGE_KEY = re.compile(r"[\"']stage[\"']\s*:\s*([0-3])\b")
#: A DeepSpeed config's offload block opened on one line ('"offload_optimizer": {'), its device a line or two below.
_OFFLOAD_BLOCK = re.compile(r"[\"']offload_(?:optimizer|param)[\"']\s*:\s*\{\s*$")
_OFFLOAD_DEVICE = re.compile(r"[\"']device[\"']\s*:\s*[\"'](?:cpu|nvme)[\"']", _I)

#: A plain batch-size key with its value ("batch_size = 128", "--batch-size 64"), not a per-device one.
_PLAIN_BATCH_KEY = re.compile(r"(?:--)?batch[_ -]?size\b\s*[=:]?\s*\d", _I)

#: A GPU series glued to its number: "RTX3090", "GTX1080".
_GLUED_SERIES = re.compile(r"\b(rtx|gtx)(?=\d{3,4}\b|\d{3,4}(?:ti|s|d|[x×*]))", _I)
#: A data-centre card's letter hyphenated from its number: "8 A-100 GPUs" (ColossalAI#2246) is eight A100s.
_DASHED_SERIES = re.compile(r"\b([AHV])-(?=(?:100|800)s?\b)")
#: A card's name glued to a count: "A100x8x80G" (LlamaFactory#2263) reads as "A100 x8x80G".
_GLUED_COUNT = re.compile(r"\b([AHV]100|[AH]800|A6000|L40S?|[1-4]0[5-9]0(?:ti)?)(?=[x×]\d)", _I)
#: A setting's name in markdown emphasis: "Limiting _max_seq_length_ to 1536" (azureml-assets#2379) is max_seq_length.
_EMPHASIS = re.compile(r"(?<![\w*])[_*]([a-z][a-z0-9]*(?:_[a-z0-9]+)+)[_*](?![\w*])", _I)

#: A link says nothing about the run (its hashes read as sizes: ".../c3d56f65-929b-..."), except a Hub id.
_URL = re.compile(r"\bhttps?://[^\s)\]>\"'`]++", re.ASCII)
_HUB_URL = re.compile(r"https?://(?:www\.)?(?:huggingface\.co|hf-mirror\.com|modelscope\.cn/models)/([\w.-]+/[\w.-]+)")


def _url_words(m: re.Match[str]) -> str:
    hub = _HUB_URL.match(m.group(0))
    return f" {hub.group(1)} " if hub else " "


#: A setting the failing run shares with the run that worked: "on 2 GPUs at the same batch_size".
_SAME_SETTING = re.compile(
    r"\b(?:same|identical|unchanged)\s+(?P<en>batch[ _-]?size|bs|batch|max[ _-]?length|length|cutoff[ _-]?len|"
    r"seq(?:uence)?[ _-]?len(?:gth)?)\b|(?:相同|一样|同样)的?\s*(?P<zh>batch[ _-]?size|bs|batch|批大小|长度|max_length|cutoff_len)",
    _I,
)


def _same_setting(m: re.Match[str]) -> str:
    return _setting_named(m.group("en") or m.group("zh"))


#: Several cards said without a count: "多卡出现了OOM", "on multiple GPUs".
_MULTI_CARD = re.compile(
    r"多卡(?!推理|部署)|多张(?:显)?卡|多个\s*gpu|\b(?:multiple|several|multi)[- ]gpus?\b(?!\s+inference)", _I
)
#: One card worked and several fail: "单卡训练正常，多卡出现了OOM", "用两张4090微调13b出现oom，单卡则不会", "single GPU
#: training works fine, but with 2 GPUs I get OOM". The weights fit one card; what changed is the GPUs and the
#: launch (LlamaFactory#24 and #1846, VeOmni#159, llama-cookbook#556). Going back to one card is not the fix.
_ONE_CARD_WORKED = re.compile(
    r"单(?:卡|张卡|个?\s*gpu)[^。；;！!？?\n]{0,12}?(?:正常|可以|没问题|没有问题|不会|能跑|跑得起来|能训练|没有出现|没出现)"
    r"[^。；;！!？?\n]{0,30}?(?:多卡|多张|两张|双卡|多个\s*gpu|[2-8二三四五六七八]\s*(?:张|块)?卡)|"
    r"(?:多卡|多张(?:显)?卡|两张|双卡|多个\s*gpu|[2-8二三四五六七八]\s*(?:张|块)卡)[^。；;！!？?\n]{0,40}?"
    r"(?:oom|爆显存|显存(?:不足|不够|溢出)|out of memory)[^。；;！!？?\n]{0,12}?单(?:卡|张卡)[^。；;！!？?\n]{0,6}?(?:正常|可以|没问题|不会|能跑)|"
    r"\b(?:single|one|1)[- ](?:gpu|card)\b[^.;!?\n]{0,50}?\b(?:works?|worked|is\s+fine|runs?\s+fine|ran\s+fine|is\s+ok)\b"
    r"[^.;!?\n]{0,60}?\b(?:multi(?:ple)?|two|2|several|more|[2-8])[- ]?(?:gpus?|cards?)\b",
    _I,
)
#: A count of one said in words ("单卡", "single GPU"), which a later count of several cards replaces.
_ONE_CARD_WORDS = re.compile(r"单|一张|一块|\bsingle\b|\bone\b|\b1\s*(?:x|\*|gpu|card)", _I)
#: The card's memory ran out, said in words: "显存不够", "爆显存", "GPU memory is not enough".
_GPU_RAN_OUT = re.compile(r"显存(?:不够|不足|溢出|爆|oom)|爆显存|显存\s*(?:out of memory|oom)|" + ZH_CARD_OVERFLOW, _I)
#: The card's memory spoken of, not as what is left over ("显存够，但是内存不足": then the 内存 that ran out is the host's).
_CARD_MEMORY_SAID = re.compile(
    r"显存(?!\s*(?:是|也|都|倒是?|还)?\s*(?:够|足够|充足|充裕|没满|有余|还有|还剩|没问题|没有?爆|没有?满|空闲|绰绰))"
)
#: An out-of-memory said without whose memory ran out: "OOM", "OOMs", "out of memory", "OutOfMemoryError" (not the
#: kernel's OOM killer, which is the host's).
_BARE_OOM = re.compile(r"\boom(?:s|ed|ing)?\b(?![\s_-]*kill)|\bout[\s_-]*of[\s_-]*memory\b|OutOfMemory", _I)
#: Where host RAM runs out as often as the card's: loading, setting up, saving a checkpoint ("it will load up until it
#: runs out of memory", "a crash during setup saying it is out of memory", "OOMs during checkpointing").
_HOST_PHASE_WORDS = re.compile(
    r"\bload(?:s|ed|ing)?\b|\bset\s*up\b|\bsetup\b|\binitiali[sz]\w*|checkpoint|\bsav(?:e|es|ed|ing)\b|加载|保存|初始化",
    _I,
)
#: The host's memory named as such: "CPU内存", "主机内存", "系统内存", "RAM", "host memory".
_HOST_NAMED = re.compile(
    r"cpu\s*(?:的)?\s*内存|主机内存|系统内存|主内存|物理内存|\bram\b|\b(?:cpu|host|system)\s+memory\b|\bswap\b|killed",
    _I,
)


#: One card named with an article or "my": "on a 4090 GPU", "an A100 80GB", "My GPU is RTX4090 24G" (not "a 4090 and a
#: 3090": the caller counts the lines that name one, and reads a single card only when one line does).
_A_CARD = re.compile(
    r"\b(?:on\s+|with\s+|using\s+|have\s+|has\s+)?(?:an?|my|one)\s+(?:single\s+)?(?:nvidia\s+|geforce\s+|tesla\s+)?"
    r"(?:rtx\s*|gtx\s*)?(?:"
    + _GPU_NAMES
    + r")(?!\w*\s*(?:gpus|cards|s\b))|\bmy\s+gpu\s+is\s+(?:an?\s+)?(?:nvidia\s+)?(?:rtx\s*|gtx\s*)?(?:"
    + _GPU_NAMES
    + r")",
    _I,
)


def _one_card(found: Found) -> bool:
    return str(found.raw) == "1" and _ONE_CARD_WORDS.search(found.excerpt or "") is not None


#: "GPU内存", "显卡内存": a user who calls the card's memory 内存.
_GPU_NEICUN = re.compile(
    r"(?:gpu|cuda|显卡)\s*(?:的)?\s*内存|"
    # the card's memory said as a card's 内存: "A800 每张卡内存占用在40G以内" (LlamaFactory#3754), "单卡的内存"
    r"(?:每|单|一)\s*(?:张|块)?\s*卡\s*(?:的)?\s*内存|"
    # a card's name with its memory: "1080Ti，11GB内存", "3090 24G内存"
    r"\b(?:rtx|gtx)?\s*\d{4}\s*(?:ti|super)?\s*[，,、(（\s]\s*(?:6|8|10|11|12|16|20|22|24)\s*g(?:b|ib)?\s*(?:的)?\s*内存|"
    # a card's name right before 内存: "两张3090内存爆满" (chatglm2_finetuning#1), "A100的内存不够"
    r"(?:\b(?:rtx|gtx)\s*)?(?<![\d.])(?:[1-4]0[5-9]0|[1-5]0[6-9]0)\s*(?:ti|super)?\s*(?:的)?\s*内存|"
    r"\b(?:a100|a800|h100|h800|h20|a6000|a40|a10g?|l40s?|l20|v100|t4|p100|p40|4090d?)\s*(?:的)?\s*内存",
    re.IGNORECASE,
)

#: An RL trainer that runs an inference engine for its rollouts (GRPO/PPO with vLLM).
_RL_CONTEXT = re.compile(
    r"\b(?:rollouts?|grpo|ppo|rlhf|use_vllm|vllm_gpu_memory_utilization|vllm_enable_sleep|colocate\w*|verl|openrlhf)\b",
    re.IGNORECASE,
)

#: Data parallel said in words; a weaker reading than DeepSpeed or FSDP named anywhere in the text.
_DDP = re.compile(
    r"\bddp\b|DistributedDataParallel|distributed_type:\s*MULTI_GPU|多卡(?:训练|微调|并行)|数据并行|"
    # a launcher that starts one process per GPU, with no DeepSpeed or FSDP named: data parallel
    # ("torchrun --nproc_per_node 4", "NPROC_PER_NODE=2 swift sft", "python -m torch.distributed.launch")
    r"(?<![\w-])--nproc[_-]per[_-]node[=\s]+[\"']?(?:[2-9]|[1-9]\d)\b|\bNPROC_PER_NODE=[\"']?(?:[2-9]|[1-9]\d)\b|"
    r"\btorch\.distributed\.launch\b|\baccelerate\s+launch\b[^\n]*?--multi_gpu\b",
    _I,
)

#: An evaluation harness's command: "lm_eval --model hf ... --batch_size 32" evaluates, it does not train.
_HARNESS = re.compile(r"(?<![\w/-])lm[_-]eval\b(?!uation)|\bsimple_evaluate\(", _I)


#: A local chat app that holds a model on the card, often left running beside a training run.
_LOCAL_APP = re.compile(r"\bollama\b|\bllama\.?cpp\b", re.IGNORECASE)
#: Something said to run beside the run, on the same card: another process, not the run that failed.
_BESIDE = re.compile(
    r"\b(?:running|open|left|still\s+up)\s+in\s+the\s+background\b|\bon\s+the\s+same\s+(?:card|gpu|node|machine)\b|"
    r"\bsame\s+(?:card|gpu)\s+as\b|\bcontainer\s+(?:is\s+)?(?:still\s+)?(?:running|holding|using)\b|"
    r"\b(?:there\s+is\s+)?also\s+(?:a\s+|an\s+)?(?:[\w.-]+\s+){0,3}(?:serving|running)\b|"
    r"后台(?:开着|挂着|跑着|还|运行)|(?:同一张|同一块|这张)(?:卡|显卡|GPU)上?(?:还)?(?:挂着|开着|跑着)|(?:还|一直)(?:挂着|开着)|上(?:还|也)?挂着",
    re.IGNORECASE,
)


def _longer_on_the_line(first: Found, value: object, number: int, said: str) -> bool:
    """Whether ``value`` is a second, longer length set on the same line as ``first`` by another setting.

    The match holds the key's tail only ("max_len 512" of "query_max_len 512"), so two keys are told apart by their
    words with the value: "max_length 512 and max_length 2048 both OOM" (two tries on one line) reads 2048 too.
    """
    try:
        return first.line == number and first.excerpt != excerpt(said) and int(str(value)) > int(str(first.raw))
    except ValueError:
        return False


_WORKED_EN = (
    r"(?:works|worked|runs|ran|trains|trained)\s+(?:fine|ok|okay|well|perfectly)|works|worked|(?:is|was)\s+fine|fits"
)
#: One set-up that works set against one that fails, each named in a few words: "zero2 works but zero3 OOMs", "LoRA
#: works fine, full fine-tuning OOMs", "mistral-7b worked, llama3-8b OOMs". The one that fails is the run's; the one
#: that works is what fixes it. (A value that works then one that fails, "batch size 2 works, at 8 it OOMs", and one
#: card working where several fail are read by :data:`_WORKS_THEN` and :data:`_ONE_CARD_WORKED`.)
_WORKS_BUT_FAILS = re.compile(
    r"(?:^|(?<=[,.;:!?(])\s*)(?P<a>[^\s\d,.;:!?(][^\s,.;:!?]*(?:\s+[^\s,.;:!?]+){0,3}?)\s+(?:" + _WORKED_EN + r")\s*"
    r"(?:,\s*(?:but|while|whereas|yet)?|;|\s+(?:but|while|whereas|yet))\s+"
    r"(?P<b>[^\s\d,.;!?][^\s,.;!?]*(?:\s+[^\s,.;!?]+){0,3}?)\s+"
    r"(?P<fail>ooms|oomed|fails|failed|crash(?:es|ed)|runs\s+out\s+of\s+(?:gpu\s+)?memory|goes\s+oom)\b",
    _I,
)
#: The same with the set-ups after the verbs: "fine with qlora, OOM with lora", "It works with fp16 but OOMs with fp32".
_FINE_WITH_BUT_FAILS_WITH = re.compile(
    r"\b(?:" + _WORKED_EN + r"|fine|ok|okay)\s+(?:with|using|on|in)\s+(?P<a>[^\s,.;:!?]+(?:\s+[^\s,.;:!?]+){0,2}?)\s*"
    r"(?:,\s*(?:but\s+)?|\s+but\s+)(?:it\s+)?(?P<fail>ooms?|oomed|fails|failed|crash(?:es|ed)|runs\s+out\s+of\s+(?:gpu\s+)?memory)"
    r"\s+(?:with|using|on|in)\s+(?P<b>[^\s,.;:!?]+(?:\s+[^\s,.;:!?]+){0,2}?)(?=\s*(?:[,.;:!?]|$))",
    _I,
)
#: A dtype named alone, as one half of a comparison.
_BARE_DTYPE = re.compile(r"(?:fp|float|bf|bfloat)(?:16|32)|half|full\s+precision", _I)
_DTYPE_SAID = {"half": "fp16", "full precision": "fp32"}
#: The failing set-up said only as "but not": "it works for batch size 1 but not 2", "runs fine with lora but not with
#: full fine-tuning".
_WORKS_BUT_NOT = re.compile(
    r"\b(?:works?|worked|runs?|ran|fits?|trains?)\s+(?:fine\s+|well\s+|ok(?:ay)?\s+)?(?:for|with|at|on|using)\s+"
    r"(?P<a>[^\s,.;:!?]+(?:\s+[^\s,.;:!?]+){0,2}?)\s*,?\s+but\s+not\s+(?:(?:for|with|at|on|using)\s+)?"
    r"(?P<b>[^\s,.;:!?]+(?:\s+[^\s,.;:!?]+){0,2}?)(?=\s*(?:[,.;:!?)]|$))",
    _I,
)
#: In Chinese, two short set-ups with no phase, neither a bare number: "lora可以跑，全参就爆", "zero3能跑，zero2就爆显存".
_ZH_WORKS_BUT_FAILS = re.compile(
    r"(?:^|(?<=[，,。；;！!？?\s]))(?P<a>[^，,。；;！!？?\s\d][^，,。；;！!？?]{0,14}?)(?:能跑|可以跑|可以训练|能训练|没问题|正常)[了的]?"
    r"\s*[，,]\s*(?:但是?|而|可是)?\s*(?P<b>[^，,。；;！!？?\s\d][^，,。；;！!？?]{0,14}?)(?:就|会|却|直接)"
    r"(?P<fail>爆显存|爆了|爆|oom|显存不足|显存不够|溢出)",
    _I,
)
#: A phase, a time or a person in a Chinese half: then it is not a set-up ("训练的时候没问题，评估的时候就爆").
_ZH_NOT_SETUP = re.compile(
    r"训练|推理|评估|验证|测试|预测|加载|保存|生成|合并|时|候|我|之前|以前|现在|昨天|今天|前几天|上周|上个月|原来|本来|单卡|多卡|"
    r"[一二两三四五六七八]卡"
)
#: Words that make the first half a subject or a phase rather than a set-up ("it works", "training works, evaluation
#: OOMs": a phase is read as such).
_NO_SETUP = re.compile(
    r"^(?:it|this|that|everything|training|the\s+training|the\s+code|the\s+script|inference|evaluation|generation|"
    r"single\s+gpu(?:\s+training)?|one\s+gpu|a\s+single\s+gpu|\w+\s+(?:should|would|could|might|may))$",
    _I,
)


def _split_comparisons(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Each line, with a set-up that works set against one that fails (:data:`_WORKS_BUT_FAILS`) told in the order the
    reader trusts: the failing set-up first (the run's: the first reading of a setting wins), then the working one
    said as a fix."""
    for number, line in lines:
        zh = _ZH_WORKS_BUT_FAILS.search(line) if len(line) <= 400 else None
        if zh and not _ZH_NOT_SETUP.search(zh.group("a") + zh.group("b")) and not _WORKS_THEN.search(line):
            yield number, f"{line[: zh.start()]}{zh.group('b')}就{zh.group('fail')}{line[zh.end() :]}"
            yield number, f"{zh.group('a')}就可以了"
            continue
        m = (_WORKS_BUT_FAILS.search(line) or _FINE_WITH_BUT_FAILS_WITH.search(line)) if len(line) <= 400 else None
        m = m or (_WORKS_BUT_NOT.search(line) if len(line) <= 400 else None)
        if m is None or _NO_SETUP.match(m.group("a")) or _WORKS_THEN.search(line) or _ONE_CARD_WORKED.search(line):
            yield number, line
            continue
        failing, working = m.group("b"), m.group("a")
        key = re.fullmatch(r"(.*?\D)\s*\d+", working)
        if key and failing.isdigit():
            failing = f"{key.group(1)} {failing}"  # "works with batch size 2 but OOMs with 4": the batch size of 4
        fail = m.group("fail") if "fail" in m.re.groupindex else "fails"  # "... but not 2": it fails with 2
        if _BARE_DTYPE.fullmatch(failing) and _BARE_DTYPE.fullmatch(working):
            # "works with fp16 but OOMs with fp32": the dtypes the model was loaded in
            failing, working = (f"torch_dtype={_DTYPE_SAID.get(d.lower(), d)}" for d in (failing, working))
        yield number, f"{line[: m.start()]}{failing} {fail}{line[m.end() :]}"
        yield number, f"{working} works fine"


def _outside_only(
    pairs: list[tuple[str, object]], start: int, only: list[tuple[int, int, str]]
) -> list[tuple[str, object]]:
    """``pairs`` without the setting whose value is the one that fits, when the match at ``start`` is inside an
    "only fits with" span of that setting ("只能设bs=1": 1 is the fix, not the failing run's batch)."""
    return [p for p in pairs if not any(a <= start < b and p[0] == n for a, b, n in only)]


def read_lines(lines: Iterable[tuple[int, str]]) -> list[Found]:
    """:func:`read_text` over already split (line number, segment) pairs."""
    out: dict[str, Found] = {}
    fixed: dict[str, object] = {}
    """Settings the text says made the run work ("bs 2 it runs"): evidence of the cause, not facts of the run."""
    tried: dict[str, int] = {}
    """Settings lowered while the run still failed ("tried reducing the batch size"), and the line that says so."""
    added: set[str] = set()
    """Of those, the ones said as adding the setting ("我增加load_in_8bit就可以正常跑")."""
    failing_stage: dict[object, tuple[int, str]] = {}
    """Trainers named right before a failure ("做DPO时，显存oom"), with where."""
    launcher = False
    """Whether a multi-process launcher is named anywhere ("accelerate launch", "torchrun", "deepspeed")."""
    fix_line: int | None = None
    same: set[str] = set()
    """Settings the text says the failing run shares with the one that worked."""
    ddp: tuple[int, str] | None = None
    gpu_neicun = False
    multi_card = False
    """Whether the text says several cards ("多卡", "multiple GPUs") without a count."""
    gpu_ran_out = False
    """Whether the text says the card's memory ran out ("显存不够"): then a bare 内存 means the card's too."""
    offload_block = 0
    """The last line of an ``"offload_optimizer": {`` block still looked at for its ``"device"``."""
    zero_block = 0
    """The last line of a DeepSpeed config's ``"zero_optimization": {`` block still looked at for its ``"stage"``."""
    per_device_batch: Found | None = None
    """The first batch size given by a per-device key ("micro_batch_size = 4")."""
    card_memory_said = False
    """Whether the text speaks of the card's memory (显存) at all: then, with no host memory named, a bare 内存 is the card's."""
    host_named = False
    """Whether the text names the host's memory ("CPU内存", "主机内存", "RAM"): then its 内存 is the host's."""
    rl_context = False
    """Where the text says several processes share the work, used when no other scheme is named."""
    harness = False
    """Whether the text runs an evaluation harness (``lm_eval``): its ``--batch_size`` is the evaluation batch."""
    beside = False
    """Whether the text says something else runs beside the run on the same card ("in the background", "同一张卡上挂着")."""
    quantizing = False
    """Whether the text's job is quantizing a model (GPTQ, AWQ): its bits are the target, not the weights loaded."""
    loads_quantized = False
    """Whether the text loads a model already quantized (``from_quantized``): then its bits are the weights'."""
    training_said = False
    """Whether the text speaks of training or fine-tuning at all (then a batch size may be the training batch)."""
    apple = nvidia = False
    """Whether the text runs on an Apple Silicon Mac (unified memory) and whether it names an NVIDIA card or CUDA."""

    def put(pairs: list[tuple[str, object]], number: int, said: str, note: str | None = None) -> None:
        for name, value in pairs:
            if name == "gpu_count" and name in out and _one_card(out[name]) and str(value) != "1":
                del out[
                    name
                ]  # "单卡可以跑，两张卡就OOM", "单卡部署...放到两张8g的卡上": the several cards are the run's
            if name not in out:
                out[name] = Found(name, value, number, excerpt(said), note)
            elif name == "max_length" and _longer_on_the_line(out[name], value, number, said):
                # several lengths on one line ("query_max_len 512, passage_max_len 8192", "max_source_length
                # 1024 max_target_length 256"): the longest sizes the activations (FlagEmbedding#690)
                out[name] = Found(name, value, number, excerpt(said), note)

    cards_named: list[tuple[int, str]] = []
    """Lines that name one card with an article ("on a 4090", "My GPU is RTX4090"): one GPU unless a count is read."""
    several_cards = False
    """Whether such a line names other cards too ("a 3090 and a 4090"): then no single card is the run's."""
    in_fix = False
    """Whether the lines read are under a heading that says what fixed it ("### Solution")."""
    fix_next = False
    """Whether the line before said only that what follows is the change ("改成", "changed it to:")."""
    worked_before: tuple[int, str] | None = None
    """The first line that says the run worked before (:data:`_WORKED_BEFORE`), and its words."""
    worked_on: list[tuple[int, str, str, str | None]] = []
    """The versions that ran the same thing (:data:`_OTHER_VERSION_WORKED`): line, fact, that version (not the failing
    run's) and the other version of the package named on the line (the failing run's), if any."""
    bare_oom: tuple[int, str] | None = None
    """The first line that says "OOM" or "out of memory" without saying whose memory, and its words."""
    host_neicun = False
    """Whether a line speaks of 内存 and not of 显存: then an OOM may be the host's (a bare 内存 can mean either)."""
    for number, raw_line in _split_comparisons(lines):
        launcher = launcher or _LAUNCHER.search(raw_line) is not None
        quantizing = quantizing or _QUANTIZING.search(raw_line) is not None
        training_said = training_said or _TRAINING_SAID.search(raw_line) is not None
        apple = apple or _APPLE_SILICON.search(raw_line) is not None
        nvidia = nvidia or _CUDA_WORDS.search(raw_line) is not None or bool(mentions(raw_line))
        # "AutoGPTQForCausalLM.from_quantized(..., quantize_config=BaseQuantizeConfig(bits=4))" loads a quantized model
        loads_quantized = loads_quantized or "from_quantized" in raw_line
        frame = _SHARDING_FRAME.search(raw_line)
        if frame is not None:
            put([("distributed", "fsdp" if "fsdp" in frame.group(0) else "deepspeed")], number, frame.group(0))
        if _SKIP_LINE.search(raw_line):
            continue
        host_neicun = host_neicun or ("内存" in raw_line and "显存" not in raw_line)
        # an OOM with CUDA on its line is CUDA's own message, which the OOM message's reader reads
        said_oom = _BARE_OOM.search(raw_line) if bare_oom is None and not _CUDA_WORDS.search(raw_line) else None
        if said_oom is not None and not negated(raw_line, said_oom.start()):
            bare_oom = (number, raw_line)
        if FIX_HEADING.match(raw_line):
            in_fix = True
            continue
        if in_fix and HEADING.match(raw_line):
            in_fix = False
        if CHANGED_TO_LINE.match(raw_line):
            # "model = ...cuda()" / "改成" / "model = ...quantize(4).cuda()": the next line is the change
            fix_next = True
            continue
        harness = harness or _HARNESS.search(raw_line) is not None
        beside = beside or _BESIDE.search(raw_line) is not None
        oom = _OOM_START.search(raw_line)
        if oom is not None:
            # a pasted PyTorch message's figures are not the user's words: drop the message; a bare
            # "CUDA out of memory with transformers 4.38.5" keeps the words around the phrase. "OOM" stands in for
            # it, so that "after upgrading transformers I get CUDA out of memory" still says the change failed
            if _OOM_DETAIL.search(raw_line, oom.start()):
                raw_line = raw_line[: oom.start()] + " OOM"
            else:
                raw_line = raw_line[: oom.start()] + " OOM " + raw_line[oom.end() :]
        line = _GLUED_COUNT.sub(
            r"\1 ",
            _DASHED_SERIES.sub(
                r"\1", _GLUED_SERIES.sub(r"\1 ", _URL.sub(_url_words, _EMPHASIS.sub(r"\1", _HINT.sub(" ", raw_line))))
            ),
        )  # "RTX3090*2" reads as "RTX 3090*2", "A-100" as "A100", "A100x8" as "A100 x8"
        if not line.strip() or _COMMENTED_OUT.match(line):
            continue  # "# --deepspeed ds_config.json" in a pasted script: switched off, not the run's setting
        fixing, fix_next = in_fix or fix_next, False
        low = line.lower()
        if _ZERO_BLOCK.search(line):
            zero_block = number + 4
        if _OFFLOAD_BLOCK.search(line):
            offload_block = number + 2
        elif number <= offload_block and (device := _OFFLOAD_DEVICE.search(line)) is not None:
            put([("offload", True)], number, device.group(0))
            offload_block = 0
        if number <= zero_block and (zero_key := _STAGE_KEY.search(line)) is not None:
            # a DeepSpeed config pasted as JSON: '"zero_optimization": {' then '"stage": 2,' a line or two below
            put([("distributed", "deepspeed"), ("zero_stage", int(zero_key.group(1)))], number, zero_key.group(0))
            zero_block = 0
        only: list[tuple[int, int, str]] = []
        """Spans of this line that give the largest value that works ("只能设bs=1"), and the setting."""
        for m in _ONLY_VALUE.finditer(line):
            if negated(line, m.start()):
                continue
            name = _setting_named(m.group("key") or m.group("key1") or m.group("key2") or m.group("key3") or "")
            fits = int(m.group("a") or m.group("a2") or m.group("a3") or m.group("a4"))
            only.append((m.start(), m.end(), name))  # the value that fits is not the failing run's
            bad = _THEN_FAILS_AT.search(line, m.end(), m.end() + 40)
            if bad is not None and int(bad.group("b")) > fits and FAILED.search(line, bad.end(), bad.end() + 30):
                put([(name, int(bad.group("b")))], number, bad.group(0))
            fixed.setdefault(name, fits)
            fix_line = fix_line or number
        for m in _INLINE.finditer(line):
            if negated(line, m.start()) or hypothetical(line, m.start(), m.end()):
                continue
            if (m.group(2) or "").lower() in ("version", "versions"):
                continue  # an environment report's "DeepSpeed version: not installed" names a package, not a setting
            if fixing or tells_a_fix(line, m.start(), m.end()) or describes_a_fix(line, m.end(), m.start()):
                fixed.update(_inline(m))
                fix_line = fix_line or number
            else:
                pairs = _outside_only(_inline(m), m.start(), only)
                put(pairs, number, m.group(0))
                if _inline_key(m) in PER_DEVICE_BATCH_KEYS and per_device_batch is None:
                    per_device_batch = next(
                        (Found(n, v, number, excerpt(m.group(0))) for n, v in pairs if n == "batch_size"), None
                    )
        for toggle in TOGGLES:
            hit = toggle.pattern.search(line)
            span = (hit.start(), hit.end()) if hit else None
            if span is None and toggle.phrase and len(low) >= 8 and toggle.phrase.split()[0][:4] in low:
                span = _fuzzy_span(low, toggle.phrase)
            if span is None or hypothetical(line, *span):
                continue
            told = fixing or tells_a_fix(line, *span)
            if told or describes_a_fix(line, span[1], span[0]):
                if toggle.off and (
                    _REMOVED.search(line[max(0, span[0] - 40) : span[0]])
                    or (told and TAKE_AWAY.match(line) and _toggle_state(line, *span) is not True)
                ):
                    put(toggle.on, number, line)  # taking it away made it work: the failing run had it
                    fixed.update(toggle.off)
                else:
                    fixed.update(toggle.on)
                fix_line = fix_line or number
                continue
            state = _toggle_state(line, *span)
            if state == "inactive" and toggle.inactive:
                put(list(toggle.inactive), number, line)
            elif state is True:
                put(toggle.on, number, line)
            elif state is False:
                put(toggle.off, number, line)
            if state is None and tried_in_vain(line, *span):
                # "I tried gradient checkpointing, 8-bit adam and a lower batch size but nothing works": the run had
                # it on when it failed (not a lowered setting: turning a feature on is no evidence against the causes
                # it undoes, since it may be on and without effect)
                put(toggle.on, number, line)
        same.update(_same_setting(m) for m in _SAME_SETTING.finditer(line))
        one_worked = _ONE_CARD_WORKED.search(line)
        if one_worked is not None and not negated(line, one_worked.start()):
            put([("last_change", "gpus_or_launch")], number, one_worked.group(0))
        gpu_neicun = gpu_neicun or _GPU_NEICUN.search(line) is not None
        said_multi = _MULTI_CARD.search(line)
        multi_card = multi_card or (said_multi is not None and not negated(line, said_multi.start()))
        gpu_ran_out = gpu_ran_out or _GPU_RAN_OUT.search(line) is not None
        card_memory_said = card_memory_said or _CARD_MEMORY_SAID.search(line) is not None
        host_named = host_named or _HOST_NAMED.search(line) is not None
        rl_context = rl_context or _RL_CONTEXT.search(line) is not None
        said_ddp = _DDP.search(line) if ddp is None else None
        if said_ddp is not None and not (
            negated(line, said_ddp.start()) or hypothetical(line, said_ddp.start(), said_ddp.end())
        ):
            ddp = (number, said_ddp.group(0))
        # the part of the run a "是否支持...？" question names is what it asks about: blanked for the phase
        stated = ASKS_IF_SUPPORTED.sub(lambda m: " " * len(m.group(0)), line)
        for phase, phase_pattern in phases_in_order(stated):
            if phase_pattern.search(stated):
                if phase in ("generation", "loading"):
                    load_failed = fails_while_loading(stated) or loads_for_inference(stated)
                    if phase == "loading" and not load_failed:
                        continue  # "after loading the model, inference OOMs": the load came before what failed
                    if load_failed:
                        phase = "loading"  # "推理时模型加载Killed了": the load before inference is what failed
                        if "phase" in out and out["phase"].raw == "generation":
                            del out["phase"]  # the title said inference, the post says the load failed
                if phase != "training" and "phase" in out and out["phase"].raw == "training":
                    del out["phase"]  # "trying to fine-tune ..., then it OOMs when eval starts": the part it names
                put([("phase", phase)], number, line)
                break
        switched = _SWITCHED.search(line)
        # "after switching from Llama-2-7b to Llama-3-8B it OOMs": the model switched to is the run's
        model, said_model, worked = model_in_line(line[switched.end() :]) if switched else ([], "", False)
        if switched and model and not worked and FAILED.search(line):
            put([("last_change", "model")], number, switched.group(0))
        if not model:
            model, said_model, worked = model_in_line(line)
        if worked:
            fixed.update(model)
            fix_line = fix_line or number
            # the line may name the model that failed too ("GLM-4.5V 会报内存不足，GLM-V4.1-9B 可以顺利运行")
            other, said_other, other_worked = model_in_line(line.replace(said_model, " " * len(said_model), 1))
            if other and not other_worked:
                put(other, number, said_other)
        elif model:
            put(model, number, said_model)
        for m in _NODES.finditer(line):
            put(_node_gpus(m), number, m.group(0))  # before the cards named alone: "8机*8卡A100" is 64
        # "when I moved from an A100 to a 4090 it OOMs": the card moved to is the run's. It is named where the switch
        # goes to, not anywhere later on the line ("switched from version 3.10.3 to version 3.12.3, and I started getting
        # OOM ... on a full node of 4 H100s" is an upgrade: ms-swift#7986)
        to_card = (
            line[switched.end() :]
            if switched and mentions(line[switched.end() : switched.end() + _SWITCH_REACH])
            else line
        )
        if switched and to_card is not line and FAILED.search(line):
            put([("last_change", "gpus_or_launch")], number, switched.group(0))
        _gpu_names(to_card, number, put)
        one_card = [
            m
            for m in _A_CARD.finditer(to_card)
            if not (
                negated(to_card, m.start())
                or hypothetical(to_card, m.start(), m.end())
                or describes_a_fix(to_card, m.end(), m.start())  # "on an A100 it works fine": not the failing run's
            )
        ]
        if one_card:
            # a line that names two cards ("a 3090 and a 4090") names no single one
            cards_named += [(number, m.group(0)) for m in one_card]
            several_cards = several_cards or len(mentions(to_card)) > 1
        for m in _WORKS_THEN.finditer(line):
            if FAILED.search(line, m.end(), m.end() + 40):
                name = _setting_named(m.group("key"))
                if name in out and out[name].line == number:
                    del out[name]  # "max_length 1024" read inline on this line is the value that works
                put([(name, int(m.group("b")))], number, m.group(0))
                fixed[name] = int(m.group("a"))
                fix_line = fix_line or number
        for m in _DTYPE_INSTEAD.finditer(line):
            # "Load PI0.5 in bfloat16 instead of fp32. Solves the OOM right away.": with a fix said in the clause or
            # the next sentence, the failing run loaded fp32 and the 16-bit load is the change that fixed it
            nxt = re.compile(r"[.!?。！？]\s*").search(line, m.end())
            if describes_a_fix(line, m.end(), m.start()) or (nxt and describes_a_fix(line, nxt.end())):
                put([("torch_dtype", "fp32")], number, m.group(0))
                fixed["torch_dtype"] = _DTYPE_WORDS[m.group("new").split()[0].lower()]
                fix_line = fix_line or number
        for m in (*_SET_TO.finditer(line), *_SET_TO_AFTER.finditer(line)):
            if tried_in_vain(line, m.start(), m.end()):
                tried.setdefault(_setting_named(m.group("key")), number)  # "把batch size改成1也没用"
        for m in (*_LOWERED.finditer(line), *_LOWERED_AFTER.finditer(line)):
            name = _setting_named(m.group("key"))
            if name not in fixed and describes_a_fix(line, m.end(), m.start()):
                fixed[name] = "lowered"
                fix_line = fix_line or number
            elif tried_in_vain(line, m.start(), m.end()):
                tried.setdefault(name, number)  # "I tried reducing the batch size", "调小batch_size还是爆"
        for m in (*_RAISED.finditer(line), *_RAISED_AFTER.finditer(line)):
            name = _setting_named(m.group("key"))
            if (
                name in ("batch_size", "max_length")
                and FAILED.search(line, m.end())
                and not describes_a_fix(line, m.end(), m.start())
            ):
                put([("last_change", "batch_or_length")], number, m.group(0))  # raising it is what broke the run
        said_worked = _WORKED_BEFORE.search(line)
        if said_worked and worked_before is None and not negated(line, said_worked.start()):
            worked_before = (number, said_worked.group(0))
        other_version = _OTHER_VERSION_WORKED.search(line)
        if other_version is not None and not negated(line, other_version.start()):
            put([("last_change", "library_upgrade")], number, other_version.group(0))
            worked_on += _versions_that_worked(other_version.group(0), line, number)
        for package_said in _PACKAGE_CHANGED.finditer(line):
            package = _version_fact(package_said.group("pkg") or package_said.group("pkg2"))
            if (
                package is not None
                and package not in fixed
                and describes_a_fix(line, package_said.end(), package_said.start())
            ):
                fixed[package] = "changed"  # "升级 bitsandbytes 之后好了": another version made it work
                fix_line = fix_line or number
        for pattern, change in _CHANGED_THEN_FAILED:
            changed_at = pattern.search(line)
            if (
                changed_at
                and (
                    FAILED.search(line, changed_at.end())
                    or (change == "library_upgrade" and _MORE_MEMORY.search(line, changed_at.end()))
                )
                and not negated(line, changed_at.start())
                and not describes_a_fix(line, changed_at.end(), changed_at.start())
            ):
                put([("last_change", change)], number, changed_at.group(0))
        recount = _CARDS_FROM_TO.search(line)
        if recount is not None and not (recount.group("zb") or recount.group("ua") or recount.group("ub")):
            recount = None  # "from 2 to 4": of what, it does not say
        if recount is not None and FAILED.search(line) and not describes_a_fix(line, recount.end(), recount.start()):
            a = (recount.group("a") or recount.group("za") or "").lower()
            before, after = _CARD_WORDS.get(a) or int(a), int(recount.group("b") or recount.group("zb"))
            put([("gpu_count", after)], number, recount.group(0))  # the run that fails has the new count
            if after > before:
                put([("last_change", "gpus_or_launch")], number, recount.group(0))
        for m in _FROM_TO.finditer(line):
            name = _setting_named(m.group("key"))
            before, after = int(m.group("a")), int(m.group("b"))
            # "从4096降到2048还是爆显存", "tried reducing the train_batch_size from 8 to 2, but the error persists":
            # the latest run had the second
            if FAILED.search(line, m.end(), m.end() + 40) or tried_in_vain(line, m.start(), m.end()):
                put([(name, after)], number, m.group(0))
                if after < before:
                    tried.setdefault(name, number)  # lowering it did not help
            elif describes_a_fix(line, m.end(), m.start()):
                put([(name, before)], number, m.group(0))  # the run that failed had the first value
                fixed[name] = after
                fix_line = fix_line or number
            elif FAILED.search(line, 0, m.start()):
                # "CUDA OOM after I increased max_length from 1024 to 4096": the run has the value it was changed to
                put([(name, after)], number, m.group(0))
            else:
                put([(name, before)], number, m.group(0))
            if after > before and name in ("batch_size", "max_length") and name not in fixed and FAILED.search(line):
                put([("last_change", "batch_or_length")], number, m.group(0))  # raising it is what broke the run
        for pattern, extract in PATTERNS:
            for m in pattern.finditer(line):
                try:
                    pairs = extract(m)
                except (ValueError, KeyError, IndexError):
                    pairs = []
                if extract is _trainer and pairs:
                    # the failure before the next trainer named: "SFT阶段没问题，DPO阶段OOM" failed at DPO, not SFT
                    following = pattern.search(line, m.end(), m.end() + 24)
                    if FAILED.search(line, m.end(), following.start() if following else m.end() + 24):
                        failing_stage.setdefault(pairs[0][1], (number, m.group(0)))
                if pairs and hypothetical(line, m.start(), m.end()):
                    # "would ZeRO-3 help?": neither the stage nor DeepSpeed itself is the run's
                    pairs = [(name, value) for name, value in pairs if name not in _SETTINGS and name != "distributed"]
                if one_worked is not None:
                    pairs = [(name, value) for name, value in pairs if (name, value) != ("gpu_count", 1)]
                if switched is not None and to_card is not line and m.start() < switched.end():
                    # "switched from 2 A100s to a single RTX 4090": the cards switched from are not the run's
                    pairs = [(name, value) for name, value in pairs if name not in _CARD_FACTS]
                if only and pairs:
                    pairs = _outside_only(pairs, m.start(), only)
                # what happened to the run ("还是爆显存") is never what fixed it
                if (
                    pairs
                    and not all(name in _NOT_A_FIX for name, _ in pairs)
                    and (
                        (fixing and any(name in _SETTINGS or name in _SAYS_HOW for name, _ in pairs))
                        or tells_a_fix(line, m.start(), m.end())
                        or describes_a_fix(line, m.end(), m.start())
                    )
                ):
                    fixed.update(pairs)
                    fix_line = fix_line or number
                    if _ADDED.search(line[max(0, m.start() - 24) : m.start()]):
                        added.update(name for name, _ in pairs)
                elif pairs:
                    implied = out.get("gpu_memory_bytes")
                    if (
                        pattern.pattern == _STATED_MEMORY
                        and implied
                        and (implied.note or "").startswith("the memory of")
                    ):
                        del out["gpu_memory_bytes"]  # "RTX 2080，显存为11264MiB": what they have, not the nominal size
                    put(pairs, number, m.group(0))
            # a trainer class named in code says more than a word in prose ("SFT worked, DPOTrainer OOMs")
            said = out["trainer_type"].excerpt or "" if "trainer_type" in out else ""
            if extract is _trainer and "trainer_type" in out and not _TRAINER_CLASS.search(said):
                named = _TRAINER_CLASS.search(line)
                if named is not None:
                    out["trainer_type"] = Found(
                        "trainer_type", _TRAINERS[named.group(0).lower()], number, excerpt(named.group(0)), None
                    )
    if len(failing_stage) == 1 and "trainer_type" in out and out["trainer_type"].raw not in failing_stage:
        # "做PT和SFT时，单卡显存能够支持运行，而在做DPO时，显存oom": the stage that failed, not the first one named
        stage, (at, said) = next(iter(failing_stage.items()))
        out["trainer_type"] = Found(
            "trainer_type", stage, at, excerpt(said), "the stage named where it ran out of memory"
        )
    if multi_card and "gpu_count" in out and _one_card(out["gpu_count"]):
        del out["gpu_count"]  # "单卡训练正常，多卡出现了OOM": several cards, how many not said
    if "distributed" not in out and ddp is not None:
        put([("distributed", "ddp")], *ddp)
    device_map, cards = out.get("device_map"), out.get("gpu_count")
    several = cards is not None and str(cards.raw).isdigit() and int(str(cards.raw)) >= 2
    if "distributed" not in out and not launcher and device_map and several:
        # one process whose device map spreads the layers over the cards: naive model parallelism
        put([("distributed", "model_parallel")], device_map.line or 1, device_map.excerpt or "", _SPLIT_NOTE)
    if (rl_context or harness) and out.get("out_of_scope") is not None and out["out_of_scope"].raw == "serving":
        # vLLM generating rollouts inside an RL trainer is training memory; as lm_eval's backend, an evaluation
        del out["out_of_scope"]
    scope = out.get("out_of_scope")
    if (
        scope is not None
        and (_LOCAL_APP.search(scope.excerpt or "") or beside)
        and ("finetune_method" in out or "trainer_type" in out)
    ):
        # "训练 Llama-3-8B LoRA 报错 ... 1375 是我后台开着的 ollama", "Phi-3 LoRA OOMs ... I had ComfyUI running in the
        # background": a server or an image app beside a fine-tune is another process on the card, not the run that failed
        del out["out_of_scope"]
    scope = out.get("out_of_scope")
    if (
        scope is not None
        and scope.raw == "image_model"
        and _CUDNN.search(scope.excerpt or "")
        and not _IMAGE_APP.search(scope.excerpt or "")
        and any(name in out for name in ("model_name", "model_params_b", "finetune_method", "trainer_type"))
    ):
        # "Fine-tuning Qwen2-VL-7B with LoRA ... CUDNN_STATUS_ALLOC_FAILED": cuDNN also runs a language model's vision
        # tower or audio encoder; named beside a language model it is that run's error, not an image model's
        del out["out_of_scope"]
    batch = out.get("batch_size")
    if per_device_batch is not None and batch is not None and _PLAIN_BATCH_KEY.match(batch.excerpt or ""):
        # lit-llama#381: "batch_size = 128 // devices" then "micro_batch_size = 4": beside a per-device key, a plain
        # batch_size is the global batch, and the run's per-device batch is 4
        out["batch_size"] = per_device_batch
    kind = out.get("error_kind")
    if (
        (
            gpu_neicun
            or (gpu_ran_out and not host_named)
            or (card_memory_said and not host_named and "host_ram_bytes" not in out)
        )
        and kind is not None
        and kind.raw == "host_oom"
        and "内存" in (kind.excerpt or "")
    ):
        # "GPU内存占用也会增加，内存会溢出", "报内存不够，应该是显存不够", "内存不够(1080Ti，11GB内存)": their 内存 is
        # the card's, so what ran out is the card's memory; so it is in "我是3060 12G显存 ... 内存溢出", "训练一会显存就崩
        # ... 内存不足" (显存 said, no host memory named or sized: on development, none of the six such reports was a
        # host-RAM one)
        out["error_kind"] = Found("error_kind", "cuda_oom", kind.line, kind.excerpt, "内存 here is the card's memory")
    if (
        "error_kind" not in out
        and bare_oom is not None
        and not host_named
        and "host_ram_bytes" not in out
        and not (host_neicun and not card_memory_said)
        and not ("phase" in out and out["phase"].raw in ("loading", "saving", "merging"))
        and not _HOST_PHASE_WORDS.search(bare_oom[1])
    ):
        # "7B model OOM with 4x4096", "OOM still occurs": with no word of host memory (RAM, swap, Killed) the memory
        # that ran out is the card's. On development, 260 of the 284 reports that say only OOM or out of memory
        # were CUDA OOMs by their threads, 3 host-RAM ones.
        put([("error_kind", "cuda_oom")], *bare_oom, "an OOM with no word of host memory is the card's memory")
    if apple and not nvidia:
        _unified_memory(out)
    if harness and "phase" not in out:
        put([("phase", "evaluation")], 1, "lm_eval", "an evaluation harness runs no training")
    evaluating = (
        "phase" in out and out["phase"].raw == "evaluation" and not (training_said or out.keys() & _TRAINING_FACTS)
    )
    if (harness or evaluating) and "batch_size" in out and "eval_batch_size" not in out:
        # an evaluation harness's batch size, or the batch of a run that only evaluates ("zero-shot evaluation ...
        # using the default batch_size=1024", DART-Eval#9), is the evaluation batch
        batch = out.pop("batch_size")
        out["eval_batch_size"] = Found(
            "eval_batch_size",
            batch.raw,
            batch.line,
            batch.excerpt,
            "an evaluation harness's batch size is its evaluation batch"
            if harness
            else "the run only evaluates, so its batch size is the evaluation batch",
        )
    for number, name, good, failing in worked_on:
        found = out.get(name)
        if found is not None and found.line == number and str(found.raw) == good:
            # "it loaded in 9 GB with transformers 4.57, now it OOMs with 5.2": the version that worked is not the run's
            del out[name]
            if failing is not None:
                put([(name, failing)], number, f"{good} worked, {failing} fails")
    if worked_before is not None and "last_change" not in out:
        put([("last_change", "worked_before")], *worked_before, "it worked before; what changed since is not said")
    # not when the text says several cards ("multi-gpu training on an A100 node"): the article names the kind of card,
    # not how many
    if "gpu_count" not in out and len(cards_named) == 1 and not several_cards and not multi_card:
        put([("gpu_count", 1)], *cards_named[0], "one card named (an article or 'my' before it)")
    _per_card(out)
    fixed.pop("resolved_by", None)
    for name in sorted(added & fixed.keys()):
        run = out.get(name)
        if run is not None and str(run.raw) == str(fixed[name]) and name not in same:
            del out[name]  # the code shown is the version that worked, with the setting added
    # a setting the failing run already had is not what changed ("zero3 OOMs, zero3 with offload runs")
    for name in sorted(same & fixed.keys() - out.keys()):
        # "bs 8 on one GPU is fine, on 2 GPUs at the same batch_size it OOMs": the failing run has it too
        out[name] = Found(name, fixed[name], fix_line or 1, None, "the same value as the run that worked")
    changed = sorted(
        name
        for name, value in fixed.items()
        if name not in same and name not in _SAYS_HOW and (name not in out or str(out[name].raw) != str(value))
    )
    if changed:
        out["resolved_by"] = Found(
            "resolved_by", ",".join(changed), fix_line or 1, None, "what the text says made the run work"
        )
    bnb = "quant_method" in out and out["quant_method"].raw == "bitsandbytes"
    qlora = "finetune_method" in out and out["finetune_method"].raw == "qlora"
    if quantizing and not (loads_quantized or bnb or qlora) and "quantization" in out:
        # "I use 32G V100 to try to quantize llama-13B ... BaseQuantizeConfig(bits=4)" (AutoGPTQ#179): the model in
        # memory is the 16-bit one being quantized (bitsandbytes, which "quantizes the model" as it loads it, keeps
        # its bits)
        del out["quantization"]
    in_vain = sorted(name for name in tried if name not in fixed)
    if in_vain:
        out["tried_without_effect"] = Found(
            "tried_without_effect",
            ",".join(in_vain),
            min(tried[name] for name in in_vain),
            None,
            "what the text says was lowered while the run still failed",
        )
    return list(out.values())


#: Words of training or fine-tuning: a run that says them may have a training batch, even when it fails evaluating.
_TRAINING_SAID = re.compile(r"\btrain(?:s|ed|ing|er)?\b|fine-?tun|finetun|\bsft\b|训练|微调", _I)
#: Facts only a training run has.
_TRAINING_FACTS = frozenset({"finetune_method", "trainer_type", "grad_accum", "gradient_checkpointing", "optimizer"})
#: An Apple Silicon Mac, whose RAM is the accelerator's memory: "my M1 Pro Mac with 16GB RAM", "MacBook Air M5", MLX,
#: the mps device.
_APPLE_SILICON = re.compile(
    r"\bm[1-5](?:\s*(?:pro|max|ultra))?\b[^.\n]{0,20}\b(?:mac|macbook|mac\s*mini|mac\s*studio|chip)\b|"
    r"\b(?:mac|macbook(?:\s*(?:air|pro))?|mac\s*mini|mac\s*studio)\b[^.\n]{0,20}\bm[1-5]\b|"
    r"\bapple\s+silicon\b|\bunified\s+memory\b|(?<![\w/-])mlx(?:[-_]lm)?\b(?!/)|\bdevice\s*=\s*[\"']mps[\"']|"
    r"\bto\([\"']mps[\"']\)|\bMPS backend\b",
    _I,
)
#: CUDA or NVIDIA named (a card of the GPU table named counts too, :func:`~triage.hardware.gpus.mentions`): then the
#: Mac is not where the run is.
_CUDA_WORDS = re.compile(r"\bcuda\b|\bnvidia\b", _I)


def _unified_memory(out: dict[str, Found]) -> None:
    """On an Apple Silicon Mac the RAM is the accelerator's memory: what ran out is that memory (read as an
    accelerator OOM, as the MPS backend's own message is), and the RAM's size is the device's."""
    kind, ram = out.get("error_kind"), out.get("host_ram_bytes")
    note = "an Apple Silicon Mac's RAM is the accelerator's (unified) memory"
    if kind is not None and kind.raw == "host_oom":
        out["error_kind"] = Found("error_kind", "cuda_oom", kind.line, kind.excerpt, note)
    if ram is not None:
        del out["host_ram_bytes"]
        if "gpu_memory_bytes" not in out:
            out["gpu_memory_bytes"] = Found("gpu_memory_bytes", ram.raw, ram.line, ram.excerpt, note)


def _per_card(out: dict[str, Found]) -> None:
    """A total over several cards ("4块A100，160G的显存") is the memory of each card times their count."""
    memory, count = out.get("gpu_memory_bytes"), out.get("gpu_count")
    if memory is None or memory.note is not None:
        return
    if count is None:
        if int(str(memory.raw)) > 256 * GiB:
            del out["gpu_memory_bytes"]
        return
    try:
        total_gb, n = int(str(memory.raw)) / GiB, int(str(count.raw))
    except ValueError:
        return
    each = total_gb / n if n > 1 else 0.5
    said_total = re.search(r"一共|总共|合计|总计|in\s+total", memory.excerpt or "", re.IGNORECASE) is not None
    if (
        (said_total or round(total_gb) not in _GPU_MEMORY_SIZES)
        and each.is_integer()
        and int(each) in _GPU_MEMORY_SIZES
    ):
        note = f"{total_gb:g} GB over {n} GPUs"
        out["gpu_memory_bytes"] = Found("gpu_memory_bytes", int(each) * GiB, memory.line, memory.excerpt, note)
    elif total_gb > 256:
        del out["gpu_memory_bytes"]  # no card has that much: a total we cannot split


#: A job that quantizes a model: GPTQ's and AWQ's quantize calls, "to quantize llama-13B", "when quantizing",
#: "对Llama-3-70B-Instruct进行量化的时候" (not a quantized model run: "想使用8bit量化模型跑").
_QUANTIZING = re.compile(
    r"\.quantize\(\s*(?:[a-z_]\w*\s*[,)=]|$)|"
    r"\b(?:to|when|while|for)\s+quantiz(?:e|ing)\s+(?:the\s+|a\s+|my\s+|this\s+)?(?:model|[\w.-]*\d+(?:\.\d+)?\s*b\b)|"
    r"\bquantizing\s+(?:the\s+|a\s+|my\s+|this\s+)?(?:model|[\w.-]*\d+(?:\.\d+)?\s*b\b)|"
    r"进行(?:gptq|awq)?量化(?:的时候|时|过程)|量化(?:的)?过程中",
    _I,
)

#: Words before a size that make it memory in use, not the card's: "another process is using 10GB".
_USED_BEFORE = re.compile(
    r"\b(?:using|uses|used|occupied|occupies|holds?|held|free|allocated|reserved|process|costs?|costing|consum\w*|"
    r"eats?|eating|usage|footprint)\b|占用|使用了|剩|" + _RISE_TO + r"\b",
    # a rise to a size: "then suddenly jumps to 80GB"
    _I,
)

_USED_AFTER = re.compile(
    r"\s*(?:is\s+|are\s+|was\s+)?(?:already\s+)?(?:used|occupied|taken|held|in\s+use|allocated|reserved)\b", _I
)

#: Words around a size that make it a change, not the card's: "this saves ~4 GB in activation memory", "the peak
#: drops by 4 GB", "4 GB more than before", "显存减少了4G".
_DELTA_BEFORE = re.compile(
    r"\b(?:sav(?:e|es|ed|ing)|reduc\w*|cuts?|drops?|dropped|decreas\w*|increas\w*|grows?|grew|rises|rose|by|extra|"
    r"additional|another)\b[^,.;:]{0,12}$|(?:节省|省了|省下|减少|降低|增加|多了|少了|多出)了?\s*(?:约|大约)?\s*$",
    _I,
)
_DELTA_AFTER = re.compile(
    r"\s*(?:less|more|lower|higher|extra|fewer|of\s+savings|in\s+activation)\b|"
    # where a rise started: "memory went from 20GB to 24GB", "显存从20G涨到24G"
    r"\s*(?:一路|慢慢|逐渐|直接|突然)?(?:涨|增加|增长|上升|升|飙升|暴涨|变)(?:到|至)|\s+to\s+\d",
    _I,
)

_UNSUPPORTED = re.compile(
    r"(?:不支持|不兼容|doesn'?t\s+support|does\s+not\s+support|not\s+supported\s+(?:on|by)|no\s+support\s+for)\s*$", _I
)


def _gpu_names(line: str, number: int, put: Callable[..., None]) -> None:
    set_aside = False
    for mention in mentions(line):
        start, end = mention.start, mention.end
        if (
            line[start - 1 : start] in ("/", ".")
            or (line[end : end + 1] == "/" and mention.stated_gb is None)
            or line[end : end + 1] == "步"
            or re.match(r"\s*(?:steps?\b|步|it(?:/s\b|\s*\[|\s*,|\s*$))", line[end:], _I)
        ):
            continue  # "3090/10000" and "3090it [00:10, ...]" are progress counts, "v2.4090" a version
        if _UNSUPPORTED.search(line[max(0, start - 24) : start]) or describes_a_fix(line, end, start):
            set_aside = True
            continue  # "flash-attn does not support V100", "on an A100 it works fine"
        gpu, stated = mention.gpu, mention.stated_gb
        name = mention.model if gpu is None or len(mention.variants) == 1 else f"{mention.model} {gpu.nominal_gb}GB"
        said = line[start : end + 12]
        put([("gpu_name", name)], number, said)
        if gpu is not None:
            note = None if stated else f"the memory of a {gpu.name}"
            if gpu.total_bytes != gpu.nominal_gb * GiB:
                note = f"{note or f'a {gpu.name}'}: {gpu.memory_mib} MiB as nvidia-smi shows it"
            put([("gpu_memory_bytes", gpu.total_bytes)], number, said, note)
        elif stated is not None and stated in _GPU_MEMORY_SIZES:
            put([("gpu_memory_bytes", stated * GiB)], number, said)
        if mention.capability is not None:
            put(
                [("compute_capability", mention.capability)],
                number,
                said,
                f"the compute capability of a {mention.model}",
            )
        return
    if set_aside:
        return  # the size next to a card that is not the run's is not the run's either
    m = re.search(r"(?<![\w.])(?P<n>\d+)\s*(?:G|GB)\b(?!\s*(?:ram|内存|disk|硬盘|ssd|的内存|memory of ram))", line, _I)
    if (
        m
        and int(m.group("n")) in _GPU_MEMORY_SIZES
        and not re.search(
            r"内存|\bram\b|disk|硬盘|model|模型|\bdata(?:set)?s?\b|\bcorpus\b|\bfiles?\b|数据|文件|语料", line, _I
        )
        and not _SPARE.match(line, m.end())
        and not _HELD.search(line[max(0, m.start() - 8) : m.start()])
        and not _USED_BEFORE.search(line[max(0, m.start() - 30) : m.start()])
        and not _USES.search(line[max(0, m.start() - 40) : m.start()])  # "memory stays constant at 20GB": in use
        and not _USED_AFTER.match(line, m.end())
        and not _DELTA_BEFORE.search(line[max(0, m.start() - 30) : m.start()])
        and not _DELTA_AFTER.match(line, m.end())
    ):
        put(
            [("gpu_memory_bytes", int(m.group("n")) * GiB)],
            number,
            m.group(0),
            "a memory size alone, read as the GPU's",
        )
