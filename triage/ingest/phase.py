"""Where in the run it failed: the phase, the step reached, and how memory moved before it.

All three are read from a :class:`~triage.ingest.logscan.LogDigest`: the phase
from the frames of the final traceback (or, without one, from the last phase
marker logged before the error), the step from the training progress bar or
logged ``step N`` lines, and the memory trend from memory figures logged
step after step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from triage.ingest.found import Found, excerpt
from triage.ingest.logscan import Line, LogDigest, MemorySample, Progress

#: Markers of each phase in traceback frames (function names or code), strongest phase first.
PHASE_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("merging", re.compile(r"\bmerge_and_unload\b|\bmerge_adapter\b|\b_unload_and_optionally_merge\b|\bmerge\(")),
    (
        "saving",
        re.compile(
            r"\bsave_pretrained\b|\bsave_model\b|\b_save_checkpoint\b|\b_save\b|\bsave_state\b|\bsave_checkpoint\b"
            r"|\bsafe_save_file\b|\btorch\.save\b|\bconsolidated_state_dict\b|\b_zero3_consolidated_16bit_state_dict\b"
        ),
    ),
    (
        "loading",
        re.compile(
            r"\bfrom_pretrained\b|\bload_state_dict\b|\b_load_from_checkpoint\b|\b_load_optimizer_and_scheduler\b"
            r"|\bload_checkpoint\b|\b_load_pretrained_model\b|\bload_checkpoint_and_dispatch\b|\bload_model\b"
            r"|\bdispatch_model\b|\bprepare_model_for_kbit_training\b|\bget_peft_model\b|\bmodel\.to\(|\.cuda\(\)"
            # DeepSpeed's engine moving the model to its card while it is set up (deepspeed.initialize), before any step
            r"|\b_configure_distributed_model\b|\bself\.module\.to\("
            # Module.to()/.cuda() moving the weights: 'nn/modules/module.py", line 987, in convert'
            r'|nn/modules/module\.py", line \d+, in (?:convert|_apply)\b'
        ),
    ),
    (
        "generation",
        re.compile(
            r"\bgenerate\b|\b_sample\b|\bbeam_search\b|\bgreedy_search\b|\b_beam_search\b|\bcontrastive_search\b"
            r"|\b_generate_and_score_completions\b"
        ),
    ),
    (
        "evaluation",
        re.compile(
            r"\bevaluate\b|\bevaluation_loop\b|\bprediction_step\b|\bprediction_loop\b|\bpredict\b|\b_evaluate\b"
            r"|\beval_step\b|\bvalidation_step\b"
        ),
    ),
    (
        "optimizer",
        re.compile(
            r"optimizer\.step\(|\boptimizer_step\b|torch/optim/|\b_init_group\b|\b_multi_tensor_adamw?\b"
            r"|\b_single_tensor_adamw?\b|\b_fused_adamw?\b|bitsandbytes/optim/|\bupdate_step\b|\binit_state\b"
            r"|\bscaler\.step\(|stage_1_and_2\.py\", line \d+, in step|stage3\.py\", line \d+, in step"
        ),
    ),
    (
        "backward",
        re.compile(
            r"\bbackward\b|\b_engine_run_backward\b|\brun_backward\b|torch/autograd/__init__\.py|\bunpack_hook\b"
            r"|\brecompute_fn\b"
        ),
    ),
    ("forward", re.compile(r"\bforward\b|\b_call_impl\b|\b_wrapped_call_impl\b|\bcompute_loss\b|\btraining_step\b")),
    # the training loop itself, in a traceback cut before the step's own frames (a pasted head, "[... trimmed]"):
    # during training, not which part of the step
    (
        "training",
        re.compile(
            r"\btrainer\.train\(|\b_inner_training_loop\b|\binner_training_loop\(|\btrain_batch\b|\btrainer\.fit\("
            r'|trainer\.py", line \d+, in train\b'
        ),
    ),
)

#: transformers' loading bar at its end ("Loading checkpoint shards: 100%|...| 4/4" in 4.x, "Loading weights: 100%|...|
#: 291/291" in 5.x, core_model_loading.py): the model loaded, and whatever failed came after.
LOAD_BAR_DONE = re.compile(r"Loading (?:checkpoint shards|weights)\b[^\n]{0,12}?(?:100\s*%|(?<!\d)(\d+)/\1(?!\d))")

#: Phase markers printed by the trainers themselves, for logs without a traceback.
CLUE_PHASES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("merging", re.compile(r"merge_and_unload|Merging (?:LoRA|lora|adapter)", re.IGNORECASE)),
    ("saving", re.compile(r"Saving model checkpoint|Saving checkpoint", re.IGNORECASE)),
    ("evaluation", re.compile(r"Running (?:Evaluation|Prediction)|\bEvaluating\b", re.IGNORECASE)),
    ("loading", re.compile(r"Loading checkpoint shards|Loading (?:model|base model|weights)", re.IGNORECASE)),
    ("generation", re.compile(r"\bGenerating\b", re.IGNORECASE)),
)

_FRAME = re.compile(r'File "([^"]+)", line \d+, in (\S+)|File (\S+?):\d+, in (\w+)|│\s*(\S+?):\d+ in (\w+)')
_NON_TRAINING_BAR = re.compile(
    r"load|map|filter|token|download|fetch|generat|convert|shard|eval|predict|preprocess|format|packing|apply|"
    r"running|extract|merg|sav|quantiz|upload",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Traceback:
    """The frames of one traceback: (line number, frame text, code line)."""

    frames: tuple[tuple[int, str], ...]


def traceback_frames(window: Sequence[Line], until: int | None = None) -> list[tuple[int, str]]:
    """Frame and code lines of the last traceback that starts before line ``until`` in a window."""
    start = None
    for i, line in enumerate(window):
        if until is not None and line.number > until:
            break
        if "Traceback (most recent call last)" in line.text:
            start = i
    frames: list[tuple[int, str]] = []
    if start is None:  # a pasted tail of a traceback: its frames without the header
        return [
            (ln.number, ln.text) for ln in window if (until is None or ln.number <= until) and _FRAME.search(ln.text)
        ]
    for line in window[start + 1 :]:
        if until is not None and line.number > until:
            break
        if _FRAME.search(line.text) or line.text.startswith((" ", "\t", "│", "-->")):
            frames.append((line.number, line.text))
        elif frames:
            break
    return frames


def phase_from_frames(frames: Sequence[tuple[int, str]]) -> Found | None:
    """The strongest phase any frame shows."""
    for phase, pattern in PHASE_MARKERS:
        for number, text in frames:
            if pattern.search(text):
                return Found("phase", phase, number, excerpt(text))
    return None


def phase_from_clues(clues: Sequence[Line], before: int | None) -> Found | None:
    """The phase the last trainer marker before line ``before`` announces."""
    for line in reversed(clues):
        if before is not None and line.number > before:
            continue
        for phase, pattern in CLUE_PHASES:
            if pattern.search(line.text):
                if phase == "loading" and LOAD_BAR_DONE.search(line.text):
                    return None  # loading finished; the failure came later
                return Found("phase", phase, line.number, excerpt(line.text), "the last phase logged before the error")
        return None
    return None


def training_bar(bars: Sequence[Progress], before: int | None = None) -> Progress | None:
    """The training progress bar: no description (or a training one), the largest total, last updated."""
    candidates = [
        b for b in bars
        if (before is None or b.line <= before) and not _NON_TRAINING_BAR.search(b.desc) and b.total
    ]  # fmt: skip
    if not candidates:
        return None
    largest = max(b.total or 0 for b in candidates)
    return [b for b in candidates if b.total == largest][-1]


def step_reached(digest: LogDigest, before: int | None) -> Found | None:
    """oom_step from the training bar ('35/1000' is step 35) or the last logged step."""
    bar = training_bar(digest.bars, before)
    steps = [s for s in digest.steps if before is None or s.line <= before]
    if bar is not None:
        return Found("oom_step", bar.n, bar.line, excerpt(bar.text))
    if steps:
        last = steps[-1]
        return Found("oom_step", last.n, last.line, excerpt(last.text))
    return None


def classify_growth(values: Sequence[int]) -> str | None:
    """steady, growing or spike for a series of memory figures (None when too short or unclear)."""
    if len(values) < 4:
        return None
    top, low = max(values), min(values)
    if top <= 0:
        return None
    span = top - low
    if span <= 0.05 * top:
        return "steady"
    deltas = [b - a for a, b in pairwise(values)]
    rises = sum(1 for d in deltas if d > 0.002 * top)
    falls = sum(1 for d in deltas if d < -0.002 * top)
    biggest = max(deltas)
    net = values[-1] - values[0]
    if rises >= 0.6 * len(deltas) and falls <= 0.2 * len(deltas) and net >= 0.05 * top and biggest < 0.5 * net:
        return "growing"
    if biggest >= 0.5 * span and span >= 0.1 * top:
        return "spike"
    return None


_PREFERRED = re.compile(r"allocated|active|used|usage|显存")


def memory_trend(memory: dict[str, tuple[MemorySample, ...]]) -> Found | None:
    """memory_growth from the longest memory series (allocated/active figures first)."""
    series = sorted(
        memory.values(), key=lambda s: (len(s) >= 4 and bool(_PREFERRED.search(s[0].metric)), len(s)), reverse=True
    )
    for samples in series:
        trend = classify_growth([s.value for s in samples])
        if trend is not None:
            last = samples[-1]
            note = f"{len(samples)} readings of {last.metric} from line {samples[0].line} to {last.line}"
            return Found("memory_growth", trend, last.line, excerpt(last.text), note)
    return None


def findings(digest: LogDigest, error_line: int | None) -> list[Found]:
    """phase, oom_step and memory_growth for the error at ``error_line`` (the final one)."""
    out: list[Found] = []
    phase = None
    for window in reversed(digest.windows):
        if error_line is not None and not any(line.number == error_line for line in window):
            continue
        phase = phase_from_frames(traceback_frames(window, None))
        if phase is None:
            phase = phase_from_frames(traceback_frames(window, error_line))
        break
    if phase is None and error_line is not None:
        phase = phase_from_clues(digest.clues, error_line)
    if phase is not None:
        out.append(phase)
    step = step_reached(digest, error_line)
    if step is not None:
        out.append(step)
    trend = memory_trend(digest.memory)
    if trend is not None:
        out.append(trend)
    return out
