"""The snapshot reader on a snapshot that torch itself builds: torch.cuda._memory_viz converts a CPU
``torch.profiler`` memory profile into the ``_snapshot()`` format (frames named ``file.py(line): func``).
It is not a CUDA allocator snapshot (no real GPU here), but its structure and stacks come from torch, not from us."""

from __future__ import annotations

import pickle

import pytest

torch = pytest.importorskip("torch")

from torch.cuda._memory_viz import _profile_to_snapshot  # noqa: E402

from triage.ingest.snapshot import read_snapshot  # noqa: E402


def test_adamw_state_in_a_torch_built_snapshot_is_optimizer_state(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    opt = torch.optim.AdamW(model.parameters())
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(
        activities=activities, profile_memory=True, record_shapes=True, with_stack=True
    ) as prof:
        for _ in range(2):
            model(torch.randn(32, 64)).sum().backward()
            opt.step()
            opt.zero_grad()
    path = tmp_path / "profile-snapshot.pickle"
    path.write_bytes(pickle.dumps(_profile_to_snapshot(prof)))
    snap = read_snapshot(str(path))
    params = list(model.parameters())
    n = sum(p.numel() for p in params)
    # exp_avg and exp_avg_sq in fp32 per parameter, plus one fp32 step counter per parameter tensor
    assert snap.components["optimizer_state"] == 2 * 4 * n + 4 * len(params)
    assert snap.components["gradients"] == 0, "zero_grad(set_to_none=True) freed them"
    assert snap.allocated == sum(snap.components.values())
    top = [b for b in snap.largest if b.component == "optimizer_state"]
    assert top and all(b.where.startswith("test_snapshot_torch.py:") for b in top), "the call site outside torch"
