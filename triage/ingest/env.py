"""Read environment reports: versions, GPUs, memory, OS.

Understood, in any mix (users paste several into one file): ``transformers env``
(``transformers-cli env``), ``accelerate env``, ``python -m torch.utils.collect_env``,
``pip freeze``, ``pip list`` / ``conda list``, ``nvidia-smi`` (the table and
``--query-gpu`` CSV), and the compute-capability lines of bitsandbytes and deviceQuery.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from triage.hardware.gpus import GiB, find_mention
from triage.ingest.found import Found, excerpt

#: Package names (normalised: lower case, '-' for '_' and '.') -> version fact.
PACKAGES = {
    "torch": "torch_version",
    "pytorch": "torch_version",
    "transformers": "transformers_version",
    "peft": "peft_version",
    "trl": "trl_version",
    "accelerate": "accelerate_version",
    "bitsandbytes": "bitsandbytes_version",
    "deepspeed": "deepspeed_version",
    "flash-attn": "flash_attn_version",
    "flash-attention": "flash_attn_version",
}

_BULLET_VERSION = re.compile(
    r"^\s*[-*]\s*`?([A-Za-z][\w .-]*?)`?\s+version(?:\s*\([^)]*\))?\s*:\s*(\S+)", re.IGNORECASE
)
_PLAIN_VERSION = re.compile(r"^(PyTorch|Transformers|Accelerate|PEFT|TRL|DeepSpeed) version:\s*(\S+)", re.IGNORECASE)
_PIN = re.compile(r"^(?:\[(?:pip3?|conda)\]\s*)?([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([0-9][^\s;,]*)")
_LISTED = re.compile(r"^(?:\[conda\]\s*)?([A-Za-z0-9][A-Za-z0-9._-]*)\s{2,}([0-9][\w.+!-]*)(?:\s|$)")
_PLATFORM = re.compile(r"^\s*[-*]?\s*(?:Platform|Python platform|OS)\s*:\s*(.+)$")
_GPU_TYPE = re.compile(r"^\s*[-*]\s*GPU type\s*:\s*(.+)$")
_SYSTEM_RAM = re.compile(r"^\s*[-*]\s*System RAM\s*:\s*([0-9.]+)\s*GB", re.IGNORECASE)
_COLLECT_GPUS = re.compile(r"^GPU models and configuration\s*:\s*(.*)$")
_COLLECT_GPU = re.compile(r"^GPU (\d+)\s*:\s*(.+)$")
_SMI_HEADER = re.compile(r"NVIDIA-SMI\s+[\d.]+")
_SMI_GPU = re.compile(r"^\|\s+(\d+)\s+(.+?)\s+(?:On|Off)\s+\|")
_SMI_MEMORY = re.compile(r"(?<!\d)(\d+)\s*MiB\s*/\s*(\d+)\s*MiB")
_SMI_PROCESS = re.compile(
    r"^\|\s+(\d+)\s+(?:(?:N/A|\d+)\s+(?:N/A|\d+)\s+)?(\d+)\s+(C\+G|M\+C|C|G|M)\s+(.+?)\s+(\d+)\s*MiB\s*\|"
)
_CSV_HEADER = re.compile(r"^\s*(?:index|name|memory\.total|memory\.used|compute_cap)\b.*,", re.IGNORECASE)
_CAPABILITY = re.compile(
    r"(?:Highest compute capability among GPUs detected|CUDA Capability Major/Minor version number"
    r"|compute capability)\s*[:=]?\s*(\d+)[./](\d+)",
    re.IGNORECASE,
)
_ACC_DISTRIBUTED = re.compile(r"^\s*-\s*distributed_type\s*:\s*(\w+)")
_ACC_PRECISION = re.compile(r"^\s*-\s*mixed_precision\s*:\s*(\w+)")
_ACC_ZERO = re.compile(r"['\"]zero_stage['\"]\s*:\s*(\d)")
_ACC_OFFLOAD = re.compile(r"['\"]offload_(?:optimizer|param)_device['\"]\s*:\s*['\"](cpu|nvme)['\"]")
_TRAINING_PROCESS = re.compile(r"python|torchrun|accelerate|deepspeed|llamafactory|axolotl|jupyter|ipykernel")

_DISTRIBUTED = {"deepspeed": "deepspeed", "fsdp": "fsdp", "multi_gpu": "ddp", "no": "none", "multi_npu": "ddp"}


def package_fact(name: str) -> str | None:
    """The version fact for a package name as pip spells it (``flash_attn``, ``Torch``...)."""
    return PACKAGES.get(re.sub(r"[_.]", "-", name.strip().lower()))


def os_from_platform(text: str) -> str | None:
    """linux, wsl, windows or macos from a platform string."""
    low = text.lower()
    if "microsoft" in low or "wsl" in low:
        return "wsl"
    if "windows" in low:
        return "windows"
    if "macos" in low or "darwin" in low or "mac os" in low:
        return "macos"
    if "linux" in low or "ubuntu" in low or "debian" in low or "centos" in low or "rocky" in low:
        return "linux"
    return None


@dataclass
class _Gpu:
    index: int
    name: str
    line: int
    text: str
    total: int | None = None
    memory_line: int | None = None


@dataclass
class EnvReader:
    """Feed it lines of an environment report; :meth:`findings` returns what it says."""

    found: dict[str, Found] = field(default_factory=dict)
    gpus: dict[int, _Gpu] = field(default_factory=dict)
    processes: list[tuple[int, int, str, int, int]] = field(default_factory=list)
    """nvidia-smi processes: (gpu, pid, name, bytes, line)."""
    _last_gpu: int | None = None
    _in_collect_gpus: bool = False
    _csv_columns: list[str] | None = None
    _in_smi: bool = False

    def _put(self, name: str, raw: object, line: int, text: str, note: str | None = None) -> None:
        if name not in self.found:
            self.found[name] = Found(name, raw, line, excerpt(text), note)

    def feed(self, number: int, text: str) -> None:
        """Look at one line."""
        stripped = text.strip()
        if not stripped:
            self._in_collect_gpus = False
            return
        self._versions(number, text)
        self._platform(number, text)
        self._gpu_lines(number, text)
        self._accelerate(number, text)
        m = _CAPABILITY.search(text)
        if m:
            self._put("compute_capability", f"{m.group(1)}.{m.group(2)}", number, text)

    def _versions(self, number: int, text: str) -> None:
        for pattern in (_BULLET_VERSION, _PLAIN_VERSION, _PIN):
            m = pattern.match(text)
            if m:
                name = m.group(1)
                if name.lower() in ("pytorch", "torch") or name.lower().startswith("pytorch"):
                    name = "torch"
                fact = package_fact(name)
                version = m.group(2)
                if fact and version[:1].isdigit():
                    self._put(fact, re.split(r"[,(]", version)[0], number, text)
                return
        m = _LISTED.match(text)
        if m:
            fact = package_fact(m.group(1))
            if fact:
                self._put(fact, m.group(2), number, text)

    def _platform(self, number: int, text: str) -> None:
        m = _PLATFORM.match(text)
        if m:
            value = os_from_platform(m.group(1))
            if value:
                self._put("os", value, number, text)
        m = _GPU_TYPE.match(text)
        if m:
            self._gpu(0, m.group(1), number, text)
        m = _SYSTEM_RAM.match(text)
        if m:
            # accelerate prints psutil's total / 1024**3 and labels it GB
            self._put("host_ram_bytes", int(float(m.group(1)) * GiB), number, text)

    def _gpu(self, index: int, name: str, number: int, text: str) -> None:
        name = name.strip().rstrip("|").strip()
        if not name or name.lower() in ("n/a", "none", "no cuda"):
            return
        if index not in self.gpus:
            self.gpus[index] = _Gpu(index, name, number, text)
        self._last_gpu = index

    def _gpu_lines(self, number: int, text: str) -> None:
        m = _COLLECT_GPUS.match(text)
        if m:
            self._in_collect_gpus = True
            rest = m.group(1).strip()
            if rest and not _COLLECT_GPU.match(rest):
                self._gpu(0, rest, number, text)
            elif rest:
                inner = _COLLECT_GPU.match(rest)
                if inner:
                    self._gpu(int(inner.group(1)), inner.group(2), number, text)
            return
        if self._in_collect_gpus:
            m = _COLLECT_GPU.match(text.strip())
            if m:
                self._gpu(int(m.group(1)), m.group(2), number, text)
                return
            self._in_collect_gpus = False
        if _SMI_HEADER.search(text):
            self._in_smi = True
            return
        if self._in_smi and text.startswith("|"):
            m = _SMI_PROCESS.match(text)
            if m:
                self.processes.append(
                    (int(m.group(1)), int(m.group(2)), m.group(4).strip(), int(m.group(5)) * 1024**2, number)
                )
                return
            m = _SMI_GPU.match(text)
            if m and "MiB" not in text:
                self._gpu(int(m.group(1)), m.group(2), number, text)
                return
            m = _SMI_MEMORY.search(text)
            if m and self._last_gpu is not None:
                gpu = self.gpus[self._last_gpu]
                if gpu.total is None:
                    gpu.total = int(m.group(2)) * 1024**2
                    gpu.memory_line = number
                return
        self._csv(number, text)

    def _csv(self, number: int, text: str) -> None:
        if _CSV_HEADER.match(text):
            self._csv_columns = [c.strip().lower().split(" ")[0] for c in text.split(",")]
            return
        if self._csv_columns is None or "," not in text:
            return
        cells = [c.strip() for c in text.split(",")]
        if len(cells) != len(self._csv_columns):
            self._csv_columns = None
            return
        row = dict(zip(self._csv_columns, cells, strict=True))
        index = int(row["index"]) if row.get("index", "").isdigit() else len(self.gpus)
        if "name" in row:
            self._gpu(index, row["name"], number, text)
        total = re.match(r"(\d+)", row.get("memory.total", ""))
        if total and index in self.gpus and self.gpus[index].total is None:
            self.gpus[index].total = int(total.group(1)) * 1024**2
            self.gpus[index].memory_line = number
        cap = re.match(r"(\d+\.\d+)", row.get("compute_cap", ""))
        if cap:
            self._put("compute_capability", cap.group(1), number, text)

    def _accelerate(self, number: int, text: str) -> None:
        m = _ACC_DISTRIBUTED.match(text)
        if m and m.group(1).lower() in _DISTRIBUTED:
            self._put("distributed", _DISTRIBUTED[m.group(1).lower()], number, text)
        m = _ACC_PRECISION.match(text)
        if m and m.group(1).lower() in ("no", "fp16", "bf16"):
            self._put("mixed_precision", m.group(1).lower(), number, text)
        m = _ACC_ZERO.search(text)
        if m:
            self._put("zero_stage", int(m.group(1)), number, text)
        m = _ACC_OFFLOAD.search(text)
        if m:
            self._put("offload", True, number, text)

    def findings(self) -> list[Found]:
        """Every fact the report states, plus GPU facts derived from the GPU model."""
        out = list(self.found.values())
        if not self.gpus:
            return out
        first = self.gpus[min(self.gpus)]
        out.append(Found("gpu_name", first.name, first.line, excerpt(first.text)))
        out.append(
            Found("gpu_count", len(self.gpus), first.line, excerpt(first.text), f"{len(self.gpus)} GPU(s) listed")
        )
        mention = find_mention(first.name)
        gpu = mention.gpu if mention is not None else None
        if first.total is not None:
            out.append(Found("gpu_memory_bytes", first.total, first.memory_line, excerpt(first.text)))
        elif gpu is not None:
            said = (
                "the memory in the GPU's name"
                if mention is not None and mention.stated_gb
                else f"the memory of a {gpu.name}"
            )
            out.append(
                Found(
                    "gpu_memory_bytes",
                    gpu.total_bytes,
                    first.line,
                    excerpt(first.text),
                    f"{said}: {gpu.memory_mib} MiB as nvidia-smi shows it",
                )
            )
        if "compute_capability" not in self.found and mention is not None and mention.capability is not None:
            out.append(
                Found(
                    "compute_capability",
                    mention.capability,
                    first.line,
                    excerpt(first.text),
                    f"the compute capability of a {mention.model}",
                )
            )
        if self.processes and first.total is not None:
            mine = [p for p in self.processes if p[0] == first.index]
            others = [p for p in mine if not _TRAINING_PROCESS.search(p[2])]
            skipped = [p[2] for p in mine if _TRAINING_PROCESS.search(p[2])]
            note = f"not counting {', '.join(skipped)} (taken to be the training itself)" if skipped else None
            line = mine[0][4] if mine else (first.memory_line or first.line)
            out.append(
                Found(
                    "other_process_bytes",
                    sum(p[3] for p in others),
                    line,
                    excerpt("; ".join(f"{p[2]} {p[3] // 1024**2}MiB" for p in mine)),
                    note,
                )
            )
        return out


def read_env(lines: Iterable[tuple[int, str]]) -> list[Found]:
    """Facts from the lines of an environment report."""
    reader = EnvReader()
    for number, text in lines:
        reader.feed(number, text)
    return reader.findings()
