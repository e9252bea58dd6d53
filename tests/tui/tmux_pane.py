"""Drive ``triage`` in a real terminal: a tmux pane (pastes as terminals send them) or a bare pty.

tmux ``paste-buffer -p`` wraps the text in bracketed-paste marks when the
program asked for them (Textual does; ``triage ask`` does on a terminal) and
sends each line break as CR, as terminal emulators do. Every test server runs
on its own socket and is killed when the test ends.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TMUX = shutil.which("tmux")


def triage_command(*args: str, home: Path) -> str:
    """A shell command running this checkout's ``triage`` with a fresh home (no user cache)."""
    env = f"env HOME={home} XDG_CACHE_HOME={home / 'cache'}"
    quoted = " ".join(_quote(a) for a in (sys.executable, "-m", "triage", *args))
    # the pane stays open after triage exits, so its last screen can still be read
    return f"{env} {quoted}; echo '[triage exited]'; sleep 600"


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


class Pane:
    """One tmux server with one pane of ``size`` running ``command`` in ``cwd``."""

    def __init__(self, command: str, cwd: Path, size: tuple[int, int]) -> None:
        assert TMUX is not None
        self.socket = f"triage-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.target = "t"
        width, height = size
        env = {**os.environ, "TERM": os.environ.get("TERM") or "xterm-256color"}
        env.pop("TMUX", None)
        self._env = env
        self.tmux("new-session", "-d", "-s", self.target, "-x", str(width), "-y", str(height), "-c", str(cwd), command)
        self.tmux("set-option", "-t", self.target, "history-limit", "5000")
        self.socket_path = Path(self.tmux("display-message", "-p", "#{socket_path}").strip())

    def tmux(self, *args: str, stdin: str | None = None) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-L", self.socket, "-f", os.devnull, *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=20,
            env=self._env,
            check=True,
        )
        return done.stdout

    def screen(self, history: bool = False) -> str:
        """What the pane shows (with ``history``: everything that scrolled off as well)."""
        args = ["capture-pane", "-p", "-t", self.target]
        if history:
            args += ["-S", "-"]
        return self.tmux(*args)

    def wait_for(self, found: Callable[[str], bool], timeout: float = 60, history: bool = False) -> str:
        """The screen as soon as ``found(screen)``; fails with the screen after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen(history)
            if found(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s; the pane shows:\n{screen}")
            time.sleep(0.2)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.target, *keys)

    def paste(self, text: str, *, bracketed: bool) -> None:
        """Paste ``text`` as a terminal does (``paste-buffer`` sends every LF as CR; ``-p`` adds the marks)."""
        self.tmux("load-buffer", "-b", "paste", "-", stdin=text)
        self.tmux("paste-buffer", "-d", "-b", "paste", "-t", self.target, *(["-p"] if bracketed else []))

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)
        self.socket_path.unlink(missing_ok=True)  # a killed server can leave its socket behind


def left_column(screen: str, width: int = 40) -> str:
    """The left half of a TUI screen (the conversation), borders removed, as one line of words."""
    cells = [line[:width] for line in screen.splitlines()]
    return " ".join(" ".join(cells).replace("█", " ").replace("▊", " ").split())


def report_facts(report: str) -> dict[str, str]:
    """The facts table of a markdown report: name -> the value cell."""
    out = {}
    for line in report.splitlines():
        m = re.match(r"\| `([a-z0-9_]+)` \| ((?:[^|\\]|\\.)*?) \|", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def cell(value: object) -> str:
    """A JSON value as the report's table cell writes it."""
    return " ".join(str(value).replace("|", "\\|").split())


class Panes:
    """Starts panes for a test and kills their servers afterwards."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.home = tmp_path / "home"
        self.home.mkdir(exist_ok=True)
        self.started: list[Pane] = []

    def start(self, *args: str, size: tuple[int, int] = (80, 24)) -> Pane:
        pane = Pane(triage_command(*args, home=self.home), self.tmp_path, size)
        self.started.append(pane)
        return pane

    def close(self) -> None:
        for pane in self.started:
            pane.close()
