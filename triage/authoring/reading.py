"""The readers against what real threads state: per fact, how often the reader reads a value from the
report and how often that value is the one the thread states.

Each corpus record lists the facts its whole thread reveals (``facts``: the first post and the later
comments). The reader sees only the title and the first post, so a fact it does not read may simply
not be in them (recall is bounded by what first posts say); a value it reads that differs from the
thread's is a misreading or a fact the thread later corrected (precision is the measure of the reader).

The thread's value is read the way the interview reads a typed answer (``read_answer``), so both
sides are in the knowledge base's vocabulary. GPU names are compared without their memory size
("A100 40GB" and "A100" agree: the size is a fact of its own); model names by the size in billions
the readers derive, when both sides have one, else by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from triage import api
from triage.corpus import Record
from triage.interview import read_answer
from triage.kb.loader import KnowledgeBase

#: The facts compared: the ones a report states often enough to measure, and the engine reasons on.
COMPARED = (
    "phase",
    "error_kind",
    "model_name",
    "gpu_name",
    "gpu_count",
    "finetune_method",
    "batch_size",
    "distributed",
    "trainer_type",
    "max_length",
    "zero_stage",
    "quantization",
    "memory_growth",
    "gradient_checkpointing",
    "torch_version",
    "transformers_version",
    "attn_implementation",
    "eval_batch_size",
    "offload",
)

_GPU_NOISE = re.compile(r"\b(?:nvidia|geforce|tesla|rtx|gpu)\b|\d+\s*gb?\b|[\s_-]+", re.I)


def _gpu(value: object) -> str:
    return _GPU_NOISE.sub("", str(value).lower())


def _release(value: object) -> tuple[int, ...] | str:
    """A version without its local build tag, trailing zeros dropped ("2.5.1+cu124" = "2.5.1", "1.6" = "1.6.0")."""
    try:
        release = Version(str(value)).release
    except InvalidVersion:
        return str(value).lower()
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    return release


def _model(value: object) -> str:
    name = str(value).lower().rsplit("/", 1)[-1]
    return re.sub(r"[\s_.-]+|hf$", "", name)


def _size(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def agree(name: str, thread: object, read: object, thread_size: float | None, read_size: float | None) -> bool:
    """Whether the reader's value for ``name`` is the one the thread states."""
    if name == "gpu_name":
        return _gpu(thread) == _gpu(read)
    if name == "model_name":
        if thread_size is not None and read_size is not None:
            return abs(thread_size - read_size) <= 0.15 * max(thread_size, read_size)
        a, b = _model(thread), _model(read)
        return bool(a) and bool(b) and (a in b or b in a)
    if name.endswith("_version"):
        return _release(thread) == _release(read)
    return str(thread).lower() == str(read).lower()


@dataclass
class Tally:
    """Counts for one fact: stated by the thread, read from the report, and read right."""

    stated: int = 0
    read: int = 0
    right: int = 0
    wrong: list[tuple[str, str, str]] = field(default_factory=list)  # (url, thread's value, reader's value)

    def add(self, other: Tally) -> None:
        self.stated += other.stated
        self.read += other.read
        self.right += other.right
        self.wrong += other.wrong

    @property
    def precision(self) -> float:
        return self.right / self.read if self.read else 0.0

    @property
    def recall(self) -> float:
        return self.right / self.stated if self.stated else 0.0


def compare(kb: KnowledgeBase, records: Iterable[Record]) -> dict[str, Tally]:
    """Per compared fact, the reader's reading of each record (title, then first post) against its thread."""
    tallies = {name: Tally() for name in COMPARED}
    for record in records:
        session = api.build_session(kb, symptoms=[f"{record.title}\n{record.report}"], lang=record.lang)
        facts = session.facts
        for name in COMPARED:
            stated = record.facts.get(name)
            spec = kb.facts.get(name)
            if stated is None or spec is None:
                continue
            answer, taken = read_answer(kb, spec, str(stated))
            if answer is None:
                continue
            tally = tallies[name]
            tally.stated += 1
            got = facts.value(name) if name in facts else None
            if got is None:
                continue
            tally.read += 1
            if name == "finetune_method" and got == "lora" and facts.value("quantization") == "4bit":
                got = "qlora"  # LoRA on a 4-bit base, read as two facts, is what a thread calls QLoRA
            thread_size = _size(next((f.value for f in taken.facts if f.name == "model_params_b"), None))
            read_size = _size(facts.value("model_params_b") if "model_params_b" in facts else None)
            if agree(name, answer, got, thread_size, read_size):
                tally.right += 1
            else:
                tally.wrong.append((record.url, str(answer), str(got)))
    return tallies


def total(tallies: dict[str, Tally]) -> Tally:
    """All compared facts as one."""
    out = Tally()
    for t in tallies.values():
        out.add(t)
    return out


def table(title: str, tallies: dict[str, Tally]) -> list[str]:
    rows = sorted(tallies.items(), key=lambda kv: -kv[1].stated)
    head = "| fact | stated | read | read right | precision | recall |"
    lines = [f"## {title}", "", head, "|---|---|---|---|---|---|"]
    for name, t in [*rows, ("all", total(tallies))]:
        if t.stated:
            lines.append(f"| {name} | {t.stated} | {t.read} | {t.right} | {t.precision:.2f} | {t.recall:.2f} |")
    return [*lines, ""]


def merge(*parts: dict[str, Tally]) -> dict[str, Tally]:
    """Tallies of several record sets added up (per language, then all)."""
    out = {name: Tally() for name in COMPARED}
    for part in parts:
        for name, t in part.items():
            out[name].add(t)
    return out
