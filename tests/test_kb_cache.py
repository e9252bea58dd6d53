"""The knowledge-base cache: a hit gives the same knowledge, any edit is a miss, damage is harmless.

The cache is JSON re-validated on load; a damaged file is deleted, reported once and rebuilt;
a failed write leaves no temporary file behind.
"""

from __future__ import annotations

import errno
import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from triage import datacache
from triage.kb import cache
from triage.kb.cache import cache_dir, digest, load_cached, store
from triage.kb.loader import default_knowledge_dir, load_checked, load_knowledge


@pytest.fixture
def kb_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TRIAGE_NO_CACHE", raising=False)
    root = tmp_path / "knowledge"
    shutil.copytree(default_knowledge_dir(), root)
    return root


def cached_files() -> list[Path]:
    folder = cache_dir()
    assert folder is not None
    return sorted(folder.glob("kb-*.json"))


def test_second_load_is_a_hit_with_the_same_content(kb_copy):
    first = load_checked(kb_copy)
    cached = load_cached(kb_copy.resolve())
    assert cached is not None
    assert cached.causes == first.causes and cached.remedies == first.remedies and cached.anchors == first.anchors
    assert cached.facts == first.facts and cached.myths == first.myths and cached.cases == first.cases
    assert cached.paths == first.paths


def test_the_cache_is_plain_json_with_owner_only_permissions(kb_copy):
    load_checked(kb_copy)
    (path,) = cached_files()
    doc = json.loads(path.read_bytes())
    assert doc["format"] == cache.FORMAT and doc["root"] == str(kb_copy.resolve())
    assert set(doc) >= {"facts", "causes", "remedies", "myths", "cases", "paths", "anchors"}
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_an_edited_file_is_a_miss(kb_copy):
    load_checked(kb_copy)
    before = digest(kb_copy.resolve())
    path = next((kb_copy / "remedies").glob("*.yaml"))
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert digest(kb_copy.resolve()) != before
    assert load_cached(kb_copy.resolve()) is None


def test_the_key_is_the_content_not_the_modification_time(kb_copy):
    before = digest(kb_copy.resolve())
    path = next((kb_copy / "remedies").glob("*.yaml"))
    os.utime(path, (1, 1))
    assert digest(kb_copy.resolve()) == before


def _valid_doc(kb_copy: Path) -> dict:
    load_checked(kb_copy)
    (path,) = cached_files()
    return json.loads(path.read_bytes())


DAMAGE = {
    "garbage": lambda path, doc: path.write_bytes(b"not json at all \x80\x81"),
    "truncated": lambda path, doc: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
    "empty": lambda path, doc: path.write_bytes(b""),
    "nested-deep": lambda path, doc: path.write_bytes(b"[" * 200_000 + b"]" * 200_000),
    "a list": lambda path, doc: path.write_text("[1, 2, 3]"),
    "a pickle": lambda path, doc: path.write_bytes(pickle.dumps({"causes": {}})),
    "wrong type": lambda path, doc: path.write_text(
        json.dumps({**doc, "causes": {k: {**v, "prior": "very likely"} for k, v in doc["causes"].items()}})
    ),
    "unknown field": lambda path, doc: path.write_text(
        json.dumps({**doc, "remedies": {k: {**v, "surprise": 1} for k, v in doc["remedies"].items()}})
    ),
    "not a table": lambda path, doc: path.write_text(json.dumps({**doc, "myths": [1, 2]})),
    "bad anchors": lambda path, doc: path.write_text(json.dumps({**doc, "anchors": {"x": 3}})),
    "other root": lambda path, doc: path.write_text(json.dumps({**doc, "root": "/elsewhere"})),
    "invalid utf-8": lambda path, doc: path.write_bytes(b'{"format": 1, "key": "\xff"}'),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_cache_is_discarded_reported_once_and_rebuilt(kb_copy, capsys, damage):
    doc = _valid_doc(kb_copy)
    (path,) = cached_files()
    DAMAGE[damage](path, doc)
    capsys.readouterr()
    assert load_cached(kb_copy.resolve()) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("triage: the knowledge-base cache was damaged"), err
    assert "Traceback" not in err
    assert not path.exists()
    kb = load_checked(kb_copy)  # the normal load rebuilds the cache
    assert load_cached(kb_copy.resolve()) is not None
    assert capsys.readouterr().err == ""  # reported once: the next runs are quiet hits
    assert kb.causes


def test_an_unreadable_cache_is_discarded(kb_copy, capsys, monkeypatch):
    load_checked(kb_copy)
    (path,) = cached_files()

    def refuse(_path: Path) -> bytes:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(cache, "read_bounded", refuse)
    assert load_cached(kb_copy.resolve()) is None
    assert "PermissionError" in capsys.readouterr().err
    assert not path.exists()


def test_a_huge_cache_file_is_never_read_into_memory(kb_copy, capsys, monkeypatch):
    load_checked(kb_copy)
    (_path,) = cached_files()
    monkeypatch.setattr(datacache, "MAX_BYTES", 1000)
    assert load_cached(kb_copy.resolve()) is None
    assert "bytes" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_in_place_of_the_cache_does_not_hang(kb_copy, capsys):
    load_checked(kb_copy)
    (path,) = cached_files()
    path.unlink()
    os.mkfifo(path, 0o600)
    start = time.monotonic()
    assert load_cached(kb_copy.resolve()) is None
    assert time.monotonic() - start < 5
    assert not path.exists()


def test_a_planted_pickle_never_runs(kb_copy, tmp_path):
    """Even a pickle under the cache's own name is only ever parsed as JSON."""
    load_checked(kb_copy)
    (path,) = cached_files()
    marker = tmp_path / "pwned"

    class Boom:
        def __reduce__(self):
            return (Path.touch, (marker,))

    path.write_bytes(pickle.dumps(Boom()))
    legacy = path.with_name("kb-0123.pickle")
    legacy.write_bytes(pickle.dumps(Boom()))
    assert load_cached(kb_copy.resolve()) is None
    load_checked(kb_copy)
    assert not marker.exists()
    assert not legacy.exists()  # old pickles are swept on the next write


def test_a_cache_others_can_write_is_ignored(kb_copy):
    load_checked(kb_copy)
    (f,) = cached_files()
    os.chmod(f, 0o666)
    assert load_cached(kb_copy.resolve()) is None


def test_a_folder_others_can_write_is_neither_read_nor_written(kb_copy):
    folder = cache_dir()
    assert folder is not None
    folder.mkdir(parents=True)
    os.chmod(folder, 0o777)
    load_checked(kb_copy)
    assert cached_files() == []


def test_can_be_turned_off(kb_copy, monkeypatch):
    monkeypatch.setenv("TRIAGE_NO_CACHE", "1")
    load_checked(kb_copy)
    folder = cache_dir()
    assert folder is None or not folder.exists() or not list(folder.glob("kb-*"))


def test_a_relative_xdg_cache_home_is_ignored(kb_copy, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", "relcache")
    monkeypatch.chdir(tmp_path)
    assert cache_dir() == home / ".cache" / "triage"
    load_checked(kb_copy)
    assert not (tmp_path / "relcache").exists()
    assert list((home / ".cache" / "triage").glob("kb-*.json"))


def test_a_full_disk_leaves_no_temporary_file(kb_copy, monkeypatch):
    kb, problems = load_knowledge(kb_copy)
    assert not problems

    def full(fd: int, data: bytes) -> None:
        os.write(fd, data[:100])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(datacache, "_write_all", full)
    for _ in range(3):
        store(kb)  # never raises
    folder = cache_dir()
    assert folder is not None
    assert list(folder.glob(".kb-*.tmp")) == []
    assert cached_files() == []


def test_a_failed_rename_leaves_no_temporary_file(kb_copy, monkeypatch):
    kb, _ = load_knowledge(kb_copy)

    def fail(src: str, dst: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(datacache.os, "replace", fail)
    store(kb)
    monkeypatch.undo()
    folder = cache_dir()
    assert folder is not None
    assert list(folder.glob(".kb-*.tmp")) == []


def test_temporary_files_left_by_dead_writes_are_swept(kb_copy):
    folder = cache_dir()
    assert folder is not None
    folder.mkdir(mode=0o700, parents=True)
    old, fresh = folder / ".kb-dead.tmp", folder / ".kb-writing.tmp"
    old.write_bytes(b"partial")
    fresh.write_bytes(b"partial")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    load_checked(kb_copy)
    assert not old.exists()
    assert fresh.exists()  # another process may be writing it right now


def test_two_knowledge_roots_do_not_evict_each_other(kb_copy, tmp_path):
    other = tmp_path / "knowledge2"
    shutil.copytree(kb_copy, other)
    load_checked(kb_copy)
    load_checked(other)
    assert load_cached(kb_copy.resolve()) is not None
    assert load_cached(other.resolve()) is not None
    assert len(cached_files()) == 2


def test_the_cache_does_not_import_the_loader():
    """No import cycle: triage.kb.cache stands on triage.kb.base, and the loader re-exports what moved."""
    code = (
        "import sys, triage.kb.cache; assert 'triage.kb.loader' not in sys.modules, 'cycle';"
        "from triage.kb import base, loader;"
        "assert loader.KnowledgeBase is base.KnowledgeBase and loader.iter_files is base.iter_files;"
        "assert loader.FOLDERS is base.FOLDERS and loader.CASES_SUFFIX == base.CASES_SUFFIX;"
        "assert loader.default_knowledge_dir is base.default_knowledge_dir"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_corrupt_cache_through_the_cli_is_reported_once(tmp_path):
    """The user's path: one line on stderr on the first run after the damage, nothing after, exit 0 both times."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    env.pop("TRIAGE_NO_CACHE", None)
    argv = [sys.executable, "-m", "triage", "--symptom", "CUDA out of memory at step 0", "--format", "json"]
    subprocess.run(argv, env=env, check=True, capture_output=True, timeout=120)
    (path,) = (tmp_path / "xdg" / "triage").glob("kb-*.json")
    path.write_bytes(b"\x80\x04\x8e" + (1 << 40).to_bytes(8, "little") + b"abc.")  # the review's MemoryError pickle
    first = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    second = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0 and second.returncode == 0
    assert first.stderr.count("\n") == 1 and "knowledge-base cache was damaged" in first.stderr
    assert second.stderr == ""
    assert json.loads(first.stdout) == json.loads(second.stdout)
