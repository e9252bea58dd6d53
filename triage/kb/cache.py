"""A private on-disk cache of the validated knowledge base, so the CLI starts fast.

The cache is data only: one JSON file holding each entity's ``model_dump`` plus the
knowledge base's paths and regex anchors. It is keyed by a SHA-256 of the content of every
knowledge file and of the code that shapes the models, plus the versions of triage, Python
and pydantic, so any edit, upgrade or new file is a miss. It is trusted for nothing: on load
every entity is validated again by its pydantic model, and the file is read only when it and
its folder belong to the user and nobody else can write them.

Where it lives, who may have written it, how it is read and written: :mod:`triage.datacache`,
the same rules as every other cached file (``TRIAGE_NO_CACHE=1`` turns it off).

Any problem with the cache means a normal load from YAML, never an error: a file that is
corrupt, truncated, too large or unreadable is deleted and reported once on stderr, and the
next :func:`store` writes a good one. Writing is atomic (a ``.kb-*.tmp`` file renamed into
place) and the temporary file is removed on every error path (a full disk, a killed write).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pydantic

from triage import __version__
from triage.datacache import CacheDamaged, discard, find, read_bounded, write
from triage.datacache import cache_dir as cache_dir  # where tests and tools look for it
from triage.kb.base import KnowledgeBase, iter_files
from triage.kb.models import CasesFile, Cause, FactSpec, Myth, Remedy

#: Bump when the layout of the JSON document changes.
FORMAT = 1
_TABLES: dict[str, type[pydantic.BaseModel]] = {
    "facts": FactSpec,
    "causes": Cause,
    "remedies": Remedy,
    "myths": Myth,
    "cases": CasesFile,
}
#: The code whose edits change what a cached knowledge base means.
_CODE = ("models.py", "base.py", "loader.py", "anchors.py", "cache.py")


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


def _report(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # stderr closed
        print(f"triage: {message}", file=sys.stderr)


def _discard(path: Path, reason: str) -> None:
    """Delete a damaged cache file, and say so once (the next run finds no file, or a good one)."""
    if discard(path):
        _report(f"the knowledge-base cache was damaged ({reason}); it was deleted and is rebuilt from the YAML files")


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
    try:
        key = digest(root)
    except (OSError, ValueError):
        return None
    path = find("kb", key)
    if path is None:
        return None
    try:
        return decode(read_bounded(path), root, key)
    except CacheDamaged as exc:
        _discard(path, str(exc))
    except Exception as exc:  # MemoryError, RecursionError, an unreadable file...: never the user's problem
        _discard(path, exc.__class__.__name__)
    return None


def store(kb: KnowledgeBase) -> None:
    """Write ``kb`` to the cache (atomically); failures are ignored, the cache is only a speed-up."""
    try:
        key = digest(kb.root)
        data = encode(kb, key)
        if decode(data, kb.root, key) != _slim(kb):
            return  # something does not survive JSON (a YAML date, say): no cache rather than a different KB
    except Exception:  # a value JSON cannot hold, an unreadable file: no cache this time
        return
    folder = cache_dir()
    if folder is not None:
        for legacy in folder.glob("kb-*.pickle"):  # the cache's format in earlier versions; never read
            with contextlib.suppress(OSError):
                legacy.unlink()
    write("kb", key, data)


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
