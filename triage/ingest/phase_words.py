# ruff: noqa: E501  (bilingual pattern tables: CJK characters count double towards the line length)
"""The phase of the run said in words, English and Chinese: "OOM while loading the model", "评估时爆显存",
"during predict()", "merge_and_unload 的时候显存不够": the readings in the order a line names them
(:func:`phases_in_order`), whether loading is what failed rather than a step that went fine before it
(:func:`fails_while_loading`), and the Chinese "is X supported?" question whose phase is not the run's
(:data:`ASKS_IF_SUPPORTED`, blanked out by the reader before it looks for a phase).

Phases read from a traceback or a log are :mod:`triage.ingest.phase`'s job.
"""

from __future__ import annotations

import re

from triage.ingest.fixes import FAILED

_I = re.IGNORECASE | re.ASCII

#: Up to N characters of one sentence that name no other phase and do not say it went fine, for the
#: Chinese "<phase> ... <ran out>" readings ("推理长视频（>5min）总是报OOM", "微调13B 模型，显存爆了").
_ZH_GAP = r"(?:(?!推理|生成|评估|评测|验证|训|微调|sft|加载|保存|合并|导出|没问题|没有问题|正常|可以|完|后|前)[^。；;\n]){0,%d}?"
#: The card's memory going over in words that do not say 显存 ran out: "训练超显存", the GPU's 内存 overflowing ("报gpu内存
#: 溢出", GPT2-Chinese#96; "显卡内存不足"). The text reader takes them as the card's OOM too.
ZH_CARD_OVERFLOW = r"超出?显存|(?:gpu|显卡)\s*(?:的)?\s*内存\s*(?:不足|不够|溢出|爆)"
#: The Chinese ways to say the card ran out, with the common typo 现存 for 显存.
_ZH_RAN_OUT = (
    r"(?:oom|out\s*of\s*memory|爆显存|爆现存|(?:显存|现存)(?:不足|不够|溢出|爆|炸|超)|显存溢出|"
    + ZH_CARD_OVERFLOW
    + r")"
)

#: The rest of the sentence says it failed: what a step named without "during" or "while" needs to be the failing one.
_FAILS_LATER = r"(?=[^.\n]{0,160}?(?:\boom|out\s+of\s+memory|outofmemory|\bfail|insufficient|not\s+enough|\bcrash|\bkilled\b|爆|不足|不够))"

_PHASES = (
    (
        "evaluation",
        r"\b(?:during|while|when|at|in|only in)\s+(?:the\s+|my\s+)?(?:eval(?:uation)?|evaluating|validation|validating|"
        r"prediction|predicting|testing|test\s+time)\b|"
        # the phase as the subject, a phrase between: "evaluation at the end of each epoch OOMs", "validation with a
        # batch size of 64 fails"
        r"\b(?:evaluation|validation|eval)\s+(?:at|in|on|of|for|after|with)\s+(?:[\w-]+\s+){0,5}?"
        r"(?:ooms?|oomed|runs?\s+out\s+of\s+(?:gpu\s+)?memory|crash(?:es|ed)?|fails?|failed|dies|died)\b|"
        # "Trainer predict method throws out of memory" (transformers#30052)
        r"\bpredict(?:ion)?\s+(?:method|function|loop|step)\s+(?:\w+\s+){0,2}(?:out\s+of\s+memory|oom|error)|\b(?:validation|evaluation|eval)\s+(?:loop|step|phase|stage)\b|"
        r"\bduring\s+(?:trainer\.)?(?:predict|evaluate)\(\)|\bdo_predict\b|"
        r"\b(?:as soon as|when|once|after)\s+(?:the\s+)?(?:evaluation|eval|validation)\s+(?:would\s+|will\s+|did\s+)?"
        r"(?:starts?|begins?|kicks? in|runs?|started|began)\b|"
        # the trainer as the subject: "when it runs evaluation", "once the trainer starts the validation"
        r"\b(?:when|while|once|as\s+soon\s+as|whenever)\s+(?:it|the\s+trainer|trainer)\s+(?:runs?|starts?|does|begins?|reaches)\s+"
        r"(?:the\s+|an?\s+)?(?:evaluation|eval|validation)\b|"
        r"\b(?:crash(?:es|ed|ing)?|fail(?:s|ed|ing)?|ooms?|dies|died)\s+(?:on|at)\s+"
        r"(?:the\s+)?(?:eval(?:uation)?|validation)\b|"
        r"开始(?:评估|验证|eval)|(?:评估|验证)一开始|一(?:评估|验证|eval|做评估|跑评估)就|"
        r"\bpredict\s*(?:的)?\s*(?:时候|时|阶段)|预测(?:时|的时候|阶段)|"
        r"评估时|评估阶段|评估的时候|验证时|验证阶段|验证的时候|eval\s*的?时候|评测时|"
        r"(?:一|每)到\s*eval|到\s*eval_?steps?|eval_?steps?\s*(?:的)?(?:时候|时)|"
        r"\b(?:zero|few)[- ]shot\s+eval\w*|\brunning\s+(?:the\s+|an?\s+)?(?:[\w-]+\s+){0,3}evaluation\b|"
        r"\bevaluation_loop\b|\btrainer\.(?:evaluate|predict)\b|\bpredict\(\)|(?:做|跑|进行)?(?:模型)?(?:的)?评测|(?:做|跑|进行)评估|"
        # an evaluation tool's command, or a benchmark named before "eval": "opencompass run ...", "when MMLU eval"
        r"(?<![\w/-])(?:opencompass|evalscope)\s+(?:run\s+)?(?:--|\w+\.py)|"
        r"\b(?:when|while|during)\s+(?:running\s+)?(?:the\s+)?[A-Z][\w-]*\s+eval(?:uation|uating)?\b|"
        # "trying to evaluate `sarvam-1` model on MMLU dataset", "进行大规模数据evaluation"
        r"\b(?:trying|tried|try|attempting)\s+to\s+evaluate\b|(?:进行|做|跑)[^，。,；;]{0,10}(?:evaluation|评估|评测)|"
        # the phase as the subject of the failure: "Evaluation OOMs", "evaluate() runs out of GPU memory", "一到验证就爆显存"
        r"\b(?:evaluation|validation|eval|evaluate\(\))\s+(?:also\s+|always\s+|still\s+|then\s+)?(?:ooms?|oomed|crash(?:es|ed)?|"
        r"fails?|runs?\s+out\s+of\s+(?:gpu\s+|cuda\s+)?memory)\b|一到\s*(?:评估|验证|eval)",
    ),
    (
        "generation",
        r"\b(?:during|while|when|in|for|at)\s+(?:the\s+)?(?:generation|generating|sampling|inference|decoding)\b|"
        # "generation OOMs on long prompts", "it OOMs every time it starts generating completions"
        # with a phrase between: "generation at the end OOMs", "sampling with 16 beams crashes"
        r"\b(?:generation|sampling|decoding)\s+(?:(?:at|in|on|of|for|after|with)\s+(?:\w+\s+){0,3}?)?"
        r"(?:also\s+|always\s+|still\s+)?(?:ooms?|oomed|crash(?:es|ed)?|fails?|"
        r"runs?\s+out\s+of\s+(?:gpu\s+|cuda\s+)?memory)\b|\b(?:ooms?|crash(?:es)?|dies|runs?\s+out\s+of\s+(?:gpu\s+)?memory)\s+"
        r"(?:\w+\s+)?(?:when|while|whenever|every\s+time|as\s+soon\s+as)\s+(?:it\s+|i\s+|we\s+)?(?:starts?\s+|begins?\s+)?generating\b|"
        r"\b(?:oom|out of memory|crash(?:es)?)\s+on\s+inference\b|"
        r"\binference\s+(?:(?:at|in|on|of|for|after|with)\s+(?:\w+\s+){0,3}?)?"
        r"(?:runs?\s+out\s+of\s+(?:gpu\s+)?memory|ooms?|crash(?:es|ed)?|fails?)\b|"
        r"\b(?:run(?:ning)?|do(?:ing)?|make|test(?:ing)?)\s+(?:cli\s+|batch(?:ed)?\s+|multi-gpu\s+)?inference\b|"
        r"\binference\s+(?:only|time|mode|script)\b|model\.generate|\bgenerate\(\)|\bmodel\.chat\b|"
        # "在inference的时候显存爆炸", "when I increased the beam size" (a generation script's name is not the phase: it
        # loads the model first)
        r"inference\s*(?:的时候|时|阶段)|(?:在|做|进行|跑)\s*inference|\b(?:increas\w*|larger|bigger|higher)\s+(?:the\s+)?beam\s*(?:size|width)\b|"
        r"\bbeam\s+search\b|(?:跑|做|进行|测试)生成|(?:提问|问问题)" + _ZH_GAP % 12 + _ZH_RAN_OUT + r"|"
        r"\bpredict_with_generate\b|生成时|生成的时候|推理时|推理的时候|(?:在|做|进行|跑|测试的?是|用于|部署)\s*推理|"
        r"推理(?:服务|阶段|过程|中)|每次对话|多轮对话|连续对话|对话(?:时|中|的时候)|(?:随着|每次)(?:提问|问答|对话)|"
        # the answer being written: "提问后和输出回答时显存在29g", "输出答案时占用33G"
        r"(?:输出|生成)(?:回答|答案)(?:时|的时候)|回答(?:问题)?(?:时|的时候)|"
        r"生成[^，。,；;]{0,8}(?:时|的时候|过程中)|推理了?\s*\d+\s*(?:张|条|个|次|轮)|推理(?:了)?(?:多|几|很多|好几)次|推理\s*\d+\s*[kK万]?\s*(?:的)?\s*(?:上下文|长度|tokens?|字)|(?:单图|批量|batch\s*)推理|"
        r"(?:开始|一)聊天|聊天(?:时|的时候|过程中)|"
        # "视频推理失败", "推理就会报显存溢出", "推理显存暴涨", "随着推理次数增加", "推理baichuan-13b"; not "推理没有问题"
        r"推理(?:就|会|时|也)?\s*(?:会)?\s*(?:报|出现)?\s*(?:oom|爆显存|显存(?:不足|不够|溢出|暴涨|不断|持续|一直|越用越)|失败|不出来|溢出)|"
        r"(?:视频|图片|图像|单句|单条|批量|多轮)推理|推理次数|(?:随着|每次)推理|推理\s*(?:一个|一段|一张|一条)|推理\s*(?=[a-z][\w.-]*\d)|"
        # "用infer.sh脚本推理长视频（>5min）总是报OOM", "跑aquila-7B推理的示例代码显示out of memory"; "问第二个就出现"
        r"推理"
        + _ZH_GAP % 16
        + _ZH_RAN_OUT
        + r"|问(?:第[二两三四五]|两|几)个(?:问题)?\s*[，,]?\s*就|(?:随着|每次)(?:我|用户)?的?(?:提问|问答|对话|聊天)|"
        # a chat that goes on: "during a conversation", "with each successive prompt", "chatted for a bit", "in chat mode"
        r"\b(?:during|in)\s+(?:a|the)\s+(?:conversation|chat)\b|\bchat(?:ted|ting)\s+(?:for\s+a\s+(?:bit|while|few)|with\s+(?:the\s+|my\s+)?(?:bot|model|llm|character|it)\b)|"
        r"\b(?:each|every)\s+(?:successive|new|subsequent)\s+(?:prompt|message|reply|turn|question)\b|\bin\s+chat\s+mode\b|"
        r"\bchat\s+script\b|\bafter\s+(?:my|the)\s+(?:story|conversation|chat|context)\s+(?:gets|got|grows|grew)\s+longer\b|"
        # an RL trainer's rollouts are generation: "large rollout.n encounter OOM", "OOM during rollout"
        r"\b(?:during|in|at)\s+(?:the\s+)?rollouts?\b|\brollout\s+(?:phase|stage)\b|\brollout\.n\b|rollout\s*(?:阶段|的时候|时|过程中)|"
        # rounds of a chat: "连续体验十几轮问答后", "随着问答轮数的增加", "after 10 rounds of conversation", "multi-turn chat"
        # (a count of at most four digits, not a run of them: "\d+" before "轮" would retry every digit of a long run)
        r"(?:(?<!\d)\d{1,4}|几|十几|数|多|若干)\s*轮(?:的)?(?:问答|对话|聊天)|(?:问答|对话|聊天)(?:的)?轮数|"
        # the count after the verb: "对话几轮后 OOM", "聊了十几轮就爆显存"
        r"(?:问答|对话|聊天|聊|问)了?\s*(?:(?<!\d)\d{1,4}|几|十几|数|多|若干)\s*轮|"
        r"\b(?:after|over)\s+(?:\d{1,4}|a few|several|many|a dozen)\s+(?:rounds|turns)\s+of\s+(?:chat|conversation|dialog(?:ue)?|q&a|questions)\b|"
        r"\bmulti-?turn\s+(?:chat|conversation|dialog(?:ue)?)s?\b",
    ),
    (
        "merging",
        r"merge_and_unload|\b(?:during|while|when)\s+(?:the\s+)?merg(?:e|ing)\b|\bmerg(?:e|ing)\s+(?:the\s+)?"
        r"(?:lora|adapters?|weights|models?|checkpoints?)\b|合并[^。，,；;]{0,20}(?:时|的时候|过程中)|apply_delta|"
        r"save_pretrained_merged|\blora\s+merg(?:e|ing)\b|导出(?:模型|权重|lora)?(?:时|的时候|过程中)|\bllamafactory-cli\s+export\b|"
        r"\b(?:when|while|during)\s+(?:the\s+)?export(?:ing)?\s+(?:the\s+)?(?:merged\s+)?model\b|"
        # "合并QLoRA权重报Cuda out of memory", "模型量化导出报错"
        r"(?:合并|(?<!量化)导出)(?![的后好完])" + _ZH_GAP % 16 + r"(?:报错|出错|" + _ZH_RAN_OUT + r")|"
        r"\b(?:in|at|during)\s+the\s+merg(?:e|ing)\s+(?:step|stage|phase)\b|"
        # xtuner's merge command: "xtuner convert merge出现OOM"; the merge said in English inside Chinese
        # ("14b进行merge单卡也会oom", "权重转换...会出现oom", xtuner#715)
        r"\bconvert\s+merge\b|(?:进行|做|执行)\s*merge(?![a-z])" + _ZH_GAP % 12 + r"(?:报错|出错|" + _ZH_RAN_OUT + r")|"
        r"(?:权重|模型)转换" + _ZH_GAP % 30 + r"(?:报错|出错|" + _ZH_RAN_OUT + r")|"
        # a checkpoint converted between formats loads it whole and writes it again, when the sentence says that
        # failed: "convert the DeepSeek V3 model from Hugging Face format to the mcore format ..., but the process failed
        # due to insufficient memory", "convert ds v3 from megatron to transformers OOM", "OOM while converting the
        # checkpoint", "during HF export", "the 16-bit merge process ... running out of memory"; not a dataset
        # converted, nor a conversion done before what failed ("I followed the steps to convert the checkpoints to
        # lightning format", "after conversion to gguf")
        r"\b(?:during|while|when)\s+(?:the\s+)?(?:checkpoint\s+|model\s+|weights?\s+|hf\s+)?conver(?:ting|sion)\b(?!\s+(?:the\s+|my\s+)?data)|"
        r"(?:(?<!after )(?<!after the )(?<!after a )\bconver(?:t|ts|ted|ting|sion)\b(?![^.\n]{0,40}\b(?:datasets?|data|json|csv|images?|tokens?)\b)"
        r"[^.\n]{0,60}?\b(?:from|to|into)\s+(?:the\s+)?(?:hf|hugging\s*face|transformers|megatron|mcore|gguf|safetensors|dcp|torch_dist|nemo)\b|"
        r"\b(?:checkpoint|weights?|model|ckpt)\s+conversion\b|\bmerge\s+(?:process|script|step)\b)"
        + _FAILS_LATER
        + r"|"
        r"\b(?:during|while|when|in|at)\s+(?:the\s+)?(?:hf|hugging\s*face|model|checkpoint|weights?)\s+export\b",
    ),
    (
        "saving",
        r"\b(?:during|while|when|at)\s+(?:the\s+)?(?:saving|save|checkpoint saving|checkpointing)\b|"
        # saving as the subject, a phrase between: "saving at the end of training crashes with OOM"
        r"(?:^|[.!?,;]\s*|\b(?:but|and|then)\s+)saving\s+(?:(?:the\s+)?(?:model|checkpoint|weights|adapters?)\s+)?"
        r"(?:(?:at|in|on|of|for|after|with)\s+(?:[\w-]+\s+){0,5}?)?"
        r"(?:ooms?|oomed|runs?\s+out\s+of\s+(?:gpu\s+|cpu\s+)?memory|crash(?:es|ed)?|fails?|failed|dies|died|gets?\s+killed)\b|"
        r"save_pretrained|save_model|_save_to_state_dict|保存(?:模型|权重|checkpoint|检查点)?(?:参数|文件)?(?:时|的时候|过程中)|"
        r"\bafter\s+(?:the\s+)?training\s+(?:finished|completed|ended|is done|was done)\b|"
        r"训练(?:完|结束)(?:了)?(?:之后|后|时)|\bcheckpoint(?:ing)?\s+sav(?:e|es|ing)\b|"
        r"\b(?:when|while|during|at)\s+(?:trying\s+to\s+|i\s+|we\s+|it\s+)?sav(?:e|es|ing)\s+(?:the\s+|a\s+|my\s+)?(?:[\w-]+\s+)?"
        r"(?:model|checkpoint|weights|adapters?|state[ _]dict)|"
        # the save as what failed: "Training works fine but checkpointing OOMs" (Megatron-Bridge#1748), "saving the
        # checkpoint fails", "when the checkpoint is saved", "每次到save_steps就爆显存"; not gradient or activation
        # checkpointing, nor a remedy that "fails to" help
        r"(?<!gradient )(?<!gradient_)(?<!activation )(?<!activations )\bcheckpointing\s+(?:also\s+|always\s+|then\s+|still\s+)?"
        r"(?:ooms?\b|oomed\b|fails?\b(?!\s+to\b)|failed\b(?!\s+to\b)|crash\w*|runs?\s+out\s+of\s+(?:gpu\s+|cuda\s+)?memory)|"
        r"\bsav(?:e|es|ing)\s+(?:the\s+|a\s+)?(?:checkpoints?|ckpts?)\s+(?:also\s+|always\s+)?(?:ooms?\b|oomed\b|fails?\b(?!\s+to\b)|failed\b(?!\s+to\b)|crash\w*|runs?\s+out)|"
        r"\b(?:when|while|until|as)\s+(?:the\s+|a\s+)?(?:first\s+)?(?:checkpoint|model)\s+is\s+(?:being\s+)?(?:saved|written)\b|"
        # "OOM when the trainer saves a checkpoint", "it crashes when writing the checkpoint"
        r"\b(?:when|while|as)\s+(?:the\s+trainer\s+|it\s+|i\s+)?(?:writ(?:es|ing)|sav(?:es|ing))\s+(?:the\s+|a\s+)?(?:first\s+)?checkpoints?\b|"
        r"\b(?:reach(?:es|ed)?|hits?|at)\s+(?:the\s+)?save_steps\b|(?:每次|每|一)?到了?\s*save_?steps|"
        # "model saving error", "checkpoint saving fails"; a sharded checkpoint consolidated into one
        r"\b(?:model|checkpoint|weights?)\s+saving\b|\bconsolidat(?:e|es|ed|ing|ion)\b[^.\n]{0,40}\b(?:checkpoints?|state[ _]dicts?|weights|shards)\b|"
        r"\b(?:checkpoints?|state[ _]dicts?|weights|shards)\b[^.\n]{0,20}\bconsolidat(?:e|es|ed|ing|ion)\b",
    ),
    (
        "loading",
        # not a dataset being loaded: "when loading large datasets for inference", "When loading inseq with a larger dataset"
        r"\b(?:during|while|when)\s+(?:the\s+)?(?:model\s+)?load(?:ing)?\b"
        r"(?!\s+(?:\w+\s+){0,4}?(?:datasets?|data|corpus|files?|images?|videos?)\b)|\bloading the model\b|"
        r"\bLoading checkpoint shards\b|\b(?:can(?:not|'t)|unable to|fail(?:s|ed)? to)\s+load\s+(?:the\s+)?"
        r"(?:\w+[- ]?)?model\b|"
        r"加载模型(?!(?:完成?|成功)?(?:后|之后|以后))|加载(?:时|的时候)|载入模型|模型加载(?!\s*(?:完|成功|好|后|之后))|"
        r"\bload(?:ing)?\s+(?:the\s+)?(?:checkpoint\s+)?shards\b|\bshards?\s+(?:are\s+|were\s+)?load(?:ing|ed)?\b|"
        r"加载(?:到)?第?\s*\d+\s*个?分片|分片加载|"
        r"\b(?:can(?:not|'t)|unable\s+to|fail(?:s|ed)?\s+to|could(?:n'?t|\s+not))\s+(?:even\s+)?load\s+(?:the\s+|my\s+|a\s+)?"
        r"[\w.-]{1,40}\s+model\b|"
        r"\b(?:was|is|were|are|while|when)\s+(?:it\s+|i\s+)?(?:was\s+|is\s+|am\s+)?loading\s+(?:the\s+|my\s+|a\s+)?"
        r"(?:base\s+|pretrained\s+|pre-trained\s+|whole\s+|full\s+)?(?:model|weights|checkpoint)\b|"
        r"\b(?:load(?:ing)?|mov(?:e|ing)|transfer(?:ring)?|put(?:ting)?)\s+the\s+(?:whole\s+)?model\s+(?:on|to|onto)\s+(?:the\s+)?"
        r"(?:gpus?|cuda|device)\b|\b(?:during|inside)\s+(?:the\s+)?`?from_pretrained\b|\bat\s+load(?:ing)?\s+time\b|"
        # "Loading VLA prism-dinosiglip-224px+7b from Checkpoint cause my 256GB CPU memory OOM"
        r"\bloading\s+(?:\S+\s+){0,3}?from\s+(?:the\s+|a\s+)?checkpoints?\b|"
        # "trying to load this model", "when I load the model from an existing checkpoint", "can not load the model"
        r"\b(?:try(?:ing)?|tried|attempt(?:ing|ed)?)\s+to\s+load\b(?!\s*-?balanc)|\bwhen\s+(?:i|we)\s+(?:try\s+to\s+)?load\b(?!\s*-?balanc)|"
        r"\bcan\s+not\s+(?:even\s+)?load\s+(?:the\s+|my\s+|a\s+)?(?:[\w.-]{1,40}\s+)?model\b|"
        # start-up named: "in the initialization of DSPipeline", "crash during setup", "初始化时"; a load stopped part way
        r"\b(?:during|in|at)\s+(?:the\s+)?(?:model\s+|deepspeed\s+|engine\s+)?initiali[sz](?:ation|ing)\b|(?:模型)?初始化(?:时|的时候|阶段)|"
        # accelerate's prepare places (and under ZeRO-3 or FSDP partitions) the model: "OOMs in accelerator.prepare()"
        r"\b(?:ooms?|oomed|out\s+of\s+memory|crash\w*|fails?|failed|dies|died)\s+(?:\w+\s+)?(?:in|during|at|inside)\s+(?:the\s+)?`?accelerator\.prepare\b|"
        r"\b(?:crash\w*|fail\w*|oom\w*|dies|died)\s+(?:\w+\s+)?during\s+(?:the\s+)?set-?up\b|加载到\s*\d{1,2}\s*%|"
        # "OOM in from_pretrained" (a setting passed "in from_pretrained" is not where it failed)
        r"\b(?:oom|out\s+of\s+memory|fails?|failed|crash\w*|dies|died|killed)\s+(?:\w+\s+){0,2}in\s+(?:the\s+)?`?from_pretrained\b|"
        r"\bmodel\s+loading\b|\bbefore\s+(?:the\s+)?training\s+(?:even\s+)?(?:starts|begins|started)\b|"
        # where the error was raised: "the error is occurred in rw_model.load_state_dict(torch.load(PATH)) line";
        # "it used too much memory at the beginning of the load model"; "采用cpu加载，造成超内存报错"
        r"\b(?:error|oom|exception|it)\s+(?:is\s+|was\s+)?(?:occurr?(?:ed|s)|happen(?:ed|s)|raised|thrown)\s+(?:in|at|on)\s+"
        r"(?:the\s+)?(?:line\s+)?[\"'`]?[\w.]*(?:load_state_dict|torch\.load|from_pretrained)\b|"
        r"\b(?:at|in)\s+the\s+(?:beginning|start)\s+of\s+(?:the\s+)?(?:model\s+)?load(?:ing)?\b|"
        r"加载\s*[，,]\s*(?:造成|导致|引起|结果)|"
        # DeepSpeed's engine set-up, where it places (and partitions) the model and its optimizer: "总是在deepspeed.initialize
        # 发生OOM" (not the call itself in a pasted script: "deepspeed.initialize(model=...)"); "OOM upon loading of model
        # weights", "On model load the GPU ..."
        r"(?<![a-z0-9_.])deepspeed\.initiali[sz]e(?![a-z_])(?!\s*\()|"
        r"\b(?:upon|on)\s+(?:the\s+)?(?:model\s+)?load(?:ing)?\b(?!\s*-?balanc)"
        r"(?!\s+(?:\w+\s+){0,4}?(?:datasets?|data|corpus|files?|images?|videos?)\b)|"
        # what loading alone left in use: "只加载模型后显存占用28G", "实际加载模型后，占用内存将近60多G" (after loading, a failure
        # elsewhere is another phase: "加载模型后推理时OOM")
        r"加载(?:完)?(?:模型)?(?:之?后|完成?后)\s*[，,]?\s*(?:的)?(?:显存|内存)?\s*(?:占用|就占|占了|用了|就用了|已经占)|"
        r"加载[^，。,；;完后]{0,30}?(?:时候?|的时候|阶段|过程中)|(?:加载|载入|读取)(?:模型)?(?:权重|参数)(?:时|的时候|阶段)?|"
        # "34B加载不了", "模型加载不进去"; "加载了模型，但是却发现占用了31G的显存" (what loading alone took)
        r"(?:加载|载入)(?:不了|不进去?|不上|失败)|加载了模型\s*[，,]?[^。；;！!？?]{0,12}?(?:占用了|占了|用了)|"
        # a model deployed: placing it is loading ("使用2*RTX 3090部署，报GPU资源不足")
        r"部署(?:时|的时候|后)?\s*[，,]?\s*(?:就)?\s*(?:报|出现|提示)?\s*(?:gpu资源不足|显存不足|显存不够|爆显存|oom|out\s*of\s*memory)|"
        r"(?:一|刚)加载就|加载(?:就|直接)(?:爆|oom|报错|溢出)|from_pretrained\s*(?:时|的时候|阶段)|"
        r"(?:还没|没有?)(?:来得及)?加载完|加载(?:完成?)?(?:之前|前)|加载到一半|\bbefore\s+(?:the\s+)?model\s+(?:even\s+)?(?:finishes|finished)\s+loading\b|"
        # a model named between 加载 and the failure: "加载Qwen-72B-chat LLM model 出现OOM"; a start-up that fails
        r"加载\s*[a-z][\w.\-/]*(?:\s*(?:llm\s*)?(?:model|模型))?\s*(?:时|的时候)?\s*(?:就)?\s*(?:出现|报错?|爆)?\s*"
        r"(?:oom|显存不足|显存不够|爆显存|out\s*of\s*memory)|(?:oom|爆显存|显存不足)\s*(?:导致)?启动失败|启动(?:时|的时候)?就\s*(?:oom|爆显存|显存不足)|"
        r"\b(?:oom|out\s+of\s+memory)\s+(?:on|at|during)\s+(?:start-?up|launch)\b|"
        # loading as the sentence's subject, then the failure: "loading mistral 7b in 4bit runs out of memory"
        r"(?:^|[.!?]\s+)loading\s+(?!(?:\w+\s+){0,4}?(?:datasets?|data|corpus|files?|images?|videos?)\b)"
        r"(?:the\s+|my\s+|a\s+)?[a-z][\w.\-/]*(?:\s+[\w.\-]+){0,8}?\s+"
        r"(?:runs?\s+out\s+of\s+memory|ooms?|oomed|crash(?:es|ed)?|fails?|failed|(?:gets?|got|is|was)\s+killed)\b|"
        r"启动(?:的时候|时)" + _ZH_GAP % 8 + r"(?:报错|" + _ZH_RAN_OUT + r")|"
        # a demo started: it loads the model first ("跑web_demo.py的时候提示内存不够"); chatting with it is generation
        r"(?:\b(?:web|cli|chat|api|openai_api)_demo|\bweb_?ui)\.py\b(?!\s*(?:后|之后|以后))",
    ),
    (
        "backward",
        # not the step that went through: "loss.backward() works, but then optimizer.step() crashes", "loss.backward() 之后是 25G"
        r"\b(?:during|in)\s+(?:the\s+)?backward(?:\s+pass)?\b|"
        # accelerate's and DeepSpeed's own call: "the OOM occurs in accelerator.backward(loss)", "model_engine.backward"
        r"\b(?:accelerator|model_engine|engine)\.backward\s*\(|"
        r"loss\.backward(?!(?:\(\))?\s*(?:works|worked|is\s+fine|was\s+fine|goes\s+(?:through|fine)|went\s+(?:through|fine)|"
        r"succeed|finish|complete|之后|以后|后|完|没问题|正常|能过|可以过))|反向传播",
    ),
    (
        "optimizer",
        r"optimizer\.step|\b(?:during|in)\s+(?:the\s+)?optimi[sz]er step\b|优化器(?:更新|step)|"
        r"\b(?:during|in|at)\s+(?:the\s+)?(?:optimi[sz]er\s+)?step\s*(?:\(\)\s*)?(?:function|call|method)\b",
    ),
    ("forward", r"\b(?:during|in|on)\s+(?:the\s+)?(?:very\s+)?(?:first\s+)?forward(?:\s+pass)?\b|前向传播"),
    # last: training, without saying which part of the step
    (
        "training",
        r"\b(?:during|while|when|in the middle of)\s+(?:the\s+)?(?:training|fine[- ]?tuning|finetuning)\b|"
        r"\bwhile\s+(?:i\s+was\s+|i'm\s+|im\s+)?(?:training|fine[- ]?tuning)\b|"
        # "as soon as trainer.train() starts", "when calling trainer.train()"
        r"\b(?:when|while|as\s+soon\s+as|once|after)\s+(?:calling\s+|i\s+call\s+|running\s+|i\s+run\s+)?(?:the\s+)?trainer\.train\(\)|"
        r"训练(?:时|的时候|过程中|中途)|微调(?:时|的时候|过程中)|"
        r"(?:训练|微调|精调|finetune|sft)[^，。,；;完后前]{0,12}?(?:时候?|的时候|过程中|阶段)|开始(?:训练|微调)(?:就|后|时)|"
        r"(?:训练|微调|精调)[^，。,；;完后前]{0,10}?(?:爆显存|显存(?:不足|不够|溢出|爆)|oom|out\s*of\s*memory)|"
        r"(?:训练|微调|精调)\s*(?:一直|总是|就)?(?:报错|报|出错)[^。；;]{0,30}?(?:oom|out\s*of\s*memory|显存(?:不足|不够|溢出))|"
        # in an OOM report, the fine-tuning that errors is where it ran out: "但是运行微调报错了" (EVA#83); "微调报CUDA out of
        # memory错误" reads "微调报 错误" once the pasted message is taken out
        r"(?:运行|跑|开始)?(?:训练|微调|精调)\s*(?:的时候|时)?\s*(?:一直|总是|就)?\s*(?:报\s*错|出错)|"
        r"\b(?:during|while|when|in)\s+(?:the\s+)?(?:sft|dpo|ppo|grpo|kto|orpo|lora|qlora|full)\s+(?:training|fine[- ]?tuning)\b|"
        r"\b(?:can(?:not|'t|\s+not)|unable\s+to)\s+(?:fine[- ]?tune|finetune|train)\b[^.;!?]{0,40}?\b(?:oom|out\s+of\s+memory)\b|"
        r"\b(?:try(?:ing)?|tried|attempt(?:ing)?|attempted)\s+to\s+(?:full[- ]?)?(?:train|fine[- ]?tune|finetune|pre-?train)\b|"
        r"\b(?:training|fine[- ]?tuning|finetuning)\s+(?:always\s+|still\s+|just\s+)?(?:crash(?:es|ed)?|fail(?:s|ed)?|dies|died|oom(?:s|ed)?|"
        r"runs?\s+out|ran\s+out|goes\s+oom|went\s+oom|stops?|stopped|throws|threw)\b|"
        # the clause says fine-tuning is what ran out: "fine-tuning llama-7b runs out of memory", "OOM when fine-tune BART"
        r"\b(?:fine[- ]?tun(?:e|ing)|finetun(?:e|ing))\b[^,.;!?()]{0,50}?\b(?:oom|out\s+of\s+memory|runs?\s+out\s+of\s+(?:gpu\s+)?memory|ran\s+out\s+of\s+(?:gpu\s+)?memory)\b|"
        r"\b(?:oom|out\s+of\s+memory)\s+(?:error\s+)?(?:when|while|during|for)\s+(?:i\s+)?(?:fine[- ]?tun\w*|finetun\w*)\b|"
        r"(?:训练|微调|精调|全参数?|全量)[^，。,；;完后前]{0,20}?(?:溢出|爆了)|(?:finetune|fine-tune|sft)\s*(?:提示|报)\s*(?:oom|out of memory|显存)|"
        # "微调13B 模型，显存爆了", "在微调这总是会因为文章内容太长OOM", "运行PPO，...还是爆显存溢出", "dpo train yi34b 显示现存不够"
        r"(?:训练|微调|精调|(?<![a-z])(?:sft|dpo|ppo|grpo|rlhf)(?![a-z]))" + _ZH_GAP % 20 + _ZH_RAN_OUT + r"|"
        # "训练报错" closing a line whose pasted message was dropped; "训着训着"
        r"(?:训练|微调|精调)(?:时|的时候)?\s*(?:一直|总是)?\s*(?:报错|出错)了?\s*[:：]?\s*$|训着训着|(?:ppo|dpo|grpo|rlhf|奖励模型)\s*(?:阶段|训练)|"
        # the steps it trained before the failure: "训练几百步后就报", "20~50步训练后出现OOM" (GPT2-Chinese#96, slime#1951)
        r"训练\s*了?\s*(?:\d{1,7}|几|数|上|好几)[十百千万]*\s*(?:个)?\s*(?:steps?|步|iters?|个?epochs?)\s*(?:之?后|以后)|"
        r"(?<![\d.])\d{1,7}\s*(?:[~～\-到]\s*\d{1,7}\s*)?(?:个)?\s*(?:steps?|步)\s*训练\s*(?:之?后|以后)|"
        # "训到400+samples就OOM了", "7B的FT，仍然CUDA oom"
        r"训到"
        + _ZH_GAP % 20
        + _ZH_RAN_OUT
        + r"|(?<![a-z])ft(?![a-z])"
        + _ZH_GAP % 12
        + r"(?<![a-z])"
        + _ZH_RAN_OUT
        + r"|"
        # a training script or config run: "bash finetune/finetune_visualglm.sh", "python train.py", "run_train.sh",
        # "dpo.py", "llama3_lora_sft.yaml" (any other phase named wins)
        r"(?<![\w-])(?:[\w-]+_)?(?:fine[-_]?tune|finetune|train|sft|dpo|ppo|grpo|orpo|kto|pretrain)(?:_[\w-]+)?\.(?:sh|py|ya?ml)\b|"
        # the run said to be training: "I am finetuning a GPT2", "to fine-tune X on an A100", "How can I train with a
        # 3090?", "performing RLHF training", "OOM error on Pretraining Albert"
        r"\b(?:i\s+am|i'm|im|we\s+are|we're)\s+(?:currently\s+|now\s+)?(?:fine[- ]?tuning|finetuning|training|pre-?training)\b|"
        r"\bto\s+(?:full[- ]?)?(?:fine[- ]?tune|finetune|train|pre-?train)\b|"
        r"\b(?:how\s+(?:can|could|do|should)\s+(?:i|we)|can\s+(?:i|we)|is\s+it\s+possible\s+to)\s+(?:do\s+)?(?:\w+\s+){0,2}?"
        r"(?:fine[- ]?tun\w*|finetun\w*|train(?:ing)?|pre-?train\w*)\b|"
        r"\b(?:perform\w*|do|doing|run\w*|start\w*)\s+(?:the\s+|a\s+|an\s+|my\s+)?(?:\w+\s+){0,2}?(?:training|fine[- ]?tuning|finetuning|pre-?training)\b"
        r"(?!\s+(?:data|dataset|set|corpus|code))|\bpre-?training\b(?!\s+(?:data|dataset|corpus|checkpoint|weights|stage))",
    ),
)
_PHASE_PATTERNS = tuple((phase, re.compile(pattern, _I)) for phase, pattern in _PHASES)
_LOADING = dict(_PHASE_PATTERNS)["loading"]
#: Loading said as done before what failed: "after loading the model", "模型加载完成后", "once it loaded".
_LOADED_BEFORE = re.compile(r"\b(?:after|once|finished|successfully)\s+(?:\w+\s+){0,2}$", _I)
#: A setting passed at load time, not where it failed: "I didn't set flashattention2 when loading the model" (unless
#: the failure follows: "I set device_map when loading the model and it OOMs").
_SET_BEFORE = re.compile(r"\b(?:set|sets|setting|pass|passed|passing|specif\w+|add|added)\b[^,.;:!?]{0,30}$", _I)
_FAILS_AFTER = re.compile(FAILED.pattern + r"|\b(?:failed|failing|crash\w*|killed|error)\b|爆", _I)
_LOADED_FINE = re.compile(
    r"^\W{0,3}(?:\w+\s+){0,3}?(?:is|was|works?|worked|went|goes|loads?)\s+(?:fine|ok|okay|well|normally)\b|"
    # said in the same clause a little later: "load 72B model to process some picture it works fine", "When loading,
    # it cost 15G Memory, It's OK"
    r"^[^.;!?\n]{0,40}?\b(?:it|that|this)(?:'s|\s+is|\s+was|\s+(?:works?|worked|went|goes|loads?|loaded))\s+"
    r"(?:fine|ok|okay|well|normally)\b|"
    r"^[^，。,；;]{0,6}(?:完成|成功|正常|没问题|好了)|"
    # a progress bar that reached its end: "Loading checkpoint shards: 100%|██████████| 2/2"
    r"^\W{0,3}100\s*%|^[^\n]{0,30}?(?<!\d)(\d+)/\1(?!\d)",
    _I,
)


#: A Chinese question whether something is supported ("export 能够支持多张卡加载模型...吗？"): the part of the run it
#: names is what the user asks about, not where the run failed.
ASKS_IF_SUPPORTED = re.compile(r"(?:能够|能否|能不能|可不可以|是否)\s*支持[^。！!]{0,60}[吗么]?\s*[？?]")


#: A phase read from a script's name ("web_demo.py", "finetune.sh") says less than one said in words: "运行web_ui.py，
#: 问第二个就出现 OOM" failed while generating, after the demo had loaded.
_SCRIPT = re.compile(r"\.(?:py|sh)\b", _I)


#: A part of the run said to work, right after it is named: "运行交互式评测是正常的，但是运行微调报错了" (EVA#83).
_WORKED_AFTER = re.compile(
    r"[^，,。；;.!?！？]{0,12}?(?:是|都|还|也)?(?:正常的?|没(?:有)?问题|能跑|可以跑)(?![吗么?？])|"
    r"[^,;.!?]{0,12}?\b(?:works?|worked|runs?|ran)\s+(?:fine|well|ok(?:ay)?)\b|[^,;.!?]{0,12}?\b(?:is|was)\s+fine\b",
    re.IGNORECASE,
)
#: What follows a part said to work when another part failed: "评测是正常的，但是...", "inference works fine, but ...".
_BUT_AFTER = re.compile(r"\s*[，,]?\s*(?:但是?|可是|不过|然而|\bbut\b|\bhowever\b)", re.IGNORECASE)


def phases_in_order(line: str) -> list[tuple[str, re.Pattern[str]]]:
    """The phase readings in the order the line names them ("OOM in the merge step ... for inference": merging),
    training last: a line that names a part of the run and also says it was training means that part. A phase read
    from a script's name comes after every phase said in words; a part said to work ("评测是正常的，但是微调报错了")
    comes after the others, when there are others, and is not read at all when a "but" follows it (the failure is
    elsewhere, named or not: "运行交互式评测是正常的，但是运行微调报错了，怎么解决呢？")."""
    found = []
    for rank, (phase, pattern) in enumerate(_PHASE_PATTERNS):
        hit = pattern.search(line)
        if hit is not None:
            script = _SCRIPT.search(hit.group(0)) is not None
            worked = _WORKED_AFTER.match(line, hit.end())
            if worked is not None and _BUT_AFTER.match(line, worked.end()):
                continue
            found.append((worked is not None, script, phase == "training", hit.start(), rank, phase, pattern))
    return [(phase, pattern) for *_, phase, pattern in sorted(found)]


def fails_while_loading(line: str) -> bool:
    """Whether the line says the model's loading is what failed, not a step before what failed."""
    # a demo script's name is the load only when the line names no other phase ("跑web_demo.py的时候提示内存不够"): the
    # demo loads its model first, so a later step named in words ("问第二个就出现 OOM") is where it failed
    m = next((hit for hit in _LOADING.finditer(line) if _SCRIPT.search(hit.group(0)) is None), None)
    if m is None:
        return phases_in_order(line)[:1] == [("loading", _LOADING)]
    before, after = line[max(0, m.start() - 30) : m.start()], line[m.end() : m.end() + 60]
    if _SET_BEFORE.search(before) and not _FAILS_AFTER.search(after):
        return False
    return _LOADED_BEFORE.search(before) is None and _LOADED_FINE.search(after) is None


#: Inference named as what the model is for, not as the step that failed: "load it just for inference",
#: "Loading Llama-2-13b for inference only", "加载模型用于推理".
_FOR_INFERENCE = re.compile(
    r"\b(?:just\s+|only\s+)?for\s+(?:the\s+)?inference\b|\binference\s+only\b|用于推理|来推理|做推理用|"
    # "load the 7B model to make CLI inference": inference as what the load is for
    r"\bto\s+(?:make|do|perform)\s+(?:\w+\s+)?inference\b",
    _I,
)
#: Loading the model said in the same line: "load such a big model", "tensors loading as fp32", "加载模型".
_LOAD_SAID = re.compile(
    r"\bload(?:s|ing|ed)?\b(?!\s+(?:\w+\s+){0,4}?(?:datasets?|data|corpus|files?|images?|videos?)\b)|加载(?!数据)|载入(?!数据)",
    _I,
)
#: Generation itself named as the step: "during generation", "generate()", "生成时".
_GENERATING = re.compile(r"\bgenerat(?:e\(|ion\b|ing\b)|\bmodel\.chat\b|\bdecoding\b|生成|对话|回答", _I)


def loads_for_inference(line: str) -> bool:
    """Whether the line is about loading a model meant for inference, with nothing said of generating: its
    "inference" is the model's purpose and the load is the step ("How to load such a big model into 40 GB
    (just for inference)?"), so the phase is loading, not generation."""
    return bool(_FOR_INFERENCE.search(line) and _LOAD_SAID.search(line) and not _GENERATING.search(line))
