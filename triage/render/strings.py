"""Fixed interface strings in both languages."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "causes": {"en": "Likely causes", "zh": "可能的原因"},
    "evidence": {"en": "evidence", "zh": "依据"},
    "remedies": {"en": "What to change", "zh": "建议的修改"},
    "myths": {"en": "Corrections to what you may have read", "zh": "需要纠正的说法"},
    "questions": {"en": "Questions that would narrow it down", "zh": "可以进一步缩小范围的问题"},
    "facts": {"en": "Facts used", "zh": "使用的事实"},
    "none_fired": {
        "en": "No cause is more likely than not yet; tell me more (see the questions below).",
        "zh": "目前还没有哪个原因的可能性超过一半；请补充更多信息（见下面的问题）。",
    },
    "for": {"en": "for", "zh": "针对"},
    "blocked": {"en": "not applicable", "zh": "不适用"},
    "maybe": {"en": "check first", "zh": "需先确认"},
    "cost": {"en": "cost", "zh": "代价"},
    "speed": {"en": "speed", "zh": "速度"},
    "quality": {"en": "quality", "zh": "质量"},
    "verdict": {"en": "verdict", "zh": "结论"},
    "claim": {"en": "claim", "zh": "说法"},
    "ruled_out": {"en": "ruled out", "zh": "已排除"},
    "why_not": {"en": "why not", "zh": "为何排除"},
    "no_facts": {"en": "none (only the text was used)", "zh": "无（仅使用了文本）"},
    "false": {"en": "false", "zh": "错误"},
    "partly": {"en": "partly true", "zh": "部分正确"},
    "unverifiable": {"en": "unverifiable", "zh": "无法验证"},
    "none": {"en": "none", "zh": "无"},
    "low": {"en": "low", "zh": "低"},
    "medium": {"en": "medium", "zh": "中"},
    "high": {"en": "high", "zh": "高"},
    "bits": {"en": "bits", "zh": "比特"},
    "references": {"en": "References", "zh": "参考资料"},
    "steps": {"en": "Steps", "zh": "步骤"},
    "conflict": {"en": "inputs disagree", "zh": "输入之间有矛盾"},
    "memory": {"en": "Estimated memory", "zh": "显存估算"},
    "no_estimate": {"en": "no estimate yet", "zh": "暂时无法估算"},
    "fits": {"en": "fits", "zh": "放得下"},
    "does_not_fit": {"en": "does not fit", "zh": "放不下"},
    "expected": {"en": "expected", "zh": "预计"},
    "plan": {"en": "cheapest plan that fits", "zh": "代价最小的可行方案"},
    "no_plan": {"en": "no combination of the suggested remedies fits", "zh": "建议的修改组合后仍然放不下"},
    "assumed": {"en": "assumed", "zh": "假设"},
    "saves": {"en": "saves", "zh": "节省"},
    "saves_nothing": {"en": "saves ~0 on this run", "zh": "对本次训练几乎无节省"},
    "failed_alloc": {"en": "the failed allocation of", "zh": "失败的分配"},
    "unknown_keys": {"en": "config keys not understood", "zh": "未识别的配置项"},
}


def t(key: str, lang: str) -> str:
    """The string ``key`` in ``lang`` (English when missing)."""
    entry = STRINGS[key]
    return entry.get(lang, entry["en"])
