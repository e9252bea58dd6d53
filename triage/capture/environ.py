"""Ask the machine what the user would otherwise have to type: versions, GPUs, allocator settings, OOM kills.

Every probe is bounded (a timeout on each program run), never imports torch, and says nothing
rather than guess when its source is absent: no ``nvidia-smi`` on PATH, no cgroup v2, an
interpreter that is not Python.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from triage.hardware.gpus import find_mention
from triage.ingest.env import PACKAGES, os_from_platform, read_env
from triage.ingest.found import Found, excerpt
from triage.ingest.log import expandable_segments
from triage.ingest.logscan import Line

#: Source labels of the facts found here.
NVIDIA_SMI = "nvidia-smi"
ENVIRONMENT = "environment"
PACKAGES_SOURCE = "importlib.metadata"
CGROUP = "cgroup memory.events"

PROBE_SECONDS = 10.0
SMI_QUERY = ["--query-gpu=name,memory.total,memory.used", "--format=csv,noheader,nounits"]
#: Overrides where the cgroup v2 ``memory.events`` of this process is (tests; unusual mounts).
EVENTS_OVERRIDE = "TRIAGE_MEMORY_EVENTS"

_VERSIONS_SCRIPT = (
    "import importlib.metadata as m\n"
    "for n in {names!r}:\n"
    "    try:\n"
    "        print(n + '==' + m.version(n))\n"
    "    except Exception:\n"
    "        pass\n"
)
_DISTRIBUTIONS = ("torch", "transformers", "peft", "trl", "accelerate", "bitsandbytes", "deepspeed", "flash-attn")
assert all(name in PACKAGES for name in _DISTRIBUTIONS)


@dataclass(frozen=True)
class Probe:
    """What one probe found, and what it wants the user to know."""

    found: tuple[Found, ...] = ()
    notes: tuple[str, ...] = ()


def _run(argv: list[str], env: Mapping[str, str] | None, timeout: float) -> tuple[str | None, str | None]:
    """The standard output of ``argv``, or None and why not."""
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=dict(env) if env is not None else None,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"{os.path.basename(argv[0])} did not answer in {timeout:g} s"
    except OSError as exc:
        return None, f"{os.path.basename(argv[0])} could not be run ({exc.strerror or exc})"
    if done.returncode != 0:
        return None, f"{os.path.basename(argv[0])} exited with {done.returncode}"
    return done.stdout.decode("utf-8", "replace"), None


def package_versions(interpreter: str, env: Mapping[str, str] | None = None, timeout: float = PROBE_SECONDS) -> Probe:
    """Versions of torch, transformers, peft... as the command's own interpreter sees them (importlib.metadata)."""
    script = _VERSIONS_SCRIPT.format(names=_DISTRIBUTIONS)
    out, why = _run([interpreter, "-c", script], env, timeout)
    if out is None:
        return Probe(notes=(f"{PACKAGES_SOURCE}: package versions not read: {why}",))
    found = [Found(f.name, f.raw, None, f.excerpt) for f in read_env(enumerate(out.splitlines(), 1))]
    return Probe(tuple(found))


def _visible(env: Mapping[str, str]) -> list[int] | None:
    """GPU indices in CUDA_VISIBLE_DEVICES when it lists numbers; None when unset or given as UUIDs."""
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not all(v.isdigit() for v in items):
        return None
    out: list[int] = []
    for v in items:  # CUDA stops at the first invalid entry; duplicates are invalid
        if int(v) in out:
            break
        out.append(int(v))
    return out


def gpus(env: Mapping[str, str], timeout: float = PROBE_SECONDS) -> Probe:
    """The GPU the run starts on (name, memory) and what is already used on it, from ``nvidia-smi``."""
    smi = shutil.which(NVIDIA_SMI, path=env.get("PATH"))
    if smi is None:
        return Probe()
    out, why = _run([smi, *SMI_QUERY], env, timeout)
    if out is None:
        return Probe(notes=(f"{NVIDIA_SMI}: {why}",))
    rows = []
    for text in out.splitlines():
        cells = [c.strip() for c in text.split(",")]
        if len(cells) == 3 and cells[1].isdigit():
            rows.append((cells[0], int(cells[1]), int(cells[2]) if cells[2].isdigit() else None, text.strip()))
    if not rows:
        return Probe(notes=(f"{NVIDIA_SMI}: no GPU listed",))
    visible = _visible(env)
    if visible == []:
        return Probe(notes=(f"{ENVIRONMENT}: CUDA_VISIBLE_DEVICES is empty: the command sees no GPU",))
    index = visible[0] if visible else 0
    if index >= len(rows):
        return Probe(notes=(f"{NVIDIA_SMI}: CUDA_VISIBLE_DEVICES names GPU {index}, which nvidia-smi does not list",))
    name, total_mib, used_mib, said = rows[index]
    where = f"GPU {index}"
    found = [
        Found("gpu_name", name, None, excerpt(f"{where}: {said}")),
        Found("gpu_memory_bytes", total_mib * 1024**2, None, excerpt(f"{where}: {said}")),
    ]
    if used_mib is not None:
        found.append(
            Found(
                "other_process_bytes",
                used_mib * 1024**2,
                None,
                excerpt(f"{where}: {used_mib} MiB used"),
                "in use on the GPU before the command started (other processes, a desktop, a notebook)",
            )
        )
    mention = find_mention(name)
    if mention is not None and mention.capability is not None:
        found.append(Found("compute_capability", mention.capability, None, None, f"the compute capability of a {name}"))
    return Probe(tuple(found))


def variables(env: Mapping[str, str]) -> Probe:
    """``PYTORCH_CUDA_ALLOC_CONF`` (or its newer name ``PYTORCH_ALLOC_CONF``), the OS and the host's RAM."""
    found: list[Found] = []
    notes: list[str] = []
    for name in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
        value = env.get(name)
        if value is None:
            continue
        said = f"{name}={value}"
        es = expandable_segments([Line(0, said)]) if value else None
        if es is not None:
            found.append(Found(es.name, es.raw, None, excerpt(said), es.note))
    if "CUDA_VISIBLE_DEVICES" in env:
        notes.append(f"{ENVIRONMENT}: CUDA_VISIBLE_DEVICES={env['CUDA_VISIBLE_DEVICES']}")
    system = os_from_platform(platform.platform())
    if system is not None:
        found.append(Found("os", system, None, excerpt(platform.platform())))
    ram = host_ram_bytes()
    if ram is not None:
        found.append(Found("host_ram_bytes", ram[0], None, excerpt(ram[1])))
    return Probe(tuple(found), tuple(notes))


def _cgroup_dir() -> str | None:
    """This process's cgroup v2 directory, or None (cgroup v1, not Linux)."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("0::"):
                    path = line[3:].strip()
                    return os.path.join("/sys/fs/cgroup", path.lstrip("/"))
    except OSError:
        return None
    return None


def memory_events_path(env: Mapping[str, str] | None = None) -> str | None:
    """Where this process's cgroup v2 ``memory.events`` is, when there is one."""
    env = os.environ if env is None else env
    override = env.get(EVENTS_OVERRIDE)
    if override:
        return override
    root = _cgroup_dir()
    if root is None:
        return None
    path = os.path.join(root, "memory.events")
    return path if os.path.isfile(path) else None


def oom_kills(path: str | None) -> int | None:
    """The ``oom_kill`` counter of a ``memory.events`` file (processes killed by any OOM killer), or None."""
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(4096)
    except OSError:
        return None
    m = re.search(r"^oom_kill\s+(\d+)\s*$", text, re.MULTILINE)
    return int(m.group(1)) if m else None


def host_ram_bytes() -> tuple[int, str] | None:
    """The RAM this process may use: the cgroup's ``memory.max`` when lower than ``MemTotal``, and the line said."""
    total: tuple[int, str] | None = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            for line in fh:
                m = re.match(r"MemTotal:\s+(\d+)\s*kB", line)
                if m:
                    total = (int(m.group(1)) * 1024, f"/proc/meminfo {line.strip()}")
                    break
    except OSError:
        return None
    root = _cgroup_dir()
    if root is not None:
        try:
            with open(os.path.join(root, "memory.max"), encoding="utf-8") as fh:
                limit = fh.read(64).strip()
        except OSError:
            limit = "max"
        if limit.isdigit() and (total is None or int(limit) < total[0]):
            return int(limit), f"cgroup memory.max {limit}"
    return total
