"""What made the run work, said in words: "it works once I pass torch_dtype=...", "bs 改成1就可以了",
a fix's title ("Enable gradient checkpointing to prevent OOM") and a post's "Solution" section.

A setting named in such a clause is the change that fixed the run, not the failing run's own setting:
the reader keeps it apart (the ``resolved_by`` fact) instead of reading it as the run's.
"""

from __future__ import annotations

import re

from triage.ingest.clauses import CLAUSE

_I = re.IGNORECASE | re.ASCII

_FIX = re.compile(
    r"\b(?:fixe[sd]|solve[sd]|resolve[sd]|works?\s+(?:now|fine|perfectly|as\s+expected)|it\s+(?:runs(?!\s+out\b)|works|fits)|"
    r"(?:runs|trains)\s+(?:fine|perfectly|without\s+(?:oom|errors?|issues?|problems?))|no\s+longer\s+oom|(?:is|was)\s+working\s+(?:fine|well|again)|"
    r"(?:start(?:s|ed)?|began)\s+(?:to\s+work|working)|(?:has|had|have)\s+no\s+(?:problems?|issues?|oom)|"
    r"made\s+it\s+(?:fit|work|run)|(?:it|training)\s+(?:now\s+)?(?:fits|runs(?!\s+out\b)|works))\b|"
    r"就好了|(?:之后|以后)(?:就)?好了|解决了|(?<![还会])不爆了|就可以了|能跑了|可以跑了|跑通了|跑起来了|就能跑|就正常了|就没(?:有)?问题了?|就不会(?:出现|再|报|爆|oom)|"
    r"就不(?:再)?(?:oom|报错|爆显存|溢出|爆)了?|(?:才|就)(?:不会|不再|不|没有?)(?:再)?(?:oom|报错|爆显存|爆|溢出|出现oom)|(?:之后|以后|后)?(?:就)?(?:正常了|恢复正常)|"
    r"\bhelped\b|\b(?:the\s+)?(?:oom|error|problem|issue)\s+(?:is\s+gone|went\s+away|disappeared)\b|"
    # "Reducing max_new_tokens to 256 avoids the OOM"
    r"\b(?:avoids?|avoided|prevents?|prevented)\s+(?:the\s+|this\s+|an?\s+)?(?:oom|out\s+of\s+memory|error|crash)\b|"
    r"\b(?:it\s+)?(?:was|is)\s+(?:fine|ok(?:ay)?)\s*(?:again|now|then)?\s*$|"
    r"(?:才|就)(?:可以|能)(?:正常|顺利)?(?:跑|运行|训练|微调)|(?<!不)(?:可以|能)\s*(?:正常|顺利)\s*(?:跑|运行|训练|微调)|不再(?:报错|爆显存|oom)|"
    r"(?<![不没])能够\s*(?:支持)?\s*(?:正常)?\s*(?:运行|跑|训练)(?!吗|么|\?|？)|"
    r"(?:之后|以后|后)[，,]?\s*(?:就)?(?:可以|能)(?:进行|开始)?(?:正常)?(?:训练|运行|跑)|"
    # "把 quantize(4) 加上，没想到真的可用"
    r"(?:没想到|竟然|居然)?(?:真的|就|也)(?:可用|能用|可以用)(?!吗|么|\?|？)",
    _I,
)
#: Words before a setting that say it is what made the run work: "it works once I pass torch_dtype=...".
_FIX_BEFORE = re.compile(
    r"\b(?:works?|worked|fits?)\s+(?:fine\s+|now\s+|again\s+|ok\s+|well\s+)?(?:once|after|when|if|with)\b|"
    r"\b(?:runs?|ran|trains?|trained)\s+(?:(?:fine|now|again|ok|well)\s+(?:once|after|when|if|with)|(?:once|after)\s)|"
    r"\b(?:fixed|solved|resolved)\s+(?:it\s+)?(?:by|with|after)\b|\b(?:switching|changing|moving)\s+(?:it\s+)?to\b|"
    r"\b(?:does(?:n'?t|\s+not)|did(?:n'?t|\s+not))\s+(?:happen|occur|oom)\s+(?:when|with|if|after|on)\b|"
    r"\bno\s+(?:more\s+)?(?:oom|errors?|crash(?:es)?)\s+(?:when|with|if|after|once)\b|"
    r"\b(?:went\s+away|is\s+gone|disappeared)\s+(?:when|after|once|with|if)\b|"
    # "it runs fine on an A100" (but not "any ideas to run on 8 V100-32G gpus?", R1-V#89: the hardware it has)
    r"(?<!to )\b(?:works?|worked|fits?|runs?)\s+(?:fine\s+)?on\s+(?:an?\s+|the\s+|my\s+)?$|"
    r"\bcan\s+(?:only\s+)?(?:work|run|train|fit)\s+(?:only\s+)?(?:when|with|if|after|once)\b|"
    r"\b(?:runs?|ran|works?|worked|trains?|trained|fits?)\b[^,;]{0,40}?\bonly\s+(?:when|if|after|once)\s+(?:i\s+|we\s+)?"
    r"(?:set(?:ting)?|us(?:e|ing)|reduc\w+|lower\w*|chang\w+|decreas\w+)?\s*(?:the\s+)?[\w-]*$|"
    r"(?:改成|换成|改为|改用|换用)[^，,。；;]{0,4}$|"
    # the failures lasted until the change: "I used to get a lot of CUDA out-of-memory errors when generating text,
    # until I added use_cache=False" (oobabooga/textgen#28)
    r"\buntil\s+(?:i|we)\s+(?:finally\s+)?(?:added|set|used|passed|changed|switched\s+to|turned\s+(?:on|off)|enabled|"
    r"disabled|removed|lowered|reduced)\s+(?:the\s+|a\s+)?[`\w-]*$|"
    # "The key solution was to set `use_cache=False`", "the fix is to pass ..."
    r"\b(?:the\s+)?(?:key\s+|main\s+|real\s+|only\s+)?(?:solution|fix|workaround)\s+(?:was|is)\s+(?:to\s+)?"
    r"(?:set(?:ting)?|use|using|pass(?:ing)?|add(?:ing)?|enabl\w+|disabl\w+|turn\w*\s+(?:on|off))?\s*(?:the\s+)?[`\w-]*$",
    _I,
)


#: Tags a title opens with ("[trainer] [fsdp] "), and a conventional commit's scope and colon ("(fsdp): ").
_TAGS = r"^\s*(?:\[[^\]]{1,30}\]\s*)*"
_SCOPE = r"(?:\([^)]{1,30}\))?:\s*"
#: What opens a fix's title before the change: "[trainer] ", "fix: ", "perf(fsdp): ", a list marker ("1. ", "- ").
_TITLE_PREFIX = _TAGS + r"(?:(?:fix|feat|perf|chore)" + _SCOPE + r")?(?:\d{1,2}[.)]\s+|[-*]\s+)?"
#: The verbs that say what to change, as a command or its gerund ("Enable ...", "Limiting ...").
_CHANGE_VERB = (
    r"(?:enabl(?:e|ing)|us(?:e|ing)|add(?:ing)?|set(?:ting)?|turn(?:ing)?\s+on|switch(?:ing)?\s+to|apply(?:ing)?|"
    r"pass(?:ing)?|disabl(?:e|ing)|remov(?:e|ing)|drop(?:ping)?|turn(?:ing)?\s+off|lower(?:ing)?|reduc(?:e|ing)|"
    r"limit(?:ing)?|cap(?:ping)?)"
)
#: A line that opens by telling what to change ("Enable gradient checkpointing to prevent OOM", "fix: disable
#: use_cache to avoid ...", "[trainer] Set eval accumulation steps to avoid ..."), as a fix's title does.
_IMPERATIVE_HEAD = re.compile(
    _TITLE_PREFIX
    + r"(?:"
    + _CHANGE_VERB
    + r"\s+|(?:设置|开启|打开|启用|使用|加上|关闭|关掉|去掉|禁用)\s*)[^.;:!?\n。；：]{0,60}$",
    _I,
)
#: The purpose right after that setting: "... to prevent OOM", "... to avoid running out of memory", "以避免爆显存".
_FOR_MEMORY = re.compile(
    r"[^.;!?\n。；]{0,80}?(?:\bto\s+(?:prevent|avoid|fix|reduce|save|lower|cut|free|resolve|solve)\b|"
    r"(?:以|来|从而)(?:防止|避免|减少|节省|降低|解决))",
    _I,
)
#: A heading that opens the part of a post saying what fixed it: "### Solution", "**Workaround:**", "解决方法：".
FIX_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s*|\*\*)?(?:solution|proposed\s+(?:solution|fix|change)s?|the\s+fix|fix|workaround|"
    r"how\s+(?:i|we)\s+(?:fixed|solved)\s+it|解决方案|解决办法|解决方法)\s*(?:\*\*)?\s*[:：]?\s*(?:\*\*)?\s*$",
    _I,
)
#: A line that says only that the next one is the change, between the before and the after of a pasted line:
#: "model = AutoModel.from_pretrained(...).cuda()" / "改成" / "model = ....quantize(4).cuda()" (ChatGLM3#117).
CHANGED_TO_LINE = re.compile(
    r"^\s*(?:改成|改为|换成|换为|替换为|替换成|修改为|修改成|变成|变为)\s*[:：]?\s*$|"
    r"^\s*(?:i\s+)?(?:changed?|changing|replaced?|replacing)\s+(?:it|this|that)?\s*(?:to|with|into)\s*:?\s*$|"
    r"^\s*(?:to|into)\s*:\s*$",
    _I,
)
#: Any other heading, which ends that part.
HEADING = re.compile(r"^\s*(?:#{1,6}\s+\S|\*\*[^*]{1,60}\*\*\s*[:：]?\s*$)")


#: A line that opens by taking a setting away: "Disable caching via `use_cache` to avoid ...".
TAKE_AWAY = re.compile(
    _TITLE_PREFIX + r"(?:disable|remove|drop|turn\s+off)\b|^\s*(?:关闭|关掉|去掉|禁用)",
    _I,
)


#: A fix's title that says what it changes, with or without saying why: "fix(perf): set expandable_segments:True for
#: nemotron_3_nano h100 (cuda-oom on 26.04 base)" (Megatron-Bridge#3706). Only the setting right after the verb is
#: the change ("fix: enable gradient checkpointing for the 70B recipe" does not change the model).
_FIX_TITLE_HEAD = re.compile(
    _TAGS + r"fix" + _SCOPE + _CHANGE_VERB + r"\s+(?:the\s+|a\s+)?[`'\"]?$",
    _I,
)


def tells_a_fix(line: str, start: int, end: int) -> bool:
    """Whether the line tells what to change to fix it, naming this setting: "Enable gradient checkpointing to
    prevent OOM on long sequences", "fix: set expandable_segments:True for ...". Only a line that opens with the
    change: "I enabled gradient checkpointing to save memory" is the run's own setting."""
    head = line[:start]
    if _FIX_TITLE_HEAD.match(head) is not None:
        return True
    return _IMPERATIVE_HEAD.match(head) is not None and _FOR_MEMORY.match(line, end) is not None


#: A model named right after saying it worked: "I was able to fine-tune 7B ...", "I can use deepseek-vl-7b",
#: "我用7B可以跑". Only the model: the GPU in the same clause is usually the same one that later ran out.
WORKED_MODEL = re.compile(
    r"(?:\b(?:was|were|am|are)\s+able\s+to|\b(?:i|we)\s+(?:can|could)|\bsuccessfully)\s+(?:successfully\s+)?"
    r"(?:fine-?tun(?:e|ed)|finetun(?:e|ed)|train(?:ed)?|r[au]n|load(?:ed)?|use[d]?|fit)\s+(?:(?:a|an|the|my|this)\s+)?$",
    _I,
)

#: The rest of a clause saying the run failed: "换成 DPO 就爆显存了", "switching to zero3 still OOMs".
FAILED = re.compile(
    r"爆显存|显存(?:不足|不够|溢出|爆)|爆了|(?:就|会|又|直接)爆|报错|溢出|\boom|out\s+of\s+memory|"
    r"\b(?:still\s+)?(?:fails?|crash(?:es|ed)?|dies)\b",
    _I,
)

#: A next clause that says the change did not help: "改成 zero3，还是 OOM", "switched to zero3, still OOM".
_STILL_FAILED = re.compile(r"\s*(?:但是?|可是|然而|but\s+)?(?:还是|仍然|依然|也还是|照样|依旧|\bstill\b|\bagain\b)", _I)

#: A next clause that says another phase of the same run fails: "Training runs fine with batch_size=8 but it OOMs
#: during evaluation". The setting is the run's, and what differs is the phase, not the setting.
_OTHER_PHASE_FAILS = re.compile(
    r"\s*(?:it\s+|then\s+|the\s+run\s+)?(?:ooms?|runs?\s+out\s+of\s+memory|crash(?:es)?|fails?|dies)\b[^.;!?\n]{0,30}?"
    r"\b(?:during|at|in|on|when|while)\s+(?:the\s+|my\s+)?(?:eval\w*|validat\w*|predict\w*|generat\w*|inference|sav\w*|test\w*)|"
    r"\s*(?:the\s+)?(?:eval\w*|validation|prediction|generation|inference|saving)\s+(?:then\s+|still\s+)?"
    r"(?:ooms?|runs?\s+out|crash\w*|fails?)\b",
    _I,
)

#: A clause that starts by saying the run worked, right after a setting's clause.
_FIX_NEXT = re.compile(
    r"\s*(?:then\s+|and\s+)?(?:(?:it|i|we|training|the\s+run|everything|train(?:ing)?\s+step\s*\d+)\s+)?"
    r"(?:(?:can|could)\s+(?:now\s+)?(?:run|train|work|fit)\b|(?:runs?|works?|trains?|fits?)\s+(?:fine|well|ok|perfectly|normally)\b|"
    r"nothing\s+happen|(?:has|had|there\s+is)\s+no\s+(?:problem|issue|oom)|(?:is|was)\s+working\s+(?:fine|well|again)|"
    r"(?:训练|模型)?(?:就|才|也)?(?:可以|能)(?:进行|开始)?(?:正常)?(?:跑|运行|训练)|(?:就|也)?没(?:有)?(?:问题|报错|出现(?:这个|这种)?(?:问题|情况)|oom|爆)|"
    r"(?:没想到|竟然|居然)?(?:真的|就|也)(?:可用|能用|可以用)(?!吗|么|\?|？))",
    _I,
)

#: A short aside in brackets right after a setting, which does not end its clause.
_ASIDE = re.compile(r"^\s*[(（][^()（）]{0,40}[)）]")

#: How far a clause reaches from a setting, each way, when looking for "it works" / "works once".
CLAUSE_REACH = 160


#: Right after a change, that it did not help: "reduced the batch size but still OOM", "调小batch_size还是爆".
_IN_VAIN_AFTER = re.compile(
    r"[^.;!?。；！？\n]{0,60}?(?:\bstill\b(?!\s+(?:works?|fits?|runs?\s+fine|trains?\s+fine))|\bpersists?\b|\b(?:did(?:n'?t|\s+not)|does(?:n'?t|\s+not)|won'?t)\s+"
    r"(?:help|work|solve|fix|change)|\bno\s+(?:luck|effect|difference|change|improvement)\b|\bwithout\s+(?:success|luck)\b|"
    r"\bsame\s+(?:error|oom|issue|problem|result)\b|\bnothing\s+(?:works?|worked|helps?|helped)\b|"
    r"\bnone\s+of\s+(?:them|these|those|it)\s+(?:works?|worked|helps?|helped)\b|"
    r"还是|依然|仍然|依旧|照样|也不行|都不行|没用|没有用|无效|没效果|没有效果|不管用|也会?(?:爆|oom|报错|溢出|显存不足|显存不够)|(?:也|都)(?:是|报|出现)?(?:相同|一样|同样)的(?:错误|报错|问题|oom))",
    _I,
)
#: Right before a change, that it was tried while still failing: "I tried reducing", "even after lowering", "尝试调小".
_TRIED_BEFORE = re.compile(
    r"\b(?:tried|trying|attempted|even\s+after|even\s+when|despite)\s+(?:to\s+)?(?:\w+\s+){0,2}$|(?:尝试(?:了)?|试过|试了|即使|就算)\s*$|"
    # the failure, then what did not prevent it: "Cuda OOM even with batch size 1 and lower seq length"
    r"(?:\boom(?:s|ed)?|out\s+of\s+memory|\bfail(?:s|ed)?|\bcrash\w*)\s+even\s+(?:with|after|when|using)\b[^.;!?。；！？\n]{0,40}$",
    _I,
)


#: A question whether something works, before the setting: "does zero3 work with qlora?".
_ASKS_IF_WORKS = re.compile(
    r"\b(?:does|do|did|will|would|can|could|is|are)\s+(?:\S+\s+){0,4}?(?:works?|fits?|runs?)\s+(?:\w+\s+)?(?:with|on|in|if|when)\s+"
    r"(?:\S+\s+){0,2}$",
    _I,
)


def tried_in_vain(line: str, start: int, end: int) -> bool:
    """Whether the change at ``line[start:end]`` was made and the run still failed ("tried reducing the batch size",
    "调小 batch_size 还是爆"): a cause that this change undoes is then less likely."""
    if _TRIED_BEFORE.search(line[max(0, start - 40) : start]):
        return True
    return _IN_VAIN_AFTER.match(line, end) is not None


def describes_a_fix(line: str, end: int, start: int | None = None) -> bool:
    """Whether the rest of the clause after ``line[:end]`` says this setting fixed it ("bs 2 it runs").

    What made the run work is not the failing run's setting, so it does not become a fact.
    """
    # a clause is short: look at most CLAUSE_REACH characters each way, so a long line stays linear
    rest = _ASIDE.sub(" ", line[end : end + CLAUSE_REACH])  # "1xA100 (80GB), it works fine"
    cut = CLAUSE.search(rest)
    if _FIX.search(rest[: cut.start()] if cut else rest) is not None:
        return True
    if cut is not None and rest[cut.start() : cut.end()] in (",", "，") and _FIX_NEXT.match(rest, cut.end()):
        return True  # "if I use an A100, it works fine": the next clause says so
    stop = end if start is None else start
    before = line[max(0, stop - CLAUSE_REACH) : stop]
    starts = [m.end() for m in CLAUSE.finditer(before)]
    clause = before[starts[-1] if starts else 0 :]
    if _FIX_BEFORE.search(clause) is None:
        return False
    if _ASKS_IF_WORKS.search(clause) and cut is not None and rest[cut.start() : cut.end()] in ("?", "？"):
        return False  # "does zero3 work with qlora?": asked, not what made the run work
    # "换成 DPO 就爆显存了", "改成 zero3，还是 OOM": what was switched to is what failed
    if FAILED.search(rest[: cut.start()] if cut else rest):
        return False
    if cut is not None and _OTHER_PHASE_FAILS.match(rest, cut.end()):
        return False  # "training runs fine with batch_size=8 but it OOMs during evaluation"
    return cut is None or _STILL_FAILED.match(rest, cut.end()) is None
