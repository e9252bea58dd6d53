"""The private on-disk cache's files, handled in one place, and bundled YAML data cached as JSON.

Everything triage caches (the validated knowledge base, the corpus of solved reports, the
architecture presets and the GPU catalogue) lives in ``$XDG_CACHE_HOME/triage`` (a relative
``XDG_CACHE_HOME`` is ignored, as the XDG spec says), else ``~/.cache/triage``.
``TRIAGE_NO_CACHE=1`` turns every cache off.

The rules, the same for every cached file:

- a file is read only when it and its folder belong to the user and nobody else can write them,
  only when it is a regular file of a sane size, and never through a symbolic link;
- a file is written atomically (a ``.<kind>-*.tmp`` file renamed into place); temporary files of
  writes that died are swept, and only the newest few files of each kind are kept;
- a cache only speeds things up: any problem with it means the data is read from the source
  again, never an error.

YAML is slow to parse in Python even with libyaml (tag resolution runs in Python), so
:func:`yaml_data` keeps the parsed data of bundled YAML files as JSON, keyed by a hash of
their bytes; a file that JSON cannot hold exactly (a YAML date, say) is simply not cached.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: A cache file larger than this is damaged (the largest real one is about 1 MiB).
MAX_BYTES = 64 * 1024 * 1024
#: How many files of one kind to keep (one per knowledge root / version in use).
KEEP = 4
#: A temporary file older than this was left by a write that died; it is swept.
STALE_TMP_SECONDS = 60.0


class CacheDamaged(ValueError):
    """The cache file exists but cannot be used."""


def enabled() -> bool:
    """Whether caching is on (``TRIAGE_NO_CACHE`` unset or empty)."""
    return not os.environ.get("TRIAGE_NO_CACHE")


def cache_dir() -> Path | None:
    """Where cached files are kept, or None when there is no usable home."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "triage"
    try:
        return Path.home() / ".cache" / "triage"
    except (RuntimeError, KeyError, OSError):  # no HOME and no passwd entry
        return None


def trusted(path: Path) -> bool:
    """Whether ``path`` belongs to the user and neither group nor others can write it."""
    st = path.stat()
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return mine and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def read_bounded(path: Path) -> bytes:
    """The file's bytes, refusing (:class:`CacheDamaged`) anything that is not a regular file of a sane size."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise CacheDamaged("not a regular file")
        if st.st_size > MAX_BYTES:
            raise CacheDamaged(f"{st.st_size} bytes")
        chunks = []
        left = st.st_size + 1  # one more byte tells a file that grew while being read
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def find(kind: str, key: str) -> Path | None:
    """The cache file of ``kind`` for ``key`` when caching is on and it exists in a trusted folder, else None."""
    folder = cache_dir() if enabled() else None
    if folder is None:
        return None
    path = folder / f"{kind}-{key}.json"
    try:
        if path.exists() and trusted(folder) and trusted(path):
            return path
    except (OSError, ValueError):
        pass
    return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def sweep(folder: Path, kind: str, target: Path) -> None:
    """Remove temp files of ``kind`` left by dead writes, and all but the newest :data:`KEEP` files of ``kind``."""
    now = time.time()
    for tmp in folder.glob(f".{kind}-*.tmp"):
        try:
            if now - tmp.stat().st_mtime > STALE_TMP_SECONDS:
                tmp.unlink(missing_ok=True)
        except OSError:
            continue
    others = [p for p in folder.glob(f"{kind}-*.json") if p != target]
    others.sort(key=_mtime, reverse=True)
    for old in others[KEEP - 1 :]:
        old.unlink(missing_ok=True)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write(kind: str, key: str, data: bytes) -> None:
    """Write the cache file of ``kind`` for ``key`` atomically; any failure leaves no file and no error."""
    folder = cache_dir() if enabled() else None
    if folder is None:
        return
    tmp: str | None = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not trusted(folder):
            return  # find() would never read it
        target = folder / f"{kind}-{key}.json"
        sweep(folder, kind, target)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{kind}-", suffix=".tmp")
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        tmp = None
    except Exception:  # a full disk, a read-only folder: no cache this time
        return
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def discard(path: Path) -> bool:
    """Delete a damaged cache file; True when it was deleted (so the caller may say so once)."""
    try:
        path.unlink()
    except OSError:  # gone already, or cannot delete it: stay quiet rather than repeat a notice on every run
        return False
    return True


def safe_yaml(text: str) -> Any:
    """``text`` parsed by PyYAML's safe loader (libyaml's when installed); PyYAML is imported only here."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def yaml_data(kind: str, files: Sequence[Path]) -> list[Any]:
    """Each YAML file's data (:func:`safe_yaml`), from the JSON cache when the files' bytes have not changed.

    The cached copy is plain data and trusted for nothing beyond being JSON: callers validate the
    data as they would the YAML's. A copy that cannot be read is ignored and rewritten.
    """
    blobs = [p.read_bytes() for p in files]
    h = hashlib.sha256(kind.encode())
    for blob in blobs:
        h.update(len(blob).to_bytes(8, "little"))
        h.update(blob)
    key = h.hexdigest()[:24]
    path = find(kind, key)
    if path is not None:
        try:
            data = json.loads(read_bounded(path))
            if isinstance(data, list) and len(data) == len(blobs):
                return data
        except (OSError, ValueError, RecursionError):
            discard(path)
    out = [safe_yaml(blob.decode("utf-8")) for blob in blobs]
    try:
        encoded = json.dumps(out, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return out  # not plain JSON data (a date, a set): read from YAML every time rather than change it
    if json.loads(encoded) == out:
        write(kind, key, encoded.encode())
    return out
