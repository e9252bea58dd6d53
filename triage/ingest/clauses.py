# ruff: noqa: E501  (bilingual pattern tables: CJK characters count double towards the line length)
"""Clauses and what their words do to a setting: denied ("没开", "without"), affirmed ("已开启", "with"),
or only asked about or suggested ("can I enable ...?", "建议开启"). The reader uses them to decide
whether a setting it found is the run's own."""

from __future__ import annotations

import re

_I = re.IGNORECASE | re.ASCII  # ASCII word boundaries: "用的QLoRA" has one before Q

NEGATE = re.compile(
    r"\b(?:no|not|without|w/o|didn'?t|did not|don'?t|do not|haven'?t|hasn'?t|isn'?t|wasn'?t|never|disabled?|"
    r"can'?t|cannot|couldn'?t|unable to|removed|dropped|got rid of|"
    r"off|false|turned off|rather than|instead of|drop(?:ped|ping)?|remov(?:e|ed|ing))\b|而不是|而非|没有|没开|没用|没|未开启|未启用|未|不|关闭|关了|关掉|禁用|否|去掉|删掉|去除",
    _I,
)
AFFIRM = re.compile(
    r"\b(?:with|using|use[ds]?|enabl(?:e|ed|ing)|turn(?:ed|ing)\s+on|on|true|yes|activat(?:e|ed|ing)|already|set|"
    r"pass(?:es|ed|ing)?|add(?:ed|ing)?)\b|已开启|已经开启|开启|开了|打开|传了|传入|"
    r"启用|用了|使用|已开|开着|已设置|设置了|已经设置",
    _I,
)


CLAUSE = re.compile(r"[,;!?()，。；！？、（）]|\.(?!\w)|\bbut\b|\bhowever\b|\binstead\b|但是?|不过|而是", _I)
_CJK_NEGATE = re.compile(r"(?:没有|没用|没开|没|未|不用|不是|不|关闭|关了|关掉|禁用)\s*$")


def negated(line: str, start: int) -> bool:
    """Whether the term at ``line[start:]`` is denied: "not using deepspeed zero3", "没用QLoRA".

    Only the same clause counts, and only the last three words before the term (or the Chinese
    characters right before it): "no OOM with zero3" is read as denied (nothing, rather than a
    wrong fact), while "no OOM before, but now with zero3" is not.
    """
    before = CLAUSE.split(line[max(0, start - 40) : start])[-1]
    words = before.split()
    return bool(NEGATE.search(" ".join(words[-3:])) or _CJK_NEGATE.search(before))


#: Where a sentence ends: "?", "!", "。" and a full stop that is not a decimal point or a version's dot.
_SENTENCE_END = re.compile(r"[!?;。！？；]|\.(?!\w)")
#: Asking whether to use a setting: "can I enable ...?", "is it possible to use ...?", "可以开启...吗".
_ASKS_WHETHER = re.compile(
    r"\b(?:can|could|should|shall|may|might)\s+(?:i|we|you|one)\b|\bdo\s+(?:i|we|you)\s+(?:need|have)\s+to\b|"
    r"\bis\s+(?:it|there)\s+(?:possible|a\s+way|any\s+way|recommended)\b|\bhow\s+(?:can|do|should|could)\s+(?:i|we)\b|"
    r"\bhow\s+to\b|\bwould\b|\bwhether\b|\bis\s+it\s+better\s+to\b|\bwhich\s+(?:one\s+)?(?:is\s+better|should)\b|"
    r"可以|可否|能否|能不能|是否|要不要|需不需要|需要|怎么|如何|怎样|应该|该不该",
    _I,
)
_QUESTION_TAIL = re.compile(r"[?？]|[吗么嘛][\s。.]*$")
#: A setting the run has, inside a question about something else: "how can I save memory *when using* bs=8?"
_SAYS_WHEN = re.compile(
    r"\b(?:when|while|after|since|because|as)\s+(?:i\s+|i'?m\s+|we\s+)?\w+\s+(?:the\s+)?(?:--)?$", _I
)
#: The verb that puts the setting in question, right before it: "can I *enable* ...", "可以*开启*...吗".
_TO_USE = re.compile(
    r"(?:\b(?:use|using|enable|enabling|set|setting|turn\s+on|add|adding|try|switch\s+to|apply)\s+(?:the\s+|a\s+)?(?:--)?|"
    r"(?:开启|打开|启用|使用|用|设置|设|加上|加|改成|换成|试试)\s*)"
    # the second of two choices asked between: "should I use FSDP or DeepSpeed?", "用FSDP还是deepspeed"
    r"(?:[\w.-]+\s*(?:\bor\b|\bvs\.?|\bversus\b|还是)\s*)?$",
    _I,
)
#: Someone suggesting a setting: "it suggests me to use --gradient_checkpointing", "建议开启".
_SUGGESTS = re.compile(
    r"\b(?:suggest|recommend|advise)(?:s|ed|ing)?\s+(?:me\s+|us\s+|you\s+)?(?:to\s+)?"
    r"(?:use|using|enable|enabling|set|setting|turn|add|pass|passing|specify|specifying)\b|"
    r"建议(?:我|你|大家)?[^，,。；;！？!?]{0,40}?(?:使用|开启|打开|启用|用|设置|加上|指定|传入)",
    _I,
)


#: How far a sentence reaches either side of a setting: past it, a line with no full stop (a pasted
#: command, a log line repeated thousands of times) is not one sentence, and every setting found in it
#: would otherwise rescan the whole line.
SENTENCE_REACH = 400

#: A question that opens with a guess: "Maybe DeepSpeed ... supports it?", "Perhaps FSDP would help?".
_GUESS_HEAD = re.compile(
    r"\s*(?:maybe|perhaps|possibly)\s+(?:the\s+|a\s+|using\s+|use\s+|with\s+|try(?:ing)?\s+)?$", _I
)


#: Right after a setting, what it is expected to do: "--load-8bit should help", "zero3 might fix it", "开 8bit 应该能省显存"
#: (but "zero3 should work, yet it OOMs" is the run's own).
_WOULD_HELP = re.compile(
    r"\s*(?:(?:should|would|might|could|may|will)\s+(?:probably\s+|maybe\s+)?(?:help|fix|solve|reduce|save|lower)\b|"
    r"(?:应该|也许|可能)(?:会|能|可以)?(?:有用|有帮助|解决|省|降低|减少))",
    _I,
)


#: Right before a setting, a version of the run wanted, not had: "需要一个4Bit版本，但是目前没找到", "looking for a 4-bit build".
_WANTS = re.compile(
    r"(?:需要|想要|想找|在找|寻找|找)(?:一个|个|一版)?\s*$|\b(?:need|want|looking\s+for|searching\s+for)\s+(?:an?\s+)$",
    _I,
)


#: A change asked about with its effect after it: "would ZeRO-3 help?", "can 8-bit Adam fix this?".
#: A tool's name may come between ("would deepspeed zero3 help?", "can DeepSpeed ZeRO-3 offload fix this?"), but
#: not a possessive: "does my zero3 config work?" asks about the run's own.
_WOULD_IT = re.compile(
    r"\b(?:would|will|could|can|does|do|might|may)\s+(?:the\s+|a\s+|using\s+|enabling\s+|switching\s+to\s+)?"
    r"(?:(?:deep\s?speed|ds|fsdp|zero[- ]?[0-3]?|stage[- ]?[0-3]|bnb|bitsandbytes|[48][- ]?bit|cpu|nvme|paged)\s+){0,2}$",
    _I,
)
_HELP_ASKED = re.compile(
    r"\s*(?:[\w-]+\s+){0,3}?(?:help|fix|solve|reduce|save|lower|work|make\s+it\s+fit)\b[^.!\n]{0,40}\?", _I
)
#: Whether a setting is supported, asked: "Is 4-bit quantization supported?".
_IS_IT = re.compile(r"\b(?:is|are)\s+(?:the\s+|a\s+)?$", _I)
_SUPPORTED_ASKED = re.compile(
    r"\s*(?:[\w-]+\s+){0,2}?(?:supported|possible|available|recommended|an\s+option)\b[^.!\n]{0,20}\?", _I
)


def hypothetical(line: str, start: int, end: int) -> bool:
    """Whether the setting at ``line[start:end]`` is asked about or suggested, not the run's own.

    "Can I enable gradient checkpointing?", "可以开启gradient_checkpointing吗", "it suggests me to use
    --gradient_checkpointing", "--load-8bit should help": the run did not have it (or nobody knows), so it
    is not read. A question that states the run's setting ("why does batch_size=8 OOM?") is still read:
    only asking *whether to use* it counts. The sentence around the setting is the scope.
    """
    lo = max(0, start - SENTENCE_REACH)
    starts = [m.end() for m in _SENTENCE_END.finditer(line, lo, start)]
    head = line[starts[-1] if starts else lo : start]
    # the wanted version is said right before the setting: its last words are enough (a 1 MB line of settings
    # calls this once per setting)
    if _SUGGESTS.search(head) or _WANTS.search(head[-30:]):
        return True
    hi = min(len(line), end + SENTENCE_REACH)
    stop = _SENTENCE_END.search(line, end, hi)
    tail = line[end : stop.end() if stop else hi]
    if _WOULD_HELP.match(tail):
        return True  # FastChat#2572: "--load-8bit should help but ... is not supported": advice, not the run's setting
    if _WOULD_IT.search(head[-40:]) and _HELP_ASKED.match(tail):
        return True  # "would ZeRO-3 help?", "can 8-bit Adam fix this?": a change asked about
    if _IS_IT.search(head[-20:]) and _SUPPORTED_ASKED.match(tail):
        return True  # "Is 4-bit quantization supported?"
    if _QUESTION_TAIL.search(tail) is not None and _GUESS_HEAD.match(head):
        return True  # "Maybe DeepSpeed Inference mode supports something similar?": a guess at a tool to try
    asks = _QUESTION_TAIL.search(tail) is not None and _ASKS_WHETHER.search(head) is not None
    return asks and _TO_USE.search(head) is not None and _SAYS_WHEN.search(head) is None
