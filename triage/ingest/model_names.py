"""The model a line names and its size: Hub ids ("Qwen/Qwen2.5-7B"), names with a size ("llama-2-13b",
"Mixtral-8x7B"), written apart ("llama 65b"), glued ("qwen7b", "Qwen2.5vl32B"), with an underscore
("internlm2_7b_chat"), in Chinese ("百川13B"), or families released in one size ("chatglm2")."""

from __future__ import annotations

import re

from triage.ingest.fixes import WORKED_MODEL, describes_a_fix

_I = re.IGNORECASE | re.ASCII

MOE_SIZES = {(8, 7): 46.7, (8, 22): 141.0, (8, 3): 13.0}

#: A mixture-of-experts model's name: a family that is MoE in every size (Mixtral, OLMoE, DBRX, gpt-oss,
#: DeepSeek-V2/V3 and R1 but not its distilled dense models, GLM-4.5 to 4.7, Llama 4, Kimi K2), "MoE" ending a word
#: ("Qwen1.5-MoE-A2.7B", "glm4_moe", "JetMoE"), experts times size ("8x7B") or active parameters after the total
#: ("Qwen3-30B-A3B", "Qwen2-57B-A14B").
MOE_WORDS = (
    r"(?<![a-z0-9])(?:mixtral|olmoe|dbrx|jamba|grok-?1|gpt-?oss|arctic|kimi-?k2|minimax-?m[12]|switch-(?:base|large)|"
    r"deepseek-?(?:coder-?)?(?:v[23]|r1)(?![\w.-]*distill)|glm-?4\.[5-7]|llama-?4-?(?:scout|maverick)|phi-?3\.5-?moe)|"
    r"moe(?![a-z])|(?<![\w.])\d+x\d+(?:\.\d+)?b(?![a-z])|(?<![\d.])\d+(?:\.\d+)?b-a\d+(?:\.\d+)?b(?![a-z])"
)
MOE_NAME = re.compile(MOE_WORDS, re.IGNORECASE)


def is_moe(name: str) -> bool:
    """Whether a model's name says it is a mixture of experts (:data:`MOE_NAME`)."""
    return MOE_NAME.search(name) is not None


_MODEL_FAMILIES = (
    r"llama|qwen|mistral|mixtral|gemma|phi|baichuan|chatglm|glm|yi|deepseek|internlm|falcon|bloom|"
    r"opt|gpt2|gpt-j|gpt-neox|pythia|olmo|tinyllama|codellama|vicuna|starcoder|minicpm|smollm|internvl|llava|mpt|bloomz|"
    r"stablelm|nemotron|aquila|xverse"
)
#: A Hub id ends where the token ends: "torch/optim/adamw.py" is a source path, not a model.
_HUB_ID = re.compile(
    r"(?<![\w/.-])([\w.-]+/[\w.-]*(?:" + _MODEL_FAMILIES + r")(?![a-z])[\w.-]*+)(?![\w/-])", _I
)  # the family ends its word: "param/optimizer" is not an OPT model; the tail never gives back a file's
# extension, so a path is seen whole and :data:`_FILE_PATH` turns it away ("scripts/qwen_finetune.py")
_MODEL_NAME = re.compile(
    r"(?<![\w/.-])((?:meta-)?(?:" + _MODEL_FAMILIES + r")[\w.]*(?:-[\w.]+)*?-\d+(?:\.\d+)?[bBmM](?:-[\w.]+)*)(?![\w.])",
    _I,
)
#: A script's or a config file's path, which names no model even when a family is in it.
_FILE_PATH = re.compile(r"\.(?:sh|py|ya?ml|json|txt|md|ipynb|git)$", re.IGNORECASE)
#: A family and a size written apart: "llama 65b", "bloom 3B", "Qwen2 72B"; the version too: "llama 3.1 8B",
#: "qwen 2.5 7b" (a number that a space, not a B, follows is the version).
_MODEL_SPACED = re.compile(
    r"(?<![\w/.-])("
    + _MODEL_FAMILIES
    + r")(\s?\d+(?:\.\d+)?(?=\s)|[\d.]*(?:-[a-z]+)?)\s(\d+(?:\.\d+)?)\s?[bB](?![\w.])",
    _I,
)
#: Chinese names of model families: "百川13B", "千问7B".
_ZH_FAMILIES = {
    "百川": "baichuan",
    "千问": "qwen",
    "通义千问": "qwen",
    "书生": "internlm",
    "智谱": "chatglm",
    "羊驼": "llama",
}
_MODEL_ZH = re.compile(
    r"(" + "|".join(sorted(_ZH_FAMILIES, key=len, reverse=True)) + r")\s*(\d+(?:\.\d+)?)\s*[bB](?![\w.])", re.ASCII
)
_SIZE_IN_NAME = re.compile(r"(?<![\d.xX×])(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])")
_MOE_IN_NAME = re.compile(r"(?<![\d.])(\d+)\s*[xX×]\s*(\d+)\s*[bB](?![a-zA-Z])")
#: A family and its size with nothing between: "llama65b", "qwen7b", "baichuan13b"; with a version and a
#: variant before the size: "Qwen2.5vl32B", "qwen2coder7b".
_MODEL_GLUED = re.compile(
    r"(?<![\w/.-])(llama|qwen|baichuan|vicuna|bloomz?|falcon|internlm|yi|mistral)"
    r"(\d+(?:\.\d+)?(?:vl|coder|math|audio))?(\d+(?:\.\d+)?)[bB](?![\w.])",
    _I,
)
#: A family and its size joined by an underscore, as scripts and configs name them: "internlm2_7b_chat",
#: "examples/train_full/qwen2_7b_full_sft_ds3.yaml", "torchtune.models.llama2.llama2_7b", "llama2_7b.sh".
_MODEL_UNDERSCORED = re.compile(
    r"(?<![A-Za-z0-9])(" + _MODEL_FAMILIES + r")(\d*(?:\.\d+)?)_(\d+(?:\.\d+)?)[bB](?![A-Za-z0-9])", _I
)
#: Families released in one size only, named without it: "chatglm2就爆显存" (ChatGLM-6B, ChatGLM2-6B, ChatGLM3-6B).
_ONE_SIZE_FAMILIES = {"chatglm": ("chatglm-6b", 6.0)}
_SIZE_OF_FAMILY = re.compile(r"(?<![\w/.-])(chatglm[23]?)(?![\w.]|-\d|\s*-?\s*\d+(?:\.\d+)?\s*[bB]\b)", _I)


#: Vision-language models whose names carry no size, with the total their model cards state:
#: MiniCPM-Llama3-V 2.5 and MiniCPM-V 2.6 "a total of 8B parameters"
#: (https://huggingface.co/openbmb/MiniCPM-Llama3-V-2_5, https://github.com/OpenBMB/MiniCPM-V),
#: CogVLM-17B "10 billion vision parameters and 7 billion language parameters" and CogAgent-18B "11 billion
#: visual parameters and 7 billion language parameters" (https://github.com/THUDM/CogAgent).
_SIZES_BY_NAME: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(r"minicpm[-_ ]?(?:llama3[-_ ]?)?v[-_ ]?v?[-_ ]?2[-._ ]?5(?!\d)", _I), "minicpm-llama3-v-2.5", 8.0),
    (re.compile(r"minicpm[-_ ]?v[-_ ]?v?[-_ ]?2[-._ ]?6(?!\d)", _I), "minicpm-v-2.6", 8.0),
    (re.compile(r"(?<![\w.-])cogvlm(?![-_]?\d)", _I), "cogvlm-17b", 17.0),  # not CogVLM2, not "CogVLM-17B"
    (re.compile(r"(?<![\w.-])cogagent(?![-_]?\d)", _I), "cogagent-18b", 18.0),
    # StarCoder and StarCoderBase "15.5B parameters" (https://huggingface.co/spaces/bigcode/README); not StarCoder2,
    # not the StarCoderBase-1B/3B/7B that carry their size
    (re.compile(r"(?<![\w.-])starcoder(?:base|plus)?(?![-_]?\d|\w)", _I), "starcoder-15.5b", 15.5),
    # MOSS: "moss-moon系列模型具有160亿参数" (https://github.com/OpenMOSS/MOSS, README)
    (re.compile(r"(?<![\w.-])moss[-_]moon[-_]?003", _I), "moss-moon-003-16b", 16.0),
    # DeepSeek-VL2 mixtures of experts, total parameters (the model cards' activated 1.0B / 2.8B / 4.5B are not
    # what the weights take): Tiny 3.37B, Small 16.1B, DeepSeek-VL2 27.5B
    # (https://huggingface.co/deepseek-ai/deepseek-vl2-tiny, .../deepseek-vl2-small, .../deepseek-vl2)
    (re.compile(r"(?<![\w.-])deepseek[-_]?vl2[-_]tiny(?![\w.])", _I), "deepseek-vl2-tiny", 3.37),
    (re.compile(r"(?<![\w.-])deepseek[-_]?vl2[-_]small(?![\w.])", _I), "deepseek-vl2-small", 16.1),
    (re.compile(r"(?<![\w.-])deepseek[-_]?vl2(?![-_]?(?:tiny|small)|[\w.])", _I), "deepseek-vl2", 27.5),
    # GLM-4.5 mixtures of experts, total parameters: "GLM-4.5 has 355 billion total parameters ..., while GLM-4.5-Air
    # adopts a more compact design with 106 billion total parameters" (https://huggingface.co/zai-org/GLM-4.5-Air);
    # GLM-4.5V is built on GLM-4.5-Air (https://huggingface.co/zai-org/GLM-4.5V; GLM-V#158: "GLM-4.5V is 106B")
    (re.compile(r"(?<![\w.-])glm[-_]?4\.5[-_]?(?:air|v)(?![a-z])", _I), "glm-4.5-air-106b", 106.0),
    (
        re.compile(r"(?<![\w.-])glm[-_]?4\.5(?![-_]?(?:air|v)(?![a-z])|\d|[-_]?\d+(?:\.\d+)?b\b)", _I),
        "glm-4.5-355b",
        355.0,
    ),
)


def _size_by_name(text: str) -> tuple[re.Match[str], str, float] | None:
    """The first model in ``text`` whose size its model card states though its name does not."""
    for pattern, name, size in _SIZES_BY_NAME:
        m = pattern.search(text)
        if m is not None:
            return m, name, size
    return None


def model_in_line(line: str) -> tuple[list[tuple[str, object]], str, bool]:
    """The model a line names, what it said, and whether the line says that model is what worked.

    "I was able to fine-tune 7B ... but ran into OOM when fine-tuning 13B": the 7B is not the run's.
    """
    found = [
        m
        for m in (_HUB_ID.search(line), _MODEL_NAME.search(line))
        if m is not None and not _FILE_PATH.search(m.group(1))  # "bash finetune/finetune_visualglm.sh"
    ]
    if found:
        m = found[0]
        name = m.group(1).rstrip(".,;:")
        pairs: list[tuple[str, object]] = [("model_name", name)]
        size = _name_size(name.split("/")[-1])
        if size is None:
            named = _size_by_name(name)
            size = named[2] if named is not None else None
        if size is not None:
            pairs.append(("model_params_b", size))
        return pairs, name, _worked(line, m.start(), m.end())
    spaced = _MODEL_SPACED.search(line)
    if spaced is not None:
        name = f"{spaced.group(1)}{spaced.group(2).strip()}-{spaced.group(3)}b"
        return (
            [("model_name", name), ("model_params_b", float(spaced.group(3)))],
            name,
            _worked(line, spaced.start(), spaced.end()),
        )
    zh = _MODEL_ZH.search(line)
    if zh is not None:
        name = f"{_ZH_FAMILIES[zh.group(1)]}-{zh.group(2)}b"
        return [("model_name", name), ("model_params_b", float(zh.group(2)))], name, _worked(line, zh.start(), zh.end())
    glued = _MODEL_GLUED.search(line)
    if glued is not None:
        family, variant, billions = glued.groups()
        name = f"{family.lower()}{(variant or '').lower()}-{billions}b"
        return (
            [("model_name", name), ("model_params_b", float(billions))],
            name,
            _worked(line, glued.start(), glued.end()),
        )
    underscored = _MODEL_UNDERSCORED.search(line)
    if underscored is not None:
        family, version, billions = underscored.groups()
        name = f"{family.lower()}{version}-{billions}b"
        return (
            [("model_name", name), ("model_params_b", float(billions))],
            underscored.group(0),
            _worked(line, underscored.start(), underscored.end()),
        )
    named = _size_by_name(line)
    if named is not None:
        m, name, size = named
        return [("model_name", name), ("model_params_b", size)], m.group(0), _worked(line, m.start(), m.end())
    bare = _SIZE_OF_FAMILY.search(line)
    if bare is not None:
        family = bare.group(1).lower()
        _, size = _ONE_SIZE_FAMILIES[family.rstrip("23")]
        return (
            [("model_name", family), ("model_params_b", size)],
            bare.group(0),
            _worked(line, bare.start(), bare.end()),
        )
    return [], "", False


def _worked(line: str, start: int, end: int) -> bool:
    """Whether the model at ``line[start:end]`` is one the text says worked (not the failing run's)."""
    return WORKED_MODEL.search(line[max(0, start - 48) : start]) is not None or describes_a_fix(line, end, start)


def worked_size(m: re.Match[str]) -> bool:
    """Whether a size ("7B", or the 7b of "deepseek-vl-7b") belongs to a model the text says worked."""
    start = m.start()
    while start > 0 and (
        m.string[start - 1].isascii() and (m.string[start - 1].isalnum() or m.string[start - 1] in "-_./")
    ):
        start -= 1
    return WORKED_MODEL.search(m.string[max(0, start - 48) : start]) is not None


def _name_size(name: str) -> float | None:
    """Parameters in billions a model name says: "Qwen2.5-7B" 7, "Mixtral-8x7B" 46.7 (experts share layers)."""
    moe = _MOE_IN_NAME.search(name)
    if moe is not None:
        return MOE_SIZES.get((int(moe.group(1)), int(moe.group(2))))
    size = _SIZE_IN_NAME.search(name)
    return float(size.group(1)) if size else None
