# ruff: noqa: E501  (the phrase tables below quote real posts verbatim; wrapping them would garble them)
"""Myths: a user who repeats a community myth gets the correction, in every output format.

Each myth must be recognised from its own claim (en and zh) and from the words the
community thread actually used (shared/seeds/community-thread-zh.txt), and must stay
silent on neutral out-of-memory reports. The four examples from the issue are
checked end to end through ``triage.cli.main`` in text, json and markdown.
"""

from __future__ import annotations

import json
import re

import pytest

from triage.api import build_session
from triage.cli import main
from triage.engine.diagnose import MYTH_THRESHOLD, diagnose
from triage.kb.loader import KnowledgeBase, load_knowledge
from triage.kb.models import Verdict

#: Every claim judged FALSE or PARTLY in shared/reference/seed-claims.md.
FALSE_OR_PARTLY = {
    "L1", "L2", "L4", "L5", "L6", "L7", "L8", "L10",
    "V1", "V2", "V3", "V5", "V6", "V7", "V9", "V10", "V11", "V12", "V15", "V16",
    "G2", "G3", "G4", "G5", "G6", "G7",
    "P1", "P2", "P4", "P7", "P9",
    "O1", "O2", "O3", "O4", "O5",
    "D1", "D2", "D3", "D6",
    "A1", "A2", "A6", "A7", "A8",
    "E1", "E3", "DR1", "X3",
}  # fmt: skip

#: Verbatim excerpts of the community thread (the replies that made each claim).
THREAD = {
    "max-length-2048-is-the-culprit": ["2048对于7B来说太狠了，试试把长度砍到1024甚至512，显存占用立刻掉一大截"],
    "length-not-batch-size": ["后来发现瓶颈其实不在batch size，而是max_length", "实际跑起来比调batch size管用多了"],
    "halving-length-saves-fixed-gb": ["我上次降到1024直接省了快5G显存", "把max_length砍到1024，峰值显存能直接降4-5G"],
    "halving-length-more-than-halves-memory": ["你试试把长度砍到1024，显存占用能直接降一半还多"],
    "memory-quadratic-in-length": ["序列长度对显存影响是二次方的", "主要是激活值随序列长度平方增长"],
    "kv-cache-eats-training-memory": [
        "7B模型在这个长度下KV cache占得飞起",
        "尤其序列长的时候attention的KV cache会吃掉不少显存",
        "bf16下7B的attention缓存吃显存很夸张",
    ],
    "kv-cache-quadratic": ["尤其attention的KV cache是跟序列长度平方级挂钩的"],
    "attention-no-hidden-overhead": ["attention那块其实没太多隐藏开销，主要是激活值随序列长度平方增长"],
    "upgrade-transformers-for-memory": [
        "transformers 4.31对LLaMA的支持有点老，建议升到4.35以上，有些显存优化是后来才加的"
    ],
    "flash-attention-431-leaks": [
        "另外transformers 4.31的flash attention支持不太好",
        "flash attention在4.31里还不稳定，容易显存泄漏",
        "另外transformers 4.31有个已知的flash attention兼容性问题",
    ],
    "newer-versions-auto-flash-attention": ["换到4.35以上版本有时候能省不少显存，因为新版用了更高效的flash attention"],
    "flash-attention-431-off-by-default": ["你试过把模型的flash attention打开吗？4.31版本支持的话能省不少"],
    "attn-implementation-flash-attn-2": ['你检查下config里有没有加attn_implementation="flash_attn_2"'],
    "turn-off-flash-attention-2": ['手动把attn_implementation="flash_attention_2"关掉，有时候反而是默认实现更省'],
    "fa2-on-3090-only-saves-mask": ["虽然3090不支持flash-attn的某些优化，但至少能省掉attention mask的临时张量"],
    "llama-431-caches-seq-tensor": [
        "LLaMA的attention实现里会缓存一个跟序列长度相关的中间张量，哪怕gradient checkpoint开了也照样占着"
    ],
    "downgrade-to-428-mask-bug": [
        "有个版本对 attention mask 的处理改过，显存占用会莫名翻倍，建议先试试 4.28 或者 4.36"
    ],
    "upgrade-to-438": ["建议升级到4.38以上，能省不少显存", "建议升到4.38以上或者直接换peft的latest版本"],
    "version-does-not-matter": ["版本问题倒不大，4.31够用，但你可以试试升级到4.36，有些内存管理优化"],
    "latest-peft-fixes-attention": ["flash attention支持不完善，建议升到4.38以上或者直接换peft的latest版本"],
    "gc-enable-placement": ["记得把model.gradient_checkpointing_enable()放在模型定义之后，别放错位置，不然不生效"],
    "use-cache-false-saves-memory": [
        "把 gradient_checkpointing 配合 use_cache=False 一起设，否则缓存会跟 checkpoint 冲突导致显存泄漏",
        "升级后记得把model的use_cache设成False，这个如果漏了，哪怕checkpoint开了也会缓存所有层的KV",
    ],
    "use-reentrant-false-saves-memory": [
        "把gradient_checkpointing_kwargs里的use_reentrant设成False，有时候能再多压出一点显存",
        '还要设--gradient_checkpointing_kwargs={"use_reentrant": False}，不然某些版本会额外保留中间变量',
    ],
    "gc-plus-torch-checkpoint": ["还有个偏方，把gradient_checkpointing和torch.utils.checkpoint一起用"],
    "enable-input-require-grads-saves-memory": ["加个model.enable_input_require_grads()或者手动冻结原参数能省很多"],
    "lora-keeps-full-gradients": [
        "LoRA一般只训练adaptor，但默认配置可能会把全量参数梯度也存了",
        "最好把base model的requires_grad全设False，这样能省一大块",
    ],
    "bf16-bad-on-3090": ["bf16在3090上其实不太友好，安培架构对bf16支持有坑，改用fp16加grad scaler可能反而更稳"],
    "from-pretrained-fp32-copy": ["你加载模型的时候如果用from_pretrained默认会保留fp32的权重副本"],
    "batch-1-is-the-limit": ["加上激活值和梯度，batch size=1其实已经很极限了"],
    "qlora-is-8bit": ["最后实在不行就上8bit量化加载，配合QLoRA，24G跑7B基本稳"],
    "leave-room-for-gradients": ["我自己跑7B LoRA，尤其3090的24G还得留梯度空间"],
    "8bit-adam-saves-gigabytes": [
        "把optimizer换成AdamW的8bit版本，能再挤点空间出来",
        "用bitsandbytes的8bit优化器，能再挤出1-2G空间",
        "配合optimizer选adamw_8bit，能再挤出来2G左右",
    ],
    "paged-adamw-saves-gigabytes": ["换成paged_adamw（bitsandbytes带的）能省个2-3G"],
    "sophia-saves-memory": ["把optimizer换成adamw8bit或者狮身人面像（sophia），能省下2-3G"],
    "sgd-instead-of-adamw": ["可以试试8-bit Adam或者SGD"],
    "lora-optimizer-state-significant": [
        "LoRA虽然只训练少量参数，AdamW的动量还是占地方",
        "哪怕LoRA只训练少量参数，也要把优化器状态也算进去",
    ],
    "padding-defaults-to-longest-sample": [
        "默认会pad到最长样本，如果你数据里有个超长的，整个batch都跟着遭殃",
        "batch里会自动padding到最长，那2048的padding会白白占显存",
    ],
    "pad-to-max-length-saves-memory": ["试试把padding设为max_length并且固定长度，或者干脆dynamic padding，能省不少"],
    "dynamic-padding-fixes-peak": [
        "改成动态padding会好很多",
        "然后配合DataCollatorWithPadding动态padding，别把整个batch都pad到max_length，能省不少",
    ],
    "padding-side-left-saves-memory": ['还有一个冷门技巧是给tokenizer加pad_side="left"，可以避免某些时候的额外缓存'],
    "device-map-auto-prevents-fragmentation": [
        '加载模型时用device_map="auto"配合accelerate，别手动塞到cuda:0，不然碎片化也会导致OOM'
    ],
    "device-map-auto-reserves-cache": [
        "检查下是不是把model parallelism或者device_map设成了auto，有时候这玩意儿反而会多占一块显存做缓存"
    ],
    "dataloader-puts-batch-on-gpu": ["检查下是不是有多卡并行或者数据加载时把整批都放显存了"],
    "pin-memory-uses-gpu-memory": ["有时候是dataloader的pin_memory在捣乱"],
    "offload-for-lora": ["我自己的配置是batch size 1、max_length 1024、gradient checkpoint + offload"],
    "validation-every-step-ooms": ["检查下是不是把validation也放在同一个显存里了，如果每步都跑验证集，那肯定爆"],
    "steady-rise-means-config": [
        "看看是稳步上升还是突然爆掉，前者是配置问题，后者可能是有个batch里某条样本特别长导致的"
    ],
    "attention-dropout-raises-memory": [
        "把attention的dropout关掉",
        "或者你手动调了attention的dropout，都会让显存偷偷涨",
    ],
    "13b-on-4090-with-use-cache": [
        "把 gradient_checkpointing 配合 use_cache=False 一起设。我 4090 跑 13B 就是这么稳下来的"
    ],
}

#: How users phrase the same claims in English (independent of the claim text).
ENGLISH = {
    "padding-side-left-saves-memory": ["I set padding_side=left to save memory"],
    "kv-cache-eats-training-memory": ["KV cache is eating my memory during training"],
    "bf16-bad-on-3090": ["bf16 doesn't work well on a 3090 so I use fp16"],
    "upgrade-to-438": ["upgrade to 4.38", "Just upgrade transformers to 4.38, it fixed my OOM"],
    "attn-implementation-flash-attn-2": [
        "model = AutoModelForCausalLM.from_pretrained(p, attn_implementation='flash_attn_2')"
    ],
    "8bit-adam-saves-gigabytes": ["switching to adamw_8bit saved me about 2GB on my LoRA run"],
    "use-cache-false-saves-memory": ["set use_cache=False to save memory when training with gradient checkpointing"],
    "device-map-auto-prevents-fragmentation": ['use device_map="auto" so you don\'t get fragmentation'],
    "qlora-is-8bit": ["QLoRA is just load_in_8bit plus LoRA"],
    "pin-memory-uses-gpu-memory": ["I think pin_memory is the culprit, it eats GPU memory"],
}

#: Neutral out-of-memory reports: they repeat no myth, so nothing may be flagged.
NEUTRAL = [
    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.69 GiB of which 1.10 GiB is free.",
    "torch.cuda.OutOfMemoryError while training Llama-2-7b with LoRA, max_length 2048, batch size 4, bf16=True.",
    'model = AutoModelForCausalLM.from_pretrained(name, device_map="auto", torch_dtype=torch.bfloat16)\n'
    "tokenizer.padding_side = 'left'  # Allow batched inference\nOOM at step 0",
    "I use gradient_checkpointing=True, use_cache=False and optim=paged_adamw_8bit, still out of memory on a 3090.",
    "QLoRA with load_in_4bit, bnb_4bit_compute_dtype=torch.bfloat16, r=64 on all linear layers, 4090, OOM during backward.",
    "After upgrading from transformers 4.37.2 to 4.38.2 my script OOMs with an identical config.",
    "UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly.",
    "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`...",
    "显存爆了，3090，Llama-2-7B LoRA，max_length 2048，batch size 1，bf16，开了 gradient checkpointing。",
    "训练到一半显存一直涨，最后 OOM 了，用的是 transformers 4.36 和 peft 0.7。",
    "保存模型的时候OOM，deepspeed zero3，13B 全参。",
    "评估的时候爆显存，per_device_eval_batch_size=8，compute_metrics 里算准确率。",
    "被Killed了，没有报错，dmesg 里有 oom-killer。",
    "用了 padding='max_length' 和 max_length=1024，DataCollatorForSeq2Seq，batch 4，A100 40G OOM。",
    "eval_accumulation_steps=1 and preprocess_logits_for_metrics returning argmax, still OOM in generate() with num_beams=4.",
    "flash_attention_2 is not supported on V100 (compute capability 7.0), falling back to sdpa.",
    "I switched to bf16 on my 3090 and memory is the same as fp16; OOM persists at seq 4096.",
]

EXAMPLES = [
    ("I set padding_side=left to save memory", "padding-side-left-saves-memory"),
    ("KV cache is eating my memory during training", "kv-cache-eats-training-memory"),
    ("bf16 doesn't work well on a 3090 so I use fp16", "bf16-bad-on-3090"),
    ("upgrade to 4.38", "upgrade-to-438"),
]


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    knowledge, _problems = load_knowledge()
    return knowledge


def _flagged(kb: KnowledgeBase, text: str, lang: str = "en") -> list[str]:
    return [fm.myth.id for fm in diagnose(kb, build_session(kb, symptoms=[text], lang=lang)).myths]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_every_false_or_partly_seed_claim_is_a_myth(kb: KnowledgeBase) -> None:
    covered = {claim for myth in kb.myths.values() for claim in myth.seed_claims}
    assert covered >= FALSE_OR_PARTLY, sorted(FALSE_OR_PARTLY - covered)


def test_every_myth_is_checked_against_the_thread(kb: KnowledgeBase) -> None:
    assert set(kb.myths) <= set(THREAD), sorted(set(kb.myths) - set(THREAD))


@pytest.mark.parametrize("myth_id", sorted(THREAD))
def test_myth_is_well_formed(kb: KnowledgeBase, myth_id: str) -> None:
    myth = kb.myths[myth_id]
    assert myth.verdict in {Verdict.false, Verdict.partly}
    assert myth.references, "cite at least one source"
    assert myth.seed_claims and set(myth.seed_claims) <= FALSE_OR_PARTLY
    assert re.search(r"[\u4e00-\u9fff]", myth.claim.zh) and re.search(r"[\u4e00-\u9fff]", myth.correction.zh)
    assert re.search(r"\d", myth.correction.en), "the correction gives versions or numbers"


@pytest.mark.parametrize("myth_id", sorted(THREAD))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_claim_text_triggers_its_myth(kb: KnowledgeBase, myth_id: str, lang: str) -> None:
    claim = kb.myths[myth_id].claim.get(lang)
    assert myth_id in _flagged(kb, claim, lang)


PHRASINGS = [(m, t) for table in (THREAD, ENGLISH) for m, texts in table.items() for t in texts]


@pytest.mark.parametrize(("myth_id", "text"), PHRASINGS)
def test_real_phrasing_triggers_the_myth(kb: KnowledgeBase, myth_id: str, text: str) -> None:
    assert myth_id in _flagged(kb, text)


@pytest.mark.parametrize("text", NEUTRAL)
def test_neutral_reports_flag_no_myth(kb: KnowledgeBase, text: str) -> None:
    assert _flagged(kb, text) == []


def test_threshold_is_what_the_signals_are_weighed_against(kb: KnowledgeBase) -> None:
    # a myth whose signals cannot add up to the threshold could never be shown
    for myth in kb.myths.values():
        assert sum(s.weight for s in myth.signals) >= MYTH_THRESHOLD, myth.id


@pytest.mark.parametrize(("text", "myth_id"), EXAMPLES)
def test_example_correction_in_json(
    kb: KnowledgeBase, capsys: pytest.CaptureFixture[str], text: str, myth_id: str
) -> None:
    assert main(["--symptom", text, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    shown = {m["id"]: m for m in data["myths"]}
    assert myth_id in shown
    assert shown[myth_id]["correction"] == kb.myths[myth_id].correction.en
    assert shown[myth_id]["verdict"] == kb.myths[myth_id].verdict.value
    assert shown[myth_id]["references"]


@pytest.mark.parametrize("fmt", ["text", "markdown"])
@pytest.mark.parametrize(("text", "myth_id"), EXAMPLES)
def test_example_correction_in_text_and_markdown(
    kb: KnowledgeBase, capsys: pytest.CaptureFixture[str], fmt: str, text: str, myth_id: str
) -> None:
    assert main(["--symptom", text, "--format", fmt]) == 0
    out = capsys.readouterr().out
    # text output wraps at 80 columns; compare without whitespace
    assert _squash(kb.myths[myth_id].correction.en) in _squash(out)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_example_correction_in_chinese(kb: KnowledgeBase, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert main(["--symptom", "bf16在3090上不太友好，所以我改用fp16了", "--format", fmt, "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        out = " ".join(m["correction"] for m in json.loads(out)["myths"])
    assert _squash(kb.myths["bf16-bad-on-3090"].correction.zh) in _squash(out)
