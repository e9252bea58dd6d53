"""A private on-disk cache of the validated knowledge base, so the CLI starts fast.

The cache is data only: one JSON file holding each entity's ``model_dump`` plus the
knowledge base's paths and regex anchors. It is keyed by a SHA-256 of the content of every
knowledge file and of the code that shapes the models, plus the versions of triage, Python
and pydantic, so any edit, upgrade or new file is a miss. It is trusted for nothing: on load
every entity is validated again by its pydantic model, and the file is read only when it and
its folder belong to the user and nobody else can write them.

It lives in ``$XDG_CACHE_HOME/triage`` (a relative ``XDG_CACHE_HOME`` is ignored, as the XDG
spec says), else ``~/.cache/triage``. ``TRIAGE_NO_CACHE=1`` turns it off.

Any problem with the cache means a normal load from YAML, never an error: a file that is
corrupt, truncated, too large or unreadable is deleted and reported once on stderr, and the
next :func:`store` writes a good one. Writing is atomic (a ``.kb-*.tmp`` file renamed into
place) and the temporary file is removed on every error path (a full disk, a killed write).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pydantic

from triage import __version__
from triage.kb.base import KnowledgeBase, iter_files
from triage.kb.models import CasesFile, Cause, FactSpec, Myth, Remedy

#: Bump when the layout of the JSON document changes.
FORMAT = 1
#: A cache file larger than this is damaged (the real one is well under 2 MiB).
MAX_BYTES = 64 * 1024 * 1024
#: How many cached knowledge bases to keep (one per knowledge root / version in use).
KEEP = 4
#: A temporary file older than this was left by a write that died; it is swept.
STALE_TMP_SECONDS = 60.0

_TABLES: dict[str, type[pydantic.BaseModel]] = {
    "facts": FactSpec,
    "causes": Cause,
    "remedies": Remedy,
    "myths": Myth,
    "cases": CasesFile,
}
#: The code whose edits change what a cached knowledge base means.
_CODE = ("models.py", "base.py", "loader.py", "anchors.py", "cache.py")


class CacheDamaged(ValueError):
    """The cache file exists but cannot be used."""


def cache_dir() -> Path | None:
    """Where cached knowledge bases are kept, or None when there is no usable home."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "triage"
    try:
        return Path.home() / ".cache" / "triage"
    except (RuntimeError, KeyError, OSError):  # no HOME and no passwd entry
        return None


def digest(root: Path) -> str:
    """A content hash that changes whenever any knowledge file, the KB code, triage, Python or pydantic changes."""
    h = hashlib.sha256(f"{FORMAT}|{__version__}|{sys.version}|{pydantic.VERSION}|{root}".encode())
    here = Path(__file__).resolve().parent
    spec = here.parent / "facts" / "spec.py"
    for path in (*(here / name for name in _CODE), spec, *iter_files(root)):
        if not path.is_file():
            continue
        data = path.read_bytes()
        h.update(f"{path}|{len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()[:32]


def _trusted(path: Path) -> bool:
    st = path.stat()
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return mine and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _report(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # stderr closed
        print(f"triage: {message}", file=sys.stderr)


def _discard(path: Path, reason: str) -> None:
    """Delete a damaged cache file, and say so once (the next run finds no file, or a good one)."""
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError:
        return  # cannot delete it: stay quiet rather than repeat the notice on every run
    _report(f"the knowledge-base cache was damaged ({reason}); it was deleted and is rebuilt from the YAML files")


def _read(path: Path) -> bytes:
    """The cache file's bytes, refusing anything that is not a regular file of a sane size."""
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


def _table(data: dict[str, Any], name: str) -> dict[str, Any]:
    table = data.get(name)
    if not isinstance(table, dict) or not all(isinstance(k, str) for k in table):
        raise CacheDamaged(f"{name} is not a mapping of ids")
    return table


def decode(raw: bytes, root: Path, key: str) -> KnowledgeBase:
    """The knowledge base in a cache document, every entity validated again; :class:`CacheDamaged` if not."""
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CacheDamaged(f"not JSON: {exc.__class__.__name__}") from None
    if not isinstance(data, dict):
        raise CacheDamaged("not a JSON object")
    if data.get("format") != FORMAT or data.get("key") != key or data.get("root") != str(root):
        raise CacheDamaged("written for another knowledge base or format")
    kb = KnowledgeBase(root=root)
    try:
        for name, model in _TABLES.items():
            table: dict[str, Any] = getattr(kb, name)
            for entity_id, dumped in _table(data, name).items():
                table[entity_id] = model.model_validate(dumped)
    except pydantic.ValidationError as exc:
        raise CacheDamaged(f"an entity does not validate ({exc.error_count()} errors)") from None
    for label, where in _table(data, "paths").items():
        if not isinstance(where, str):
            raise CacheDamaged("a path is not a string")
        kb.paths[label] = Path(where)
    for pattern, words in _table(data, "anchors").items():
        if words is None:
            kb.anchors[pattern] = None
        elif isinstance(words, list) and all(isinstance(w, str) for w in words):
            kb.anchors[pattern] = tuple(words)
        else:
            raise CacheDamaged("an anchor is not a list of strings")
    for entity_id in kb.cases:
        if entity_id not in kb.causes:
            raise CacheDamaged("a cases file names no cause")
    return kb


def encode(kb: KnowledgeBase, key: str) -> bytes:
    """The cache document for ``kb`` (raw file texts are left out: only the linter uses them)."""
    doc: dict[str, Any] = {"format": FORMAT, "key": key, "root": str(kb.root), "triage": __version__}
    for name in _TABLES:
        table: dict[str, pydantic.BaseModel] = getattr(kb, name)
        doc[name] = {i: e.model_dump(mode="json", by_alias=True, exclude_unset=True) for i, e in table.items()}
    doc["paths"] = {label: str(path) for label, path in kb.paths.items()}
    doc["anchors"] = {p: None if words is None else list(words) for p, words in kb.anchors.items()}
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def load_cached(root: Path) -> KnowledgeBase | None:
    """The cached knowledge base for ``root``, or None on a miss (or when caching is off)."""
    if os.environ.get("TRIAGE_NO_CACHE"):
        return None
    folder = cache_dir()
    if folder is None:
        return None
    try:
        key = digest(root)
        path = folder / f"kb-{key}.json"
        if not path.exists() or not _trusted(folder) or not _trusted(path):
            return None
    except (OSError, ValueError):
        return None
    try:
        return decode(_read(path), root, key)
    except CacheDamaged as exc:
        _discard(path, str(exc))
    except Exception as exc:  # MemoryError, RecursionError, an unreadable file...: never the user's problem
        _discard(path, exc.__class__.__name__)
    return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _sweep(folder: Path, target: Path) -> None:
    """Remove legacy pickles, temp files left by dead writes, and all but the newest cached bases."""
    now = time.time()
    for old in folder.glob("kb-*.pickle"):
        old.unlink(missing_ok=True)
    for tmp in folder.glob(".kb-*.tmp"):
        try:
            if now - tmp.stat().st_mtime > STALE_TMP_SECONDS:
                tmp.unlink(missing_ok=True)
        except OSError:
            continue
    others = [p for p in folder.glob("kb-*.json") if p != target]
    others.sort(key=_mtime, reverse=True)
    for old in others[KEEP - 1 :]:
        old.unlink(missing_ok=True)


def store(kb: KnowledgeBase) -> None:
    """Write ``kb`` to the cache (atomically); failures are ignored, the cache is only a speed-up."""
    if os.environ.get("TRIAGE_NO_CACHE"):
        return
    folder = cache_dir()
    if folder is None:
        return
    tmp: str | None = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _trusted(folder):
            return  # load_cached() would never read it
        key = digest(kb.root)
        target = folder / f"kb-{key}.json"
        data = encode(kb, key)
        if decode(data, kb.root, key) != _slim(kb):
            return  # something does not survive JSON (a YAML date, say): no cache rather than a different KB
        _sweep(folder, target)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".kb-", suffix=".tmp")
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        tmp = None
    except Exception:  # a full disk, a read-only folder, a value JSON cannot hold: no cache this time
        return
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _slim(kb: KnowledgeBase) -> KnowledgeBase:
    """``kb`` without the raw texts, for comparing with what the cache gives back."""
    return KnowledgeBase(
        root=kb.root,
        facts=kb.facts,
        causes=kb.causes,
        remedies=kb.remedies,
        myths=kb.myths,
        cases=kb.cases,
        paths=kb.paths,
        anchors=kb.anchors,
    )
