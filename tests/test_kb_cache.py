"""The knowledge-base cache: a hit gives the same knowledge, any edit is a miss, damage is harmless."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from triage.kb.cache import cache_dir, digest, load_cached
from triage.kb.loader import default_knowledge_dir, load_checked


@pytest.fixture
def kb_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TRIAGE_NO_CACHE", raising=False)
    root = tmp_path / "knowledge"
    shutil.copytree(default_knowledge_dir(), root)
    return root


def test_second_load_is_a_hit_with_the_same_content(kb_copy):
    first = load_checked(kb_copy)
    cached = load_cached(kb_copy.resolve())
    assert cached is not None
    assert cached.causes == first.causes and cached.remedies == first.remedies and cached.anchors == first.anchors


def test_an_edited_file_is_a_miss(kb_copy):
    load_checked(kb_copy)
    before = digest(kb_copy.resolve())
    path = next((kb_copy / "remedies").glob("*.yaml"))
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert digest(kb_copy.resolve()) != before
    assert load_cached(kb_copy.resolve()) is None


def test_a_damaged_cache_falls_back_to_yaml(kb_copy):
    kb = load_checked(kb_copy)
    for f in cache_dir().glob("kb-*.pickle"):
        f.write_bytes(b"not a pickle")
    assert load_cached(kb_copy.resolve()) is None
    assert load_checked(kb_copy).causes == kb.causes


def test_a_cache_others_can_write_is_ignored(kb_copy):
    load_checked(kb_copy)
    (f,) = cache_dir().glob("kb-*.pickle")
    os.chmod(f, 0o666)
    assert load_cached(kb_copy.resolve()) is None


def test_can_be_turned_off(kb_copy, monkeypatch):
    monkeypatch.setenv("TRIAGE_NO_CACHE", "1")
    load_checked(kb_copy)
    assert not Path(cache_dir()).exists() or not list(cache_dir().glob("kb-*.pickle"))
