"""A private on-disk cache of the validated knowledge base, so the CLI starts fast.

The cache is keyed by a digest of every knowledge file's path, size and
modification time plus the versions of triage, Python and pydantic, so any
edit, upgrade or new file is a miss. It lives in ``$XDG_CACHE_HOME/triage``
(else ``~/.cache/triage``), in a directory only the user can write, and is
read only when the file belongs to the user and nobody else can write it.
``TRIAGE_NO_CACHE=1`` turns it off. Any problem with the cache means a normal
load from YAML, never an error.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pydantic

from triage import __version__
from triage.kb.loader import KnowledgeBase, iter_files


def cache_dir() -> Path:
    """Where cached knowledge bases are kept."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "triage"


def digest(root: Path) -> str:
    """A key that changes whenever any knowledge file, the KB code, triage, Python or pydantic changes."""
    h = hashlib.sha256(f"{__version__}|{sys.version}|{pydantic.VERSION}|{root}".encode())
    # the code that shapes the cached objects: an edited model or loader is a miss too
    here = Path(__file__).resolve().parent
    for path in (here / "models.py", here / "loader.py", here / "anchors.py", *iter_files(root)):
        st = path.stat()
        h.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:32]


def _trusted(path: Path) -> bool:
    st = path.stat()
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return mine and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def load_cached(root: Path) -> KnowledgeBase | None:
    """The cached knowledge base for ``root``, or None on a miss (or when caching is off)."""
    if os.environ.get("TRIAGE_NO_CACHE"):
        return None
    try:
        path = cache_dir() / f"kb-{digest(root)}.pickle"
        if not path.is_file() or not _trusted(path) or not _trusted(path.parent):
            return None
        with path.open("rb") as fh:
            kb = pickle.load(fh)  # a private, user-owned file written by store() below
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return None
    return kb if isinstance(kb, KnowledgeBase) and kb.root == root else None


def store(kb: KnowledgeBase) -> None:
    """Write ``kb`` to the cache (atomically); failures are ignored, the cache is only a speed-up."""
    if os.environ.get("TRIAGE_NO_CACHE"):
        return
    try:
        folder = cache_dir()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = folder / f"kb-{digest(kb.root)}.pickle"
        for old in folder.glob("kb-*.pickle"):
            if old != target:
                old.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".kb-", suffix=".tmp")
        slim = replace(kb, texts={})  # raw file texts serve only the linter, which never uses the cache
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(slim, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, target)
    except OSError:
        return
