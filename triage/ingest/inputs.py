"""The one entry point: read everything the user gave, merge the facts, say where each came from.

Precedence when two inputs disagree: ``--fact`` > the watcher's report and a memory snapshot (measured
in the run) > config > env report > log > symptom text;
between inputs of the same kind the later one on the command line wins. Every disagreement
is reported as a :class:`Conflict` naming what was believed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO

from packaging.version import InvalidVersion, Version

from triage.facts import Fact
from triage.facts.spec import FactSpec, FactType
from triage.ingest.config import read_config
from triage.ingest.env import read_env
from triage.ingest.errors import IngestError
from triage.ingest.found import Found, to_facts
from triage.ingest.lines import iter_file_lines, iter_text_lines, open_sample, read_small
from triage.ingest.log import read_log_lines
from triage.ingest.sniff import sniff
from triage.ingest.text import read_lines

if TYPE_CHECKING:
    from triage.ingest.snapshot import SnapshotMemory

#: The higher, the more believed.
RANK = {"symptom": 0, "log": 1, "env": 2, "config": 3, "report": 3.5, "snapshot": 3.5, "cli": 4, "answer": 4, "case": 4}
#: Cap of the text handed to text signals (symptoms first, then log excerpts).
TEXT_LIMIT = 64 * 1024
_SNIFF_BYTES = 1 << 20


@dataclass(frozen=True)
class Conflict:
    """Two inputs that disagree on a fact, and which one was believed."""

    name: str
    kept: Fact
    dropped: Fact

    def describe(self) -> str:
        why = (
            "said later"
            if RANK[self.kept.source.kind] == RANK[self.dropped.source.kind]
            else (f"{self.kept.source.kind} beats {self.dropped.source.kind}")
        )
        return (
            f"{self.name}: {self.kept.source.describe()} says {self.kept.value}, "
            f"{self.dropped.source.describe()} says {self.dropped.value}; "
            f"believed {self.kept.source.describe()} ({why})"
        )


@dataclass(frozen=True)
class Gathered:
    """Everything read from the inputs, ready for a session."""

    facts: list[Fact]
    text: str
    unknown_keys: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    read_as: list[tuple[str, str]] = field(default_factory=list)
    """(path, kind) for every input file, e.g. ('train.log', 'log'), ('args.json', 'config:trl')."""
    model_configs: list[tuple[str, Mapping[str, object]]] = field(default_factory=list)
    """(where, config) of the model configs inside watcher reports, for the estimator's architecture."""
    snapshot: SnapshotMemory | None = None
    """The live memory of a memory snapshot (``--snapshot``), by component."""


def agree(spec: FactSpec | None, a: object, b: object) -> bool:
    """Whether two values of a fact say the same thing (sizes within 10%, versions by prefix)."""
    if a == b:
        return True
    kind = spec.type if spec is not None else None
    if kind is FactType.bytes and isinstance(a, int) and isinstance(b, int):
        return abs(a - b) <= 0.1 * max(abs(a), abs(b))
    if kind is FactType.float and isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 0.02 * max(abs(a), abs(b))
    if kind is FactType.version:
        try:
            ra, rb = Version(str(a)).release, Version(str(b)).release
        except InvalidVersion:
            return False
        short = min(len(ra), len(rb))
        return ra[:short] == rb[:short]
    if kind is FactType.text:
        x, y = str(a).casefold(), str(b).casefold()
        return x in y or y in x
    return False


@dataclass
class _Merger:
    specs: Mapping[str, FactSpec]
    chosen: dict[str, Fact] = field(default_factory=dict)
    conflicts: list[Conflict] = field(default_factory=list)

    def add(self, fact: Fact) -> None:
        current = self.chosen.get(fact.name)
        if current is None:
            self.chosen[fact.name] = fact
            return
        new_rank, old_rank = RANK.get(fact.source.kind, 0), RANK.get(current.source.kind, 0)
        same_input = current.source.path == fact.source.path and current.source.kind == fact.source.kind
        wins = new_rank > old_rank or (new_rank == old_rank and not same_input)
        if agree(self.specs.get(fact.name), current.value, fact.value):
            if wins and new_rank > old_rank:
                self.chosen[fact.name] = fact
            return
        kept, dropped = (fact, current) if wins else (current, fact)
        self.chosen[fact.name] = kept
        self.conflicts.append(Conflict(fact.name, kept, dropped))


def _derive_capacity_share(chosen: dict[str, Fact], capacities: Sequence[Fact], stated: Sequence[Fact]) -> None:
    """The OOM message's card as a share of the GPU the user says they have (``oom_capacity_stated_share``).

    ``capacities`` are the total capacities OOM messages report, ``stated`` every other reading of the GPU's memory
    (the text, an environment report, a config, a flag). A message's card with a fraction of the stated one is a
    different, smaller GPU (or a MIG slice) than the one the user meant to run on. The last message counts; against
    the largest card stated, so that of two cards named, the message is weighed against the one the user expects.
    """
    if not capacities or not stated or "oom_capacity_stated_share" in chosen:
        return
    last = capacities[-1]
    largest = max(stated, key=lambda f: f.value if isinstance(f.value, int) else 0)
    if not isinstance(last.value, int) or not isinstance(largest.value, int) or largest.value <= 0:
        return
    chosen["oom_capacity_stated_share"] = Fact(
        "oom_capacity_stated_share", round(last.value / largest.value, 2), last.source
    )


def _claim_stdin(path: str, used: list[bool]) -> None:
    if path == "-":
        if used[0]:
            raise IngestError("- (standard input) can be read only once; give the other inputs as files")
        used[0] = True


def _sniff_file(path: str) -> tuple[str, BinaryIO | None]:
    """The kind of ``path``, and for a pipe (read only once) the stream its reader must use."""
    if path == "-":
        peek = getattr(sys.stdin.buffer, "peek", None)
        sample = peek(_SNIFF_BYTES)[:_SNIFF_BYTES] if peek is not None else b""
        return sniff(sample.decode("utf-8", errors="replace"), "-"), None
    sample, stream = open_sample(path, _SNIFF_BYTES)
    return sniff(sample.decode("utf-8", errors="replace"), path), stream


def gather(
    specs: Mapping[str, FactSpec],
    *,
    symptoms: Sequence[str] = (),
    logs: Sequence[str] = (),
    envs: Sequence[str] = (),
    configs: Sequence[str] = (),
    inputs: Sequence[str] = (),
    reports: Sequence[str] = (),
    snapshot: str | None = None,
    cli_facts: Iterable[Fact] = (),
) -> Gathered:
    """Read every input and merge the facts; raises :class:`IngestError` for an unreadable file."""
    stdin_used = [False]
    merger = _Merger(specs)
    notes: list[str] = []
    unknown: list[tuple[str, str]] = []
    read_as: list[tuple[str, str]] = []
    excerpts: list[str] = []

    # the GPU's total memory as OOM messages report it, and as everything else says it
    capacities: list[Fact] = []
    stated: list[Fact] = []

    def take(found: Iterable[Found], kind: str, path: str | None, oom: bool = False) -> None:
        facts, problems = to_facts(specs, found, kind, path)
        notes.extend(problems)
        for fact in facts:
            if fact.name == "gpu_memory_bytes":
                (capacities if oom else stated).append(fact)
            merger.add(fact)

    for text in symptoms:
        if not text:
            continue
        reading = read_log_lines(iter_text_lines(text))
        take(reading.found, "symptom", None, oom=True)
        take(read_lines(iter_text_lines(text)), "symptom", None)
        take([f for f in read_env(iter_text_lines(text)) if f.name != "other_process_bytes"], "symptom", None)

    jobs: list[tuple[str, str, BinaryIO | None]] = [(p, "log", None) for p in logs]
    jobs += [(p, "env", None) for p in envs] + [(p, "config", None) for p in configs]
    for path in inputs:
        _claim_stdin(path, stdin_used)
        stdin_used[0] = False  # claimed again below, once
        jobs.append((path, *_sniff_file(path)))
    jobs += [(p, "report", None) for p in reports]
    model_configs: list[tuple[str, Mapping[str, object]]] = []
    memory = None
    if snapshot is not None:
        from triage.ingest.snapshot import read_snapshot, snapshot_findings  # only when asked: the CLI stays quick

        memory = read_snapshot(snapshot)
        take(snapshot_findings(memory), "snapshot", snapshot)
        notes.extend(f"{snapshot}: {n}" for n in memory.notes)
        read_as.append((snapshot, "snapshot"))
    for path, kind, stream in sorted(jobs, key=lambda job: RANK[job[1]]):
        if kind == "report":
            if stream is not None:
                stream.close()  # sniffed from a regular file: read again whole
            if path == "-":
                raise IngestError("a watcher report is read from a file; give its path to --report")
            from triage.ingest.report import read_report  # pydantic models: imported only when a report is read

            report = read_report(path)
            take(report.found, "report", path)
            notes.extend(report.notes)
            unknown.extend((path, key) for key in report.unknown_keys)
            read_as.append((path, "report"))
            if report.model_config:
                model_configs.append((f"{path}#model_config", report.model_config))
            continue
        _claim_stdin(path, stdin_used)
        name = "<stdin>" if path == "-" else path
        if kind == "log":
            reading = read_log_lines(iter_file_lines(path, stream))
            take(reading.found, "log", name, oom=True)
            take(
                read_lines(
                    (ln.number, ln.text) for w in reading.digest.windows[-1:] for ln in w if "Traceback" not in ln.text
                ),
                "log",
                name,
            )
            excerpts.append(reading.excerpt)
            read_as.append((name, "log"))
            if reading.digest.lines_read == 0:
                notes.append(f"{name}: empty")
        elif kind == "env":
            found = read_env(iter_file_lines(path, stream))
            take(found, "env", name)
            read_as.append((name, "env"))
            if not found:
                notes.append(f"{name}: no versions, GPUs or platform found in this environment report")
        else:
            config = read_config(read_small(path, binary=stream), name)
            take(config.found, "config", name)
            unknown.extend((name, key) for key in config.unknown_keys)
            notes.extend(config.notes)
            read_as.append((name, f"config:{config.kind}"))

    for fact in cli_facts:
        if fact.name == "gpu_memory_bytes":
            stated.append(fact)
        merger.add(fact)
    _derive_capacity_share(merger.chosen, capacities, stated)

    text = "\n".join(s for s in symptoms if s)
    for part in excerpts:
        if len(text) >= TEXT_LIMIT:
            break
        text = f"{text}\n{part}" if text else part
    return Gathered(
        facts=list(merger.chosen.values()),
        text=text[:TEXT_LIMIT],
        unknown_keys=unknown,
        conflicts=merger.conflicts,
        notes=notes,
        read_as=read_as,
        model_configs=model_configs,
        snapshot=memory,
    )
