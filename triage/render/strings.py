"""Fixed interface strings in both languages."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "causes": {"en": "Likely causes", "zh": "可能的原因"},
    "evidence": {"en": "evidence", "zh": "依据"},
    "remedies": {"en": "What to change", "zh": "建议的修改"},
    "myths": {"en": "Corrections to what you may have read", "zh": "需要纠正的说法"},
    "questions": {"en": "Questions that would narrow it down", "zh": "可以进一步缩小范围的问题"},
    "facts": {"en": "Facts used", "zh": "使用的事实"},
    # the percentages also count how similar public reports ended, which is not evidence about this run: a first
    # cause shown at 69 % on a word-model vote is still not established, and the headline says why
    "none_fired": {
        "en": "Not established yet: what your run itself shows makes no cause more likely than not (the "
        "percentages also count how similar public reports ended). Tell me more (see the questions below).",
        "zh": "尚未确定：仅凭你这次运行本身的信息，还没有哪个原因的可能性超过一半"
        "（下面的百分比还计入了相似公开报告的结局）。请补充更多信息（见下面的问题）。",
    },
    "no_evidence": {
        "en": "No cause is indicated yet: nothing you gave points at one. Answer the questions below, or paste the "
        "traceback, your config or your log. For orientation only, the most common causes overall (a base rate, "
        "not a diagnosis):",
        "zh": "目前还无法判断原因：你提供的信息没有指向任何一个原因。请回答下面的问题，或贴上 traceback、配置或日志。"
        "仅供参考，总体上最常见的原因（基础概率，不是诊断）：",
    },
    "similar": {"en": "Similar solved public reports", "zh": "相似的已解决公开报告"},
    "out_of_scope_serving": {
        "en": "This looks like serving a model (vLLM, TGI, an API server), which triage does not cover: it diagnoses "
        "fine-tuning and evaluating LLMs. Generic checks: nvidia-smi for other processes on the GPU; the server's "
        "memory share (vLLM --gpu-memory-utilization, LMDeploy --cache-max-entry-count) and context length "
        "(--max-model-len, --session-len); tensor parallelism across GPUs (--tensor-parallel-size, --tp); a quantized "
        "checkpoint.",
        "zh": "这看起来是在部署推理服务（vLLM、TGI、API 服务），不在 triage 的范围内："
        "triage 诊断的是大语言模型的微调和评估。通用检查：用 nvidia-smi 看显卡上是否有其他进程；"
        "服务占用显存的比例（vLLM 的 --gpu-memory-utilization，LMDeploy 的 --cache-max-entry-count）和上下文长度"
        "（--max-model-len、--session-len）；多卡张量并行（--tensor-parallel-size、--tp）；量化的模型权重。",
    },
    "out_of_scope_image_model": {
        "en": "This looks like an image model (diffusion, UNet, a CNN), which triage does not cover: it diagnoses "
        "fine-tuning and evaluating LLMs. Generic checks: batch size and resolution, mixed precision, gradient "
        "checkpointing, other processes on the GPU (nvidia-smi).",
        "zh": "这看起来是图像模型（扩散模型、UNet、CNN），不在 triage 的范围内："
        "triage 诊断的是大语言模型的微调和评估。"
        "通用检查：batch size 和分辨率、混合精度、梯度检查点、显卡上的其他进程（nvidia-smi）。",
    },
    "similar_summary": {
        "en": "similar solved public reports: {n}; resolved as {category}: {k}",
        "zh": "{n} 篇相似的公开报告；其中 {k} 篇最终的原因是 {category}",
    },
    "similarity": {"en": "similarity", "zh": "相似度"},
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
    # triage diagnose --snapshot (triage/render/snapshot.py)
    "snapshot_title": {"en": "Memory at the OOM (memory snapshot)", "zh": "爆显存时的显存占用（显存快照）"},
    "snapshot_head": {
        "en": "{path}, device {device}: {allocated:.2f} GiB live, {reserved:.2f} GiB reserved",
        "zh": "{path}，设备 {device}：存活 {allocated:.2f} GiB，已保留 {reserved:.2f} GiB",
    },
    "snapshot_failed": {
        "en": "; the failed allocation asked for {requested:.2f} GiB",
        "zh": "；失败的分配请求 {requested:.2f} GiB",
    },
    "snapshot_component": {"en": "component", "zh": "组成部分"},
    "snapshot_live": {"en": "live GiB", "zh": "实际 GiB"},
    "snapshot_estimate": {"en": "estimate GiB", "zh": "估算 GiB"},
    "snapshot_estimate_at": {"en": "the estimate is at its peak:", "zh": "估算取的是峰值时刻："},
    "snapshot_unverified": {
        "en": "attributed from the allocation stacks; not yet checked against a snapshot from a real GPU",
        "zh": "按分配时的调用栈归类；尚未用真实 GPU 上的快照验证过",
    },
    "component_weights": {"en": "weights", "zh": "权重"},
    "component_gradients": {"en": "gradients", "zh": "梯度"},
    "component_optimizer_state": {"en": "optimizer state", "zh": "优化器状态"},
    "component_activations": {"en": "activations", "zh": "激活值"},
    "component_logits_loss": {"en": "logits/loss", "zh": "logits/损失"},
    "component_kv_cache": {"en": "KV cache", "zh": "KV 缓存"},
    "component_other": {"en": "other", "zh": "其他"},
    "no_estimate": {"en": "no estimate yet", "zh": "暂时无法估算"},
    "no_estimate_requested": {"en": "no estimate was requested", "zh": "没有要求估算"},
    "fits": {"en": "fits", "zh": "放得下"},
    "does_not_fit": {"en": "does not fit", "zh": "放不下"},
    "expected": {"en": "expected", "zh": "预计"},
    "plan": {"en": "cheapest plan that fits", "zh": "代价最小的可行方案"},
    "no_plan": {"en": "no combination of the suggested remedies fits", "zh": "建议的修改组合后仍然放不下"},
    "plan_closest": {"en": "no combination fits; the closest", "zh": "没有放得下的组合；最接近的是"},
    "assumed": {"en": "assumed", "zh": "假设"},
    "saves": {"en": "saves", "zh": "节省"},
    "saves_nothing": {"en": "saves ~0 on this run", "zh": "对本次训练几乎无节省"},
    "costs": {"en": "costs", "zh": "多用"},
    # a remedy applied to the run (render/labels.outcome_label)
    "outcome_fits": {"en": "fits", "zh": "放得下"},
    "outcome_borderline": {
        "en": "fits only at the low end of the estimate",
        "zh": "只有按估算的下限才放得下",
    },
    "outcome_does_not_fit": {"en": "does not fit", "zh": "放不下"},
    "outcome_still": {"en": "still does not fit", "zh": "仍然放不下"},
    "outcome_unknown": {"en": "GPU unknown", "zh": "显卡未知"},
    "outcome_unsized_length_distribution": {
        "en": "cannot be sized without the lengths of your samples: the peak is set by the longest batch "
        "(say --fact padding=max_length if batches are padded to max_length, and --fact max_sample_tokens=N "
        "for your longest sample)",
        "zh": "不知道样本长度就无法估算：峰值由最长的 batch 决定（若 batch 被补齐到 max_length，请给出 "
        "--fact padding=max_length，并用 --fact max_sample_tokens=N 给出最长样本的 token 数）",
    },
    "alt_both": {
        "en": "{fact} {assumed} (assumed): {expected}; {value}: {other}, {verdict} — say which with --fact {fact}=...",
        "zh": "{fact} 假设为 {assumed}：{expected}；若为 {value}：{other}，{verdict} —— 请用 --fact {fact}=... "
        "说明是哪一个",
    },
    "alt_head": {
        "en": "The estimate depends on settings it had to assume:",
        "zh": "估算取决于以下未知而被假设的设置：",
    },
    "doubt": {
        "en": "You say the run trained {steps} before it ran out of memory, but the estimate says it cannot fit "
        "at all (even its low end, {low}, is over the {cap} GPU). A setting it assumed is probably wrong for "
        "this run (see the assumptions), so it counts for less as evidence. Look at what changes at the "
        "failing step: a longer batch than the ones before (the longest sample, max_length), evaluation "
        "(eval batch size, accumulated logits) or a checkpoint save (gathered weights, optimizer state).",
        "zh": "你说训练在爆显存之前已经跑了{steps}，但估算认为它根本放不下"
        "（即使估算下限 {low} 也超过了 {cap} 的显卡）。"
        "估算所做的某个假设很可能与这次训练不符（见假设列表），因此它作为依据的权重被降低了。"
        "请看失败那一步有什么变化：比之前更长的 batch（最长的样本、max_length）、"
        "评估（评估 batch 大小、累积的 logits），或保存 checkpoint（收集完整权重、优化器状态）。",
    },
    "doubt_steps": {"en": "{n} steps", "zh": " {n} 步"},
    "doubt_while": {"en": "for a while", "zh": "一段时间"},
    "value_on": {"en": "on", "zh": "开"},
    "value_off": {"en": "off", "zh": "关"},
    # the estimate's verdict line in every format (render/labels.peak_label, verdict_label)
    "peak_at": {
        "en": "peak at {phase}: {detail} ({allocated} allocated)",
        "zh": "峰值出现在{detail}（已分配 {allocated}）",
    },
    "overhead_legend": {"en": "overhead", "zh": "额外开销"},
    "change_assumed": {
        "en": " (assumed: say --fact {fact}=N)",
        "zh": "（假设值：请用 --fact {fact}=N 说明）",
    },
    "overhead_row": {"en": "overhead", "zh": "额外开销"},
    "md_component": {"en": "component", "zh": "组成部分"},
    "md_how": {"en": "how", "zh": "计算方式"},
    "fp_confidence": {"en": "confidence {level}", "zh": "置信度{level}"},
    # why a remedy does not apply (render/labels.blocker_labels)
    "blocker_version": {
        "en": "needs {package}{specifier} (you have {have})",
        "zh": "需要 {package}{specifier}（你的是 {have}）",
    },
    "blocker_prerequisite": {"en": "a prerequisite does not hold", "zh": "前提条件不满足"},
    "blocker_already": {"en": "your run already has {what}", "zh": "你的训练已经是 {what}"},
    # an upgrade that unlocks a remedy (render/labels.upgrade_label)
    "upgrade_unlocks": {
        "en": "upgrading is the way to it: {upgrades}",
        "zh": "升级就能用上它：{upgrades}",
    },
    # triage estimate / fit (triage/render/estimate.py)
    "note": {"en": "Note", "zh": "注意"},
    "target": {"en": "target", "zh": "目标"},
    "headroom": {"en": "headroom", "zh": "余量"},
    "est_peak": {"en": "Peak allocated", "zh": "已分配显存峰值"},
    "est_paged": {
        "en": "paged optimizer state, in unified memory outside the peak",
        "zh": "分页优化器状态，位于统一内存，不计入峰值",
    },
    "est_device": {"en": "On the device", "zh": "显卡上的总占用"},
    "est_band": {"en": "low / expected / high = allocated peak plus:", "zh": "低 / 预计 / 高 = 已分配峰值加上："},
    "est_short_by": {"en": "short by", "zh": "还差"},
    "est_borderline": {"en": "borderline", "zh": "临界"},
    "est_borderline_why": {
        "en": "fits only at the low end of the estimate: the expected total is over the GPU, the low end is not",
        "zh": "只有在估算区间的下限才放得下：预计总量超过显存，区间下限没有超过",
    },
    "est_high_end": {
        "en": "the high end of the band does not fit: little room for fragmentation",
        "zh": "区间上限放不下：几乎没有留给碎片的余地",
    },
    "est_gpu_unknown": {
        "en": "GPU unknown: give --gpu NAME or --gpu-memory SIZE to compare against its capacity.",
        "zh": "显卡未知：用 --gpu 型号 或 --gpu-memory 大小 来与显存容量比较。",
    },
    "est_assumed": {"en": "Assumed (state the fact to change it):", "zh": "假设（给出该事实即可更改）："},
    "fit_nothing": {"en": "Nothing fits: even {var}=1 needs", "zh": "怎样都放不下：即使 {var}=1 也需要"},
    "fit_largest": {"en": "Largest {var} that fits", "zh": "放得下的最大 {var}"},
    "fit_upper": {"en": "the search's upper bound", "zh": "搜索上限"},
    "failed_alloc": {"en": "the failed allocation of", "zh": "失败的分配"},
    "unknown_keys": {"en": "config keys not understood", "zh": "未识别的配置项"},
    # the exported report (triage/render/report.py)
    "report_title": {"en": "triage report", "zh": "triage 诊断报告"},
    "report_most_likely": {"en": "Most likely", "zh": "最可能的原因"},
    "report_plan": {"en": "Plan", "zh": "修改计划"},
    "report_remedies": {"en": "What to change", "zh": "建议的修改"},
    "report_memory": {"en": "Memory", "zh": "显存"},
    "report_component": {"en": "component", "zh": "组成部分"},
    "report_at_peak": {"en": "at the peak", "zh": "峰值时"},
    "report_device_total": {"en": "device total", "zh": "显卡总占用"},
    "report_gpu": {"en": "GPU", "zh": "显卡"},
    "report_gpu_unknown": {
        "en": "GPU unknown: say which GPU to know whether it fits",
        "zh": "显卡未知：告诉我显卡型号才能判断是否放得下",
    },
    "report_peak_phase": {"en": "peak during", "zh": "峰值出现在"},
    # the TUI's what-if line in an exported report (triage/tui/app.py whatif_lines)
    "whatif_with": {"en": "with {applied}: {what}", "zh": "应用 {applied} 后：{what}"},
    "whatif_of": {"en": "{used} of {capacity}: {verdict}", "zh": "{used}（显存 {capacity}）：{verdict}"},
    "whatif_cannot_apply": {"en": "cannot apply them: {why}", "zh": "无法应用：{why}"},
    "whatif_unsized": {"en": "{line} (the saving {why})", "zh": "{line}（节省量{why}）"},
    "report_plan_none": {"en": "Nothing to change: the run fits as it is.", "zh": "无需修改：当前配置已放得下。"},
    "report_plan_steps": {"en": "Cheapest set of remedies that fits", "zh": "代价最小且放得下的修改组合"},
    "report_plan_best": {"en": "No combination fits; the closest", "zh": "没有放得下的组合；最接近的是"},
    "report_after": {"en": "after", "zh": "修改后"},
    "report_target": {"en": "target", "zh": "目标"},
    "report_reader_notes": {"en": "How the inputs were read", "zh": "输入的读取说明"},
    "report_whatif": {"en": "What-if tried in the session", "zh": "会话中试用的修改"},
    "report_no_estimate": {"en": "No memory estimate", "zh": "无法估算显存"},
    "report_interview": {"en": "Questions and answers", "zh": "问答记录"},
    "report_pasted": {"en": "What was pasted", "zh": "粘贴的内容"},
    "report_you_said": {"en": "(free text)", "zh": "（自由输入）"},
    "report_undecided": {
        "en": "Not established yet: what the run itself shows makes no cause more likely than not.",
        "zh": "尚未确定：仅凭这次运行本身的信息，还没有哪个原因的可能性超过一半。",
    },
    "report_treats": {"en": "treats", "zh": "针对"},
    "report_redacted": {"en": "secrets were redacted", "zh": "已隐去密钥等敏感信息"},
    # the interview (triage/interview.py)
    "ask_yes": {"en": "yes", "zh": "是"},
    "ask_no": {"en": "no", "zh": "否"},
    "ask_dont_know": {"en": "don't know", "zh": "不知道"},
    "tui_internal_error": {
        "en": "internal error ({error}): this is a bug in triage, not in what you typed. That reply was not taken; "
        "your earlier answers are kept. Please report it with what you typed; TRIAGE_DEBUG=1 shows the traceback.",
        "zh": "内部错误（{error}）：这是 triage 的缺陷，不是你输入的问题。这条回复没有被采用，之前的回答都保留着。"
        "请把你输入的内容一起报告给我们；设置 TRIAGE_DEBUG=1 可以看到完整的 traceback。",
    },
    # quick replies in the words a user would say (fact value -> label); facts without these show the value
    "answer_phase_loading": {"en": "while loading the model", "zh": "加载模型时"},
    "answer_phase_forward": {"en": "in the forward pass", "zh": "前向传播时"},
    "answer_phase_backward": {"en": "in backward()", "zh": "反向传播 backward() 时"},
    "answer_phase_optimizer": {"en": "at optimizer.step()", "zh": "优化器更新 optimizer.step() 时"},
    "answer_phase_evaluation": {"en": "during evaluation", "zh": "评估时"},
    "answer_phase_generation": {"en": "while generating", "zh": "生成 / 推理时"},
    "answer_phase_saving": {"en": "while saving", "zh": "保存模型时"},
    "answer_phase_merging": {"en": "while merging LoRA", "zh": "合并 LoRA 时"},
    "answer_phase_training": {"en": "during training, not sure which step", "zh": "训练中，不确定是哪一步"},
    "answer_memory_growth_steady": {"en": "flat from step to step", "zh": "每步基本不变"},
    "answer_memory_growth_growing": {"en": "it grows over time", "zh": "随时间一直上涨"},
    "answer_memory_growth_spike": {"en": "flat, then one sudden jump", "zh": "平稳后突然跳高"},
    # number questions whose values need words: 0 is not the "0 = don't know" key
    "answer_oom_step_0": {"en": "at the very first step (step 0)", "zh": "第一步（step 0）就爆"},
    "answer_zero_stage_0": {"en": "stage 0 (nothing sharded)", "zh": "stage 0（不切分）"},
    "answer_zero_stage_1": {"en": "stage 1 (optimizer states sharded)", "zh": "stage 1（切分优化器状态）"},
    "answer_zero_stage_2": {"en": "stage 2 (+ gradients sharded)", "zh": "stage 2（再切分梯度）"},
    "answer_zero_stage_3": {"en": "stage 3 (+ weights sharded)", "zh": "stage 3（再切分权重）"},
    "answer_last_change_never_worked": {"en": "it never worked", "zh": "从来没跑通过"},
    "answer_last_change_nothing": {"en": "nothing changed", "zh": "什么都没改"},
    "answer_last_change_data": {"en": "the data", "zh": "数据"},
    "answer_last_change_model": {"en": "the model", "zh": "模型"},
    "answer_last_change_batch_or_length": {"en": "batch size or max length", "zh": "batch size 或最大长度"},
    "answer_last_change_gpus_or_launch": {
        "en": "GPUs, launcher or DeepSpeed/FSDP config",
        "zh": "显卡、启动方式或 DeepSpeed/FSDP 配置",
    },
    "answer_last_change_library_upgrade": {"en": "upgraded a library", "zh": "升级了某个库"},
    "answer_last_change_worked_before": {
        "en": "it worked before, not sure what changed",
        "zh": "之前能跑，不确定改了什么",
    },
    "ask_took": {"en": "I took from that", "zh": "我从中读取到"},
    "ask_took_n": {"en": "took {n} facts from {where}", "zh": "从{where}读取到 {n} 个事实"},
    "ask_took_1": {"en": "took 1 fact from {where}", "zh": "从{where}读取到 1 个事实"},
    "ask_your_text": {"en": "your text", "zh": "你的文本"},
    "ask_more_n": {"en": "{n} more", "zh": "另 {n} 个"},
    "ask_notes_n": {"en": "{n} reader notes in the report", "zh": "另有 {n} 条读取说明（见报告）"},
    "ask_kept": {
        "en": "I found no facts in that; I keep it as context (it still counts as evidence).",
        "zh": "没有从中读取到事实；已作为上下文保留（仍会作为证据）。",
    },
    # the TUI (triage/tui/widgets/conversation.py)
    "chat_intro": {
        "en": "Tell me what you see: paste the error or the log, or answer my questions. "
        "Number keys answer, / types, ? shows the keys.",
        "zh": "告诉我你看到了什么：粘贴报错或日志，或者回答我的问题。数字键回答，/ 输入文字，? 查看按键。",
    },
    "chat_changing": {"en": "Changing your earlier answer:", "zh": "修改之前的回答："},
    "chat_done": {"en": "I have nothing more worth asking. Most likely:", "zh": "没有更值得问的问题了。最可能的原因："},
    "chat_undecided": {
        "en": "I have nothing more worth asking, and no cause stands out. Tell me more in your own words.",
        "zh": "没有更值得问的问题了，也没有哪个原因明显领先。请用自己的话多说一些。",
    },
    "chat_more": {"en": "more lines", "zh": "行未显示"},
    # the TUI (triage/tui/widgets/memory.py)
    "panel_title": {"en": "Memory (what-if)", "zh": "显存（假设分析）"},
    "panel_needs": {"en": "To estimate memory I need", "zh": "要估算显存，我需要知道"},
    "panel_fits": {"en": "fits", "zh": "放得下"},
    "panel_no_fit": {"en": "does not fit", "zh": "放不下"},
    "panel_over": {"en": "over", "zh": "超出"},
    "panel_gpu": {"en": "GPU", "zh": "显卡"},
    "panel_peak": {"en": "peak", "zh": "峰值阶段"},
    "panel_capacity_unknown": {"en": "GPU unknown: give", "zh": "显卡未知：请提供"},
    "panel_or": {"en": " or ", "zh": " 或 "},
    "panel_with": {"en": "with", "zh": "应用"},
    "panel_change": {"en": "change", "zh": "项修改"},
    "panel_changes": {"en": "changes", "zh": "项修改"},
    "panel_saves": {"en": "saves", "zh": "节省"},
    "panel_costs": {"en": "costs", "zh": "多用"},
    "panel_plan": {"en": "plan", "zh": "方案"},
    "panel_plan_key": {"en": "p: try it", "zh": "p：试用"},
    "panel_plan_undo": {"en": "p: back to your run", "zh": "p：恢复原配置"},
    "panel_no_plan": {"en": "no combination of these remedies fits", "zh": "这些修改组合后仍放不下"},
    "panel_assumed": {"en": "assumed", "zh": "假设"},
    "panel_toggle": {"en": "space: try a remedy", "zh": "空格：试用某个修改"},
    # triage run (triage/cli/cmd_run.py)
    "run_error_no_command": {
        "en": "no command given: triage run -- <command ...>",
        "zh": "没有给出命令：triage run -- <命令 ...>",
    },
    "run_error_not_posix": {
        "en": "triage run needs Linux or macOS (pseudo-terminals and POSIX signals)",
        "zh": "triage run 需要 Linux 或 macOS（伪终端和 POSIX 信号）",
    },
    "run_error_not_found": {"en": "{command}: command not found", "zh": "{command}：找不到这个命令"},
    "run_error_not_executable": {
        "en": "{command}: permission denied (not executable)",
        "zh": "{command}：没有权限（不可执行）",
    },
    "run_error_cannot_run": {"en": "{command}: cannot run: {why}", "zh": "{command}：无法运行：{why}"},
    "run_error_log_temp": {
        "en": "cannot create a log copy in {path}: {why}; give --log-to FILE",
        "zh": "无法在 {path} 中创建日志副本：{why}；请用 --log-to FILE 指定",
    },
    "run_error_log_dir": {
        "en": "--log-to {path}: is a directory; give a file name",
        "zh": "--log-to {path}：这是一个目录；请给出文件名",
    },
    "run_error_log_used": {
        "en": "--log-to {path}: the command uses this file; give another name",
        "zh": "--log-to {path}：命令本身用到了这个文件；请换一个文件名",
    },
    "run_error_log_unwritable": {
        "en": "--log-to {path}: cannot write: {why}",
        "zh": "--log-to {path}：无法写入：{why}",
    },
    "run_oom": {
        "en": "the command ran out of {what} (exit {code}); what its command line, environment and output say:",
        "zh": "命令因{what}不足而失败（退出码 {code}）；根据它的命令行、环境和输出：",
    },
    "run_what_cuda_oom": {"en": "GPU memory", "zh": "显存"},
    "run_what_cublas_alloc": {"en": "GPU memory (cuBLAS could not allocate)", "zh": "显存（cuBLAS 无法分配）"},
    "run_what_no_executable_batch": {
        "en": "GPU memory (no batch size fits)",
        "zh": "显存（没有能放下的 batch size）",
    },
    "run_what_host_oom": {"en": "host RAM (not GPU memory)", "zh": "主机内存（不是显存）"},
    "run_failed": {
        "en": "the command failed (exit {code}); triage saw no out-of-memory error in its output.",
        "zh": "命令失败（退出码 {code}）；triage 在它的输出里没有看到内存不足的错误。",
    },
    "run_ended_by": {
        "en": "the command was ended by {signal} (exit {code}); triage saw no out-of-memory error in its output.",
        "zh": "命令被 {signal} 结束（退出码 {code}）；triage 在它的输出里没有看到内存不足的错误。",
    },
    "run_killed_not_oom": {
        "en": "the command was killed by SIGKILL (exit {code}), but the cgroup's OOM-kill counter did not change: "
        "not an out-of-memory kill as far as triage can see.",
        "zh": "命令被 SIGKILL 杀掉（退出码 {code}），但 cgroup 的 OOM-kill 计数没有变化："
        "就 triage 所见，不是内存不足导致的。",
    },
    "run_log_kept": {"en": "the command's output is kept in {path}", "zh": "命令的输出保存在 {path}"},
    "run_log_kept_aside": {"en": "(its output is kept in {path})", "zh": "（输出保存在 {path}）"},
    "run_log_stopped": {
        "en": "the copy of the output stopped early ({why})",
        "zh": "输出的副本提前中断了（{why}）",
    },
    "run_peak": {
        "en": "highest memory figure in the output: {metric} {size} (log:{line})",
        "zh": "输出中最高的内存数字：{metric} {size}（log:{line}）",
    },
    # the TUI (triage/tui/widgets/ranking.py)
    "rank_ranking": {"en": "Ranking", "zh": "原因排名"},
    "rank_unknown": {"en": "not known yet", "zh": "尚未知道"},
}


def t(key: str, lang: str) -> str:
    """The string ``key`` in ``lang`` (English when missing)."""
    entry = STRINGS[key]
    return entry.get(lang, entry["en"])
