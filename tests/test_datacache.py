"""The JSON cache of bundled YAML data and of the similar-report index: same answers, faster, never trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from triage import datacache
from triage.corpus import load_corpus
from triage.datacache import cache_dir, yaml_data
from triage.similar import Index


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TRIAGE_NO_CACHE", raising=False)
    return tmp_path


def _files(kind: str) -> list[Path]:
    folder = cache_dir()
    assert folder is not None
    return sorted(folder.glob(f"{kind}-*.json"))


def test_yaml_is_read_once_then_from_the_cache(tmp_path, monkeypatch):
    src = tmp_path / "a.yaml"
    src.write_text("models:\n  - id: x\n    layers: 32\n", encoding="utf-8")
    assert yaml_data("t", [src]) == [{"models": [{"id": "x", "layers": 32}]}]
    assert len(_files("t")) == 1

    def no_yaml(_text: str) -> None:
        raise AssertionError("parsed the YAML again")

    monkeypatch.setattr(datacache, "safe_yaml", no_yaml)
    assert yaml_data("t", [src]) == [{"models": [{"id": "x", "layers": 32}]}]


def test_an_edited_file_is_read_again(tmp_path):
    src = tmp_path / "a.yaml"
    src.write_text("v: 1\n", encoding="utf-8")
    assert yaml_data("t", [src]) == [{"v": 1}]
    src.write_text("v: 2\n", encoding="utf-8")
    assert yaml_data("t", [src]) == [{"v": 2}]


def test_data_json_cannot_hold_is_never_cached_or_changed(tmp_path):
    src = tmp_path / "a.yaml"
    src.write_text("when: 2024-01-02\n1: one\n", encoding="utf-8")
    first = yaml_data("t", [src])
    assert yaml_data("t", [src]) == first
    assert str(first[0]["when"]) == "2024-01-02" and first[0][1] == "one"
    assert _files("t") == []


@pytest.mark.parametrize("damage", [b"{not json", b"[1, 2, 3]", b'{"a": 1}', b"\x80\x04K\x01."])
def test_a_damaged_copy_is_ignored_and_rewritten(tmp_path, damage):
    src = tmp_path / "a.yaml"
    src.write_text("v: 1\n", encoding="utf-8")
    yaml_data("t", [src])
    (path,) = _files("t")
    path.write_bytes(damage)
    assert yaml_data("t", [src]) == [{"v": 1}]
    assert json.loads(path.read_bytes()) == [{"v": 1}]


def test_a_copy_others_can_write_is_never_read(tmp_path):
    src = tmp_path / "a.yaml"
    src.write_text("v: 1\n", encoding="utf-8")
    yaml_data("t", [src])
    (path,) = _files("t")
    path.write_text('[{"v": "planted"}]', encoding="utf-8")
    os.chmod(path, 0o666)
    assert yaml_data("t", [src]) == [{"v": 1}]


def test_no_cache_means_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_NO_CACHE", "1")
    src = tmp_path / "a.yaml"
    src.write_text("v: 1\n", encoding="utf-8")
    assert yaml_data("t", [src]) == [{"v": 1}]
    folder = cache_dir()
    assert folder is None or not folder.exists()


def test_only_the_newest_files_of_a_kind_are_kept(tmp_path):
    src = tmp_path / "a.yaml"
    for i in range(datacache.KEEP + 3):
        src.write_text(f"v: {i}\n", encoding="utf-8")
        yaml_data("t", [src])
    assert len(_files("t")) == datacache.KEEP


def test_the_similar_index_from_the_cache_ranks_as_a_fresh_one():
    records = [r for r in load_corpus() if r.scope == "in"]
    fresh = Index(records)
    assert _files("similar"), "the index was not cached"
    cached = Index(records)
    query = "显存不够，LLaMA-7B LoRA on a 3090, max_length 2048, out of memory at step 0"
    assert cached.idf == fresh.idf and cached.vectors == fresh.vectors
    assert cached.nearest(query) == fresh.nearest(query)


def test_a_tampered_similar_index_is_rebuilt():
    records = [r for r in load_corpus() if r.scope == "in"][:20]
    fresh = Index(records)
    (path,) = _files("similar")
    doc = json.loads(path.read_bytes())
    doc["vectors"][0] = {"gpu": "not a number"}
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert Index(records).vectors == fresh.vectors
