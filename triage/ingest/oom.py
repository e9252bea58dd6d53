"""Read the out-of-memory message itself: which kind it is and every number it prints.

Generations handled (shared/reference/landscape.md, D1):

- legacy: ``cuda runtime error (2) : out of memory``, ``THCudaCheck FAIL``, ``CUDA error: out of memory``
  and NCCL's ``Cuda failure 'out of memory'`` (no numbers);
- up to 2.0: ``Tried to allocate X (GPU 0; C total capacity; A already allocated; F free;
  [L allowed;] R reserved in total by PyTorch)`` with the ``max_split_size_mb`` hint;
- 2.1 and later: ``Tried to allocate X. GPU 0 has a total capac(i)ty of C of which F is free.
  [Process N has M memory in use.] [Including non-PyTorch memory, this process has P memory in use.]
  Of the allocated memory A is allocated by PyTorch, [with Q allocated in private pools (e.g., CUDA
  Graphs),] and U is reserved by PyTorch but unallocated.`` with the ``max_split_size_mb`` or
  ``expandable_segments`` hint; truncated copies keep whatever numbers survived;
- HIP/XPU/MPS variants, host RAM (``DefaultCPUAllocator``, ``Killed``, exit code -9/137, oom-kill,
  ``MemoryError``), ``CUBLAS_STATUS_ALLOC_FAILED``, accelerate's ``No executable batch size found``,
  DeepSpeed launcher return codes and bitsandbytes' ``Error out of memory at line N in file ...``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from triage.facts import unit_bytes
from triage.ingest.found import Found, excerpt
from triage.ingest.logscan import Line

SIZE = r"(?<![0-9])([0-9]+(?:\.[0-9]+)?)\s*(bytes|byte|KiB|MiB|GiB|TiB|KB|MB|GB|TB|B)\b"


def size_bytes(value: str, unit: str) -> int:
    """``("20.00", "MiB")`` -> 20971520; torch prints binary units."""
    return int(float(value) * unit_bytes(unit))


#: Message signatures, most specific first: (regex, error_kind, label).
SIGNATURES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"No executable batch size found, reached zero"), "no_executable_batch", "accelerate"),
    (re.compile(r"CUBLAS_STATUS_ALLOC_FAILED"), "cublas_alloc", "cublas"),
    (re.compile(r"\b(?:CUDA|HIP|XPU) out of memory"), "cuda_oom", "torch"),
    (re.compile(r"MPS backend out of memory"), "cuda_oom", "mps"),
    (re.compile(r"OutOfMemoryError"), "cuda_oom", "torch"),
    (re.compile(r"cuda runtime error \(2\) : out of memory|THCudaCheck FAIL.*out of memory"), "cuda_oom", "legacy"),
    # also the driver API's name (JAX, TensorFlow, CuPy) and llama.cpp's / ggml's allocation failure
    (
        re.compile(
            r"CUDA error: out of memory|Cuda failure '?out of memory|CUDA_ERROR_OUT_OF_MEMORY"
            r"|cudaMalloc failed: out of memory"
        ),
        "cuda_oom",
        "cuda",
    ),
    # cuDNN could not allocate its workspace: the card was full when a convolution (a vision tower, an audio encoder)
    # or an RNN ran, "RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED"
    (re.compile(r"CUDNN_STATUS_ALLOC_FAILED"), "cuda_oom", "cudnn"),
    (
        re.compile(r"Error out of memory at line \d+ in file \S*(?:bitsandbytes|pythonInterface|ops)\S*"),
        "cuda_oom",
        "bitsandbytes",
    ),
    # TensorFlow's and XLA's (JAX's) own words: "Resource exhausted: OOM when allocating tensor with shape[3072,768] and
    # type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc" (Chinese-XLNet#38)
    (
        re.compile(
            r"OOM when allocating tensor\b[^\n]{0,200}?device:(?:GPU|TPU)"
            r"|RESOURCE_EXHAUSTED: Out of memory while trying"
        ),
        "cuda_oom",
        "tensorflow",
    ),
    (re.compile(r"OOM when allocating tensor\b[^\n]{0,200}?device:CPU"), "host_oom", "tensorflow"),
    (
        re.compile(r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory)", re.IGNORECASE),
        "host_oom",
        "cpu-allocator",
    ),
    # Windows ran out of virtual memory (commit charge) while loading: "OSError: [WinError 1455] The paging file is too
    # small for this operation to complete" (页面文件太小，无法完成操作)
    (re.compile(r"WinError 1455|paging file is too small|页面文件太小"), "host_oom", "windows-pagefile"),
    (re.compile(r"\bMemoryError\b"), "host_oom", "python"),
    (
        re.compile(r"oom[-_]kill|OOMKilled|Out of memory: Kill(?:ed)? process|Memory cgroup out of memory"),
        "host_oom",
        "oom-killer",
    ),
    (
        re.compile(
            r"exit\s?code\s*+[:=]?\s*+-9\b|exit (?:status|code):?\s*(?:-9|137)\b|return\s?code\s*+[:=]?\s*+-9\b"
            r"|exitcode\s*:\s*-9\b|died with <Signals\.SIGKILL: 9>|signal 9 \(SIGKILL\)|Signal 9 \(SIGKILL\)"
        ),
        "host_oom",
        "sigkill",
    ),
    # also glued to a progress bar ("0/2 [00:00<?, ?it/s]Killed") or after a shell job number ("[1]+  Killed")
    (
        # zsh says it in lower case: "[1]    26478 killed     python test.py" (Baichuan2#138)
        re.compile(
            r"^\s*Killed\s*$|^\s*Killed\s+\S|(?<!\d)\d+\s+Killed\s+\S|: Killed$|\]\+?\s*Killed(?:\s|$)"
            r"|\[\d+\]\s+\d+\s+killed\s+\S"
        ),
        "host_oom",
        "killed",
    ),
)

_TAKE_LINES = 8
_MESSAGE_END = re.compile(r"Traceback \(most recent call last\)|^\s+File \"")


@dataclass(frozen=True)
class OomReport:
    """One out-of-memory (or OOM-adjacent) message and the numbers in it."""

    kind: str
    """The error_kind value: cuda_oom, host_oom, cublas_alloc or no_executable_batch."""
    label: str
    """Which signature matched (torch, legacy, bitsandbytes, sigkill, ...)."""
    line: int | None
    text: str
    generation: str | None = None
    """'2.1+' or 'pre-2.1' when the message has the allocator's numbers."""
    device: int | None = None
    requested: int | None = None
    capacity: int | None = None
    free: int | None = None
    allocated: int | None = None
    reserved_total: int | None = None
    reserved_unallocated: int | None = None
    allowed: int | None = None
    process_total: int | None = None
    processes: tuple[tuple[int, int], ...] = field(default_factory=tuple)
    """Other processes listed in the message: (pid, bytes)."""
    private_pools: int | None = None
    hint: str | None = None
    """'expandable_segments' or 'max_split_size_mb' when the message suggests one."""
    truncated: bool = False

    @property
    def has_numbers(self) -> bool:
        return self.requested is not None or self.capacity is not None


def _first(pattern: str, text: str) -> int | None:
    m = re.search(pattern, text)
    return size_bytes(m.group(m.lastindex - 1), m.group(m.lastindex)) if m and m.lastindex else None


def parse_message(text: str, line: int | None = None) -> OomReport | None:
    """The last OOM signature in ``text`` (one message, possibly wrapped) and its numbers."""
    best: tuple[int, str, str] | None = None
    for pattern, kind, label in SIGNATURES:
        m = pattern.search(text)
        if m:
            best = (m.start(), kind, label)
            break
    if best is None:
        return None
    start, kind, label = best
    flat = " ".join(text.split())
    report = OomReport(kind, label, line, excerpt(text[max(0, start - 40) :]))
    if kind == "cuda_oom":
        return _cuda_numbers(report, flat)
    if label == "cpu-allocator":
        m = re.search(r"you tried to allocate (\d+) bytes", flat)
        if m:
            return _replace(report, requested=int(m.group(1)))
    return report


def _replace(report: OomReport, **changes: object) -> OomReport:
    from dataclasses import replace

    return replace(report, **changes)  # type: ignore[arg-type]


def _cuda_numbers(report: OomReport, flat: str) -> OomReport:
    requested = _first(r"Tried to allocate " + SIZE, flat)
    hint = (
        "expandable_segments"
        if "expandable_segments" in flat
        else ("max_split_size_mb" if "max_split_size_mb" in flat else None)
    )
    if report.label == "mps":
        allocated = _first(r"MPS allocated: " + SIZE, flat)
        allowed = _first(r"max allowed: " + SIZE, flat)
        return _replace(report, requested=requested, allocated=allocated, allowed=allowed)
    new_cap = re.search(r"GPU (\d+) has a total capac(?:i)?ty of " + SIZE, flat)
    old_cap = re.search(r"\(GPU (\d+); " + SIZE + r" total capacity", flat)
    if new_cap:
        processes = tuple(
            (int(m.group(1)), size_bytes(m.group(2), m.group(3)))
            for m in re.finditer(r"Process (\d+) has " + SIZE + r" memory in use", flat)
        )
        return _replace(
            report,
            generation="2.1+",
            device=int(new_cap.group(1)),
            requested=requested,
            capacity=size_bytes(new_cap.group(2), new_cap.group(3)),
            free=_first(r"of which " + SIZE + r" is free", flat),
            process_total=_first(r"this process has " + SIZE + r" memory in use", flat),
            processes=processes,
            allocated=_first(r"Of the allocated memory " + SIZE + r" is allocated by PyTorch", flat),
            private_pools=_first(r"with " + SIZE + r" allocated in private pools", flat),
            reserved_unallocated=_first(SIZE + r" is reserved by PyTorch but unallocated", flat),
            hint=hint,
            truncated="reserved by PyTorch but unallocated" not in flat,
        )
    if old_cap:
        allocated = _first(SIZE + r" already allocated", flat)
        reserved = _first(SIZE + r" reserved in total by PyTorch", flat)
        unallocated = reserved - allocated if reserved is not None and allocated is not None else None
        return _replace(
            report,
            generation="pre-2.1",
            device=int(old_cap.group(1)),
            requested=requested,
            capacity=size_bytes(old_cap.group(2), old_cap.group(3)),
            allocated=allocated,
            free=_first(SIZE + r" free\b", flat),
            allowed=_first(SIZE + r" allowed", flat),
            reserved_total=reserved,
            reserved_unallocated=max(unallocated, 0) if unallocated is not None else None,
            hint=hint,
            truncated=reserved is None,
        )
    return _replace(report, requested=requested, hint=hint, truncated=requested is not None)


def find_reports(lines: Sequence[Line]) -> list[OomReport]:
    """Every OOM message in a window of log lines, in order, with the line each starts on."""
    reports: list[OomReport] = []
    for i, line in enumerate(lines):
        if not any(p.search(line.text) for p, _, _ in SIGNATURES):
            continue
        parts = [line.text]
        for nxt in lines[i + 1 : i + _TAKE_LINES]:
            if _MESSAGE_END.search(nxt.text) or any(p.search(nxt.text) for p, _, _ in SIGNATURES[:7]):
                break
            parts.append(nxt.text)
        report = parse_message("\n".join(parts), line.number)
        if report is not None:
            reports.append(report)
    return reports


_EXPLICIT = {
    "torch", "mps", "legacy", "cuda", "bitsandbytes", "cublas", "accelerate", "cpu-allocator", "python", "tensorflow",
    "windows-pagefile", "cudnn",
}  # fmt: skip


def final_report(reports: Sequence[OomReport]) -> OomReport | None:
    """The report that ended the run: the last explicit message, else the last indirect sign (Killed, -9)."""
    explicit = [r for r in reports if r.label in _EXPLICIT]
    pool = explicit or list(reports)
    return pool[-1] if pool else None


def findings(report: OomReport, reports: Sequence[OomReport] = ()) -> list[Found]:
    """The facts an OOM report states, and the ones derived from its numbers."""
    out = [Found("error_kind", report.kind, report.line, report.text)]
    numbered = report
    if report.kind == "cuda_oom" and not report.has_numbers:
        with_numbers = [r for r in reports if r.kind == "cuda_oom" and r.has_numbers]
        if with_numbers:
            numbered = with_numbers[-1]
    at, said = numbered.line, numbered.text

    def add(name: str, value: object, note: str | None = None) -> None:
        if value is not None:
            out.append(Found(name, value, at, said, note))

    add("oom_requested_bytes", numbered.requested)
    if numbered.kind == "cuda_oom":
        add("gpu_memory_bytes", numbered.capacity)
        add("oom_free_bytes", numbered.free)
        add("torch_allocated_bytes", numbered.allocated)
        add("process_total_bytes", numbered.process_total)
        unalloc_note = "reserved in total minus already allocated" if numbered.generation == "pre-2.1" else None
        add("torch_reserved_unallocated_bytes", numbered.reserved_unallocated, unalloc_note)
        siblings = launch_siblings(numbered)
        if siblings:
            pids = ", ".join(str(pid) for pid in siblings)
            add("all_ranks_on_gpu0", True, f"processes {pids} (PIDs started together, one launch) all hold GPU 0")
        other = other_process_bytes(numbered)
        if other is not None:
            add("other_process_bytes", other[0], other[1])
            if numbered.requested is not None and numbered.free is not None:
                # would freeing the other processes have let the failed allocation through?
                add("other_process_covers_deficit", other[0] >= numbered.requested - numbered.free)
        if numbered.allocated is not None and numbered.reserved_unallocated is not None:
            held = numbered.allocated + numbered.reserved_unallocated
            if held > 0:
                add("fragmentation_ratio", round(numbered.reserved_unallocated / held, 4))
        if numbered.requested is not None and numbered.free is not None:
            add("oom_deficit_bytes", max(numbered.requested - numbered.free, 0))
        if numbered.requested is not None and numbered.capacity:
            # one allocation as large as the card cannot be placed by any allocator setting or freed process
            add("oom_request_gpu_share", round(numbered.requested / numbered.capacity, 2))
        if (
            numbered.generation == "pre-2.1"
            and numbered.capacity
            and numbered.free is not None
            and numbered.allocated is not None
        ):
            # no process list before 2.1: what is neither PyTorch's nor free belongs to something else
            outside = numbered.capacity - numbered.allocated - (numbered.reserved_unallocated or 0) - numbered.free
            add("unaccounted_gpu_share", round(max(outside, 0) / numbered.capacity, 2))
    return out


# A launcher (torchrun, accelerate, deepspeed, pytest-xdist) starts its processes one after another, so their
# PIDs lie within a few numbers of each other; a notebook kernel or another user's job was started at another time.
_SIBLING_GAP = 16
_SIBLING_SPAN = 64


def launch_siblings(report: OomReport) -> tuple[int, ...]:
    """PIDs listed on GPU 0 that one launch started: two or more whose PIDs lie close together.

    Each rank of a job that placed itself on its own GPU shows only on that GPU; several of them listed on GPU 0
    mean the ranks all chose cuda:0 (openvla-oft#28, development: five ranks of one torchrun on GPU 0).
    """
    if report.device != 0 or len(report.processes) < 2:
        return ()
    pids = sorted(pid for pid, _ in report.processes)
    groups: list[list[int]] = [[pids[0]]]
    for pid in pids[1:]:
        if pid - groups[-1][-1] <= _SIBLING_GAP:
            groups[-1].append(pid)
        else:
            groups.append([pid])
    best = max(groups, key=len)
    return tuple(best) if len(best) >= 2 and best[-1] - best[0] <= _SIBLING_SPAN else ()


def other_process_bytes(report: OomReport) -> tuple[int, str | None] | None:
    """Memory held by other processes, when the message lets us tell (2.1+ NVML accounting).

    With ``this process has ...`` present, every ``Process N`` line is another process. Without it
    (NVML could not match our pid, as in containers), a listed process at least as large as what
    PyTorch holds is taken to be this one.
    """
    if report.generation != "2.1+":
        return None
    if report.process_total is not None:
        return sum(mem for _, mem in report.processes), None
    if not report.processes:
        return None
    held = (report.allocated or 0) + (report.reserved_unallocated or 0)
    others = list(report.processes)
    mine = max(others, key=lambda p: p[1])
    if held and mine[1] >= held:
        others.remove(mine)
        note = f"process {mine[0]} ({mine[1] / 1024**3:.2f} GiB) taken to be the training process itself"
        return sum(mem for _, mem in others), note
    return None
