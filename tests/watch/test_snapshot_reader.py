"""``triage diagnose --snapshot``: a plain-data unpickler, and live memory attributed to components from the stacks."""

from __future__ import annotations

import collections
import json
import os
import pickle

import pytest
from conftest import STACKS, GiB, MiB, snapshot

from triage.cli import main
from triage.ingest.errors import IngestError
from triage.ingest.snapshot import COMPONENTS, attribute, component_of, load_plain, read_snapshot

LIVE = {
    "weights": 14 * GiB,
    "optimizer_state": 1 * GiB,
    "gradients": 512 * MiB,
    "activations": 3 * GiB,
    "logits_loss": 2 * GiB,
    "kv_cache": 256 * MiB,
}


@pytest.mark.parametrize("component", sorted(STACKS))
def test_each_stack_is_attributed_to_its_component(component):
    assert component_of(STACKS[component]) == component


def test_the_order_of_frames_does_not_change_the_component():
    for component, frames in STACKS.items():
        assert component_of(list(reversed(frames))) == component


def test_a_block_without_a_stack_is_other():
    assert component_of([]) == "other"


def test_live_memory_is_summed_per_component(snapshot_file):
    snap = read_snapshot(str(snapshot_file(snapshot(LIVE, free=64 * MiB, bare=100 * MiB))))
    for name, size in LIVE.items():
        assert snap.components[name] == size
    assert snap.components["other"] == 100 * MiB and snap.without_stack == 100 * MiB
    assert snap.allocated == sum(LIVE.values()) + 100 * MiB
    assert snap.reserved == snap.allocated + len(LIVE) * 64 * MiB
    assert snap.requested == 2 * GiB and snap.device_free == 300 * MiB
    assert snap.largest[0].component == "weights" and snap.largest[0].bytes == 14 * GiB
    assert set(snap.components) == set(COMPONENTS)


def test_without_an_oom_event_it_says_the_snapshot_is_not_at_the_failure():
    snap = attribute(snapshot({"weights": GiB}, oom=None))
    assert snap.requested is None
    assert any("no out-of-memory event" in n for n in snap.notes)


def test_the_cli_shows_the_snapshot_beside_the_estimate(capsys, snapshot_file):
    path = snapshot_file(snapshot(LIVE))
    args = [
        "diagnose",
        "--snapshot",
        str(path),
        "--fact",
        "model_name=meta-llama/Llama-3.1-8B",
        "--fact",
        "gpu_name=RTX 4090",
    ]
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["component"]: r for r in data["snapshot"]["rows"]}
    assert rows["weights"]["snapshot_gib"] == 14.0 and rows["kv_cache"]["snapshot_gib"] == 0.25
    assert rows["weights"]["estimate_gib"] and rows["weights"]["estimate_gib"] > 10, "the estimate's weights beside it"
    assert data["facts"]["torch_allocated_bytes"]["source"] == "snapshot"
    assert data["facts"]["oom_requested_bytes"]["value"] == 2 * GiB
    for lang, word in (("en", "optimizer state"), ("zh", "优化器状态")):
        assert main([*args, "--lang", lang]) == 0
        text = capsys.readouterr().out
        assert word in text and "14.00" in text
        assert main([*args, "--lang", lang, "--format", "markdown"]) == 0
        assert f"| {word} | 1.00 |" in capsys.readouterr().out


class Thing:
    pass


class Boom:
    def __reduce__(self):
        return (os.system, ("touch pwned-by-pickle",))


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        (Boom(), "posix.system"),
        (Thing(), "Thing"),
        (collections.OrderedDict(a=1), "collections.OrderedDict"),
        ({"segments": [], "x": {1, 2}}, "holds a set"),
        ({"segments": [], "x": b"raw"}, "holds a bytes"),
    ],
)
def test_anything_but_plain_data_is_refused(capsys, tmp_path, monkeypatch, payload, says):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil.pickle"
    path.write_bytes(pickle.dumps(payload))
    assert main(["diagnose", "--snapshot", str(path)]) == 3
    err = capsys.readouterr().err.strip()
    assert says in err and "refused" in err and "\n" not in err
    assert not (tmp_path / "pwned-by-pickle").exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"", "not a readable pickle"),
        (b"not a pickle at all", "not a readable pickle"),
        (pickle.dumps({"blocks": []}), "no 'segments' list"),
        (pickle.dumps({"segments": [{"total_size": 5}]}), "segments[0] has no 'blocks' list"),
        (
            pickle.dumps({"segments": [{"total_size": 5, "blocks": [{"size": "big", "state": "active_allocated"}]}]}),
            "is not a size",
        ),
        (pickle.dumps({"segments": []}), "no memory segments"),
    ],
)
def test_foreign_or_broken_snapshots_are_one_line(capsys, tmp_path, content, says):
    path = tmp_path / "s.pickle"
    path.write_bytes(content)
    assert main(["diagnose", "--snapshot", str(path)]) == 3
    err = capsys.readouterr().err.strip()
    assert says in err and "\n" not in err


def test_the_file_size_is_bounded(tmp_path):
    path = tmp_path / "big.pickle"
    path.write_bytes(pickle.dumps(list(range(1000))))
    with pytest.raises(IngestError, match="MiB a snapshot may have"):
        load_plain(str(path), limit=100)


def test_deep_nesting_is_refused(tmp_path):
    data: list = []
    for _ in range(100):
        data = [data]
    path = tmp_path / "deep.pickle"
    path.write_bytes(pickle.dumps(data))
    with pytest.raises(IngestError, match="nested more than"):
        load_plain(str(path))
