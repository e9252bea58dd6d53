"""One captured run: the command line, the machine, the output and how it ended, as readings with sources.

:func:`capture` reads the command line and the config files it names, asks the machine, runs the
command (:func:`triage.capture.runner.run`) and reads the cgroup's OOM-kill counter before and
after. The :class:`Capture` it returns lists what each source said, in the order the pipeline
merges them (a launcher's guess first, config files, then the script's own arguments, which
override them; the machine; the output), so the same merge rules as ``triage diagnose`` decide.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from triage.capture import environ
from triage.capture.cmdline import COMMAND_LINE, CommandReading, read_command
from triage.capture.errors import RunError
from triage.capture.runner import Finished, run
from triage.ingest.config import ConfigReading, read_config
from triage.ingest.errors import IngestError
from triage.ingest.found import Found
from triage.ingest.lines import read_small
from triage.ingest.logscan import MemorySample
from triage.ingest.text import read_lines

#: The source label of what the command's exit status says.
EXIT_STATUS = "exit status"
#: error_kind values that are an out-of-memory error (anything but "other").
OOM_KINDS = frozenset({"cuda_oom", "host_oom", "cublas_alloc", "no_executable_batch"})
#: Facts the OOM message states for the moment of the error, which a probe before the run cannot know better.
AT_THE_OOM = frozenset({"other_process_bytes"})
#: The source kind (its rank in the merge) and label of each reading.
Group = tuple[tuple[Found, ...], str, str | None]


@dataclass(frozen=True)
class Capture:
    """Everything triage learnt from running the command, each reading with its source."""

    argv: tuple[str, ...]
    command: CommandReading
    finished: Finished
    log_path: str | None
    """Where the copy of the output is (None when it was not kept: a default copy of a run that succeeded)."""
    configs: tuple[tuple[str, ConfigReading], ...] = ()
    probes: tuple[tuple[str, environ.Probe], ...] = ()
    """(source label, what it found): importlib.metadata, nvidia-smi, environment."""
    oom_kills: tuple[int, int] | None = None
    """The cgroup's oom_kill counter before and after the run, when there is a cgroup v2."""
    notes: tuple[str, ...] = ()

    @property
    def error_kind(self) -> str | None:
        """The out-of-memory error the run died of (cuda_oom, host_oom...), or None."""
        if self.finished.returncode == 0:
            return None
        said = {
            kind: str(item.raw)
            for found, kind, _path in self.groups()
            for item in found
            if item.name == "error_kind" and item.raw in OOM_KINDS
        }
        return said.get("env") or said.get("log")  # as the merge believes: the cgroup's count over the output

    @property
    def killed_not_by_oom(self) -> bool:
        """Killed by SIGKILL while the cgroup's OOM-kill counter stayed the same: not an OOM kill."""
        return (
            self.finished.signal == signal.SIGKILL
            and self.oom_kills is not None
            and self.oom_kills[1] == self.oom_kills[0]
        )

    def peak(self) -> MemorySample | None:
        """The highest memory figure the output showed (``max_memory_allocated: 21.3 GiB``...), if any."""
        samples = [s for series in self.finished.reading.digest.memory.values() for s in series]
        return max(samples, key=lambda s: s.value) if samples else None

    def _exit_found(self) -> list[Found]:
        finished = self.finished
        if finished.returncode == 0:
            return []
        if self.oom_kills is not None and self.oom_kills[1] > self.oom_kills[0]:
            before, after = self.oom_kills
            return [
                Found(
                    "error_kind",
                    "host_oom",
                    None,
                    f"oom_kill {before} -> {after}",
                    "the kernel's out-of-memory killer ended a process of this run: host RAM ran out, not GPU memory",
                )
            ]
        if finished.signal == signal.SIGKILL and self.oom_kills is None:
            return [
                Found(
                    "error_kind",
                    "host_oom",
                    None,
                    f"killed by SIGKILL (exit {finished.returncode})",
                    "SIGKILL usually comes from the kernel's out-of-memory killer (host RAM); not confirmed: this "
                    "machine has no cgroup v2 memory.events to count OOM kills (check dmesg)",
                )
            ]
        return []

    def groups(self) -> list[Group]:
        """What each source said, in merge order: (readings, source kind, source label)."""
        configured = {f.name for _, reading in self.configs for f in reading.found}
        configured |= {f.name for f in self.command.found}
        launcher = tuple(f for f in self.command.launcher_found if f.name not in configured)
        out: list[Group] = [(launcher, "config", COMMAND_LINE)]
        out += [(tuple(reading.found), "config", path) for path, reading in self.configs]
        out.append((self.command.found, "config", COMMAND_LINE))
        reading = self.finished.reading
        text = read_lines(
            (ln.number, ln.text) for w in reading.digest.windows[-1:] for ln in w if "Traceback" not in ln.text
        )
        logged = (*reading.found, *text)
        # what the OOM message says other processes held at the moment of the error beats what
        # nvidia-smi saw before the command started
        at_oom = {f.name for f in logged} & AT_THE_OOM
        out += [(tuple(f for f in probe.found if f.name not in at_oom), "env", label) for label, probe in self.probes]
        out.append((logged, "log", None))
        exit_found = tuple(self._exit_found())
        if exit_found:
            label = environ.CGROUP if self.oom_kills is not None else EXIT_STATUS
            out.append((exit_found, "env" if self.oom_kills is not None else "log", label))
        return out

    def unknown_keys(self) -> tuple[tuple[str, str], ...]:
        """(where, key) of every config key nobody here understands."""
        keys = [(COMMAND_LINE, k) for k in self.command.unknown_keys]
        keys += [(path, k) for path, reading in self.configs for k in reading.unknown_keys]
        return tuple(keys)

    def all_notes(self) -> tuple[str, ...]:
        notes = list(self.command.notes) + list(self.notes)
        notes += [n for _, reading in self.configs for n in reading.notes]
        notes += [n for _, probe in self.probes for n in probe.notes]
        if self.finished.log_problem:
            notes.append(f"log copy stopped early: {self.finished.log_problem}")
        return tuple(notes)

    def read_as(self) -> tuple[tuple[str, str], ...]:
        out = [(path, f"config:{reading.kind}") for path, reading in self.configs]
        out.append((self.log_path or "log", "log"))
        return tuple(out)


def read_configs(paths: Sequence[str]) -> tuple[list[tuple[str, ConfigReading]], list[str]]:
    """The config files a command names, read by the config readers; the others as notes (never an error)."""
    out: list[tuple[str, ConfigReading]] = []
    notes: list[str] = []
    for path in paths:
        try:
            reading = read_config(read_small(path), path)
        except IngestError as exc:
            notes.append(f"{path}: not read as a config ({exc})")
            continue
        if reading.kind == "generic" and not reading.found:
            notes.append(f"{path}: not a training config (no setting triage knows); not used")
            continue
        out.append((path, reading))
    return out, notes


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def open_log(path: str | None, argv: Sequence[str] = ()) -> tuple[BinaryIO, str, bool]:
    """The log copy: ``path`` (``--log-to``, truncated like ``tee`` does, but never a file the command
    names), or a new file in the temporary directory; and whether it was asked for."""
    if path is None:
        where = tempfile.gettempdir()
        try:
            fd, name = tempfile.mkstemp(prefix="triage-run-", suffix=".log")
        except OSError as exc:
            why = exc.strerror or str(exc)
            raise RunError(f"cannot create a log copy in {where}: {why}", 3, "log_temp", path=where, why=why) from None
        return os.fdopen(fd, "wb"), name, False
    if os.path.isdir(path):
        raise RunError(f"--log-to {path}: is a directory; give a file name", 3, "log_dir", path=path)
    if os.path.isfile(path) and any(_same_file(path, arg) for arg in argv):
        raise RunError(f"--log-to {path}: the command uses this file; give another name", 3, "log_used", path=path)
    try:
        return open(path, "wb"), path, True
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise RunError(f"--log-to {path}: cannot write: {why}", 3, "log_unwritable", path=path, why=why) from None


def capture(argv: Sequence[str], *, log_to: str | None = None, cwd: str | None = None) -> Capture:
    """Run ``argv`` unchanged (output passed through) and gather everything it says about itself.

    Raises :class:`~triage.capture.runner.RunError` when the command or the log copy cannot be
    started (``exit_code``: 127 not found, 126 not executable, 3 an unwritable ``--log-to``).
    """
    if not argv:
        raise RunError("no command given: triage run -- <command ...>", 2, "no_command")
    log, log_path, asked = open_log(log_to, argv)
    try:
        command = read_command(argv, cwd)
        env = dict(os.environ)
        env.update(command.env)
        if command.env:
            command = read_command(argv, cwd, env)  # an `env VAR=...` prefix can move accelerate's config
        configs, notes = read_configs(command.config_files)
        probes: list[tuple[str, environ.Probe]] = [
            (environ.ENVIRONMENT, environ.variables(env)),
            (environ.NVIDIA_SMI, environ.gpus(env)),
        ]
        versions: list[environ.Probe] = []
        worker = None
        if command.interpreter is not None:
            interpreter = command.interpreter
            worker = threading.Thread(
                target=lambda: versions.append(environ.package_versions(interpreter, env)), daemon=True
            )
            worker.start()
        events = environ.memory_events_path(env)
        before = environ.oom_kills(events)
        finished = run(argv, log)
        after = environ.oom_kills(events)
        if worker is not None:
            worker.join(environ.PROBE_SECONDS)
        if versions:
            probes.insert(0, (environ.PACKAGES_SOURCE, versions[0]))
    except BaseException:
        log.close()
        if not asked:
            with contextlib.suppress(OSError):
                os.unlink(log_path)
        raise
    with contextlib.suppress(OSError):
        log.close()
    kept: str | None = log_path
    if finished.returncode == 0 and not asked:
        with contextlib.suppress(OSError):
            os.unlink(log_path)
        kept = None
    return Capture(
        argv=tuple(argv),
        command=command,
        finished=finished,
        log_path=kept,
        configs=tuple(configs),
        probes=tuple(probes),
        oom_kills=(before, after) if before is not None and after is not None else None,
        notes=tuple(notes),
    )
