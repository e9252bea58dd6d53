"""The estimator against published measured peaks (bench/data/published.yaml); no torch needed.

    python bench/validate_estimator.py --published        # writes the section of docs/validation.md
    python bench/published_peaks.py                       # prints the table only

Each row of the data file is a run someone measured and published (litgpt, torchtune, the PEFT docs),
with its settings as estimator facts. The estimate is compared with the published number on the same
counter:

* ``allocated`` / ``active`` (``torch.cuda.max_memory_allocated``, torchtune's peak active): the
  estimator's allocated peak (``Estimate.peak_bytes``);
* ``reserved``: the allocated peak plus the allocator item of the device band (expected);
* ``nvidia-smi``: the device band's expected total (CUDA context, cuBLAS workspaces, allocator segments,
  NCCL), with its low-high range beside it.

Rows published as out of memory are checked by the verdict instead (``does not fit`` is right). A row
with ``exclude`` stays in the table but out of the summary, and says why.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from triage.estimate import estimate  # noqa: E402
from triage.estimate.architecture import find_architecture, from_hf_config  # noqa: E402
from triage.estimate.records import Estimate  # noqa: E402

DATA = ROOT / "bench" / "data" / "published.yaml"
UNITS = {"GB": 1e9, "GiB": 2**30, "MB": 1e6, "MiB": 2**20}
GiB = 2**30

#: Targets of issue 13 for the published rows.
TARGET_MEDIAN = 8.0
TARGET_MAX = 25.0

HEADER = "## Published measured peaks"


@dataclass(frozen=True)
class Published:
    """One published measurement and the estimator's figure for the same counter."""

    id: str
    group: dict[str, Any]
    row: dict[str, Any]
    est: Estimate
    measured_bytes: float | None
    estimated_bytes: float
    """The estimator's figure for the row's counter."""

    @property
    def counter(self) -> str:
        return str(self.row.get("counter") or self.group["counter"])

    @property
    def unit(self) -> str:
        return str(self.row.get("unit") or self.group["unit"])

    @property
    def oom(self) -> bool:
        return bool(self.row.get("oom"))

    @property
    def excluded(self) -> str | None:
        return self.row.get("exclude")

    @property
    def gpus(self) -> int:
        return int(self.row["facts"].get("gpu_count", 1))

    @property
    def quantized(self) -> bool:
        return str(self.row["facts"].get("quantization", "none")) == "4bit"

    @property
    def error_pct(self) -> float | None:
        if self.measured_bytes is None:
            return None
        return (self.estimated_bytes - self.measured_bytes) / self.measured_bytes * 100

    @property
    def verdict(self) -> str:
        return self.est.verdict


def load(path: Path = DATA) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The groups and rows of the data file (safe loader)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data["groups"], data["rows"]


def figure_for(est: Estimate, counter: str) -> float:
    """The estimator's number for a published counter."""
    if counter in ("allocated", "active"):
        return float(est.peak_bytes)
    if counter == "reserved":
        alloc = next((i for i in est.device_total.items if i.name == "allocator"), None)
        return float(est.peak_bytes + (alloc.expected if alloc else 0))
    if counter == "nvidia-smi":
        return float(est.device_total.expected)
    raise ValueError(f"unknown counter {counter!r}")


def evaluate(row: dict[str, Any], groups: dict[str, Any]) -> Published:
    """Estimate one row and put the estimate on the row's counter."""
    group = groups[row["group"]]
    facts = dict(row["facts"])
    arch = None
    if row.get("hf_config"):
        arch = from_hf_config(row["hf_config"], source=f"{row['id']} config")
    elif row.get("untied"):
        preset = find_architecture(str(row["model"]))
        if preset is None:
            raise ValueError(f"{row['id']}: unknown preset {row['model']!r}")
        arch = replace(preset, tied=False)
    elif row.get("model") and "model_name" not in facts:
        facts["model_name"] = row["model"]
    est = estimate(facts, arch)
    counter = str(row.get("counter") or group["counter"])
    unit = UNITS[str(row.get("unit") or group["unit"])]
    measured = None if row.get("oom") else float(row["measured"]) * unit
    return Published(row["id"], group, row, est, measured, figure_for(est, counter))


def run(path: Path = DATA) -> list[Published]:
    groups, rows = load(path)
    return [evaluate(r, groups) for r in rows]


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    worst: float
    within_10: int
    oom_rows: int
    oom_predicted_fitting: int
    oom_borderline: int
    ran_predicted_not_fitting: int
    multi_gpu: int

    @property
    def met(self) -> bool:
        return self.median <= TARGET_MEDIAN and self.worst <= TARGET_MAX and self.oom_predicted_fitting == 0


def summarize(results: list[Published]) -> Summary:
    measured = [r for r in results if r.error_pct is not None and not r.excluded]
    errs = [abs(r.error_pct) for r in measured if r.error_pct is not None]
    oom = [r for r in results if r.oom and not r.excluded]
    ran_with_gpu = [r for r in measured if r.est.capacity_bytes]
    return Summary(
        n=len(measured),
        median=statistics.median(errs) if errs else 0.0,
        worst=max(errs) if errs else 0.0,
        within_10=sum(1 for e in errs if e <= 10),
        oom_rows=len(oom),
        oom_predicted_fitting=sum(1 for r in oom if r.verdict == "fits"),
        oom_borderline=sum(1 for r in oom if r.verdict == "borderline"),
        ran_predicted_not_fitting=sum(1 for r in ran_with_gpu if r.verdict == "does_not_fit"),
        multi_gpu=sum(1 for r in results if r.gpus > 1),
    )


def _num(x: float | None, unit: str) -> str:
    return "—" if x is None else f"{x / UNITS[unit]:.2f}"


VERDICT_WORDS = {"fits": "fits", "borderline": "borderline", "does_not_fit": "does not fit"}


def table(results: list[Published]) -> list[str]:
    """The markdown rows of the published table."""
    lines = [
        "| # | run | source | versions | counter | published | estimated | error % | verdict on the GPU | in summary |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(results, 1):
        unit = r.unit
        src = r.row.get("source") or r.group["source"]
        published = "OOM" if r.oom else f"{r.row['measured']} {unit}"
        est = f"{_num(r.estimated_bytes, unit)} {unit}"
        if r.counter == "nvidia-smi":
            band = r.est.device_total
            est += f" ({_num(band.low, unit)}-{_num(band.high, unit)})"
        err = "—" if r.error_pct is None else f"{r.error_pct:+.1f}"
        gpu = r.est.run.gpu.name if r.est.run.gpu else "?"
        verdict = VERDICT_WORDS[r.verdict] if r.est.capacity_bytes else "no GPU"
        if r.oom:
            verdict += " (right)" if r.verdict == "does_not_fit" else " (WRONG: published OOM)"
        if r.excluded:
            inclusion = f"no: {r.excluded}"
        elif r.oom:
            inclusion = "OOM check"
        else:
            inclusion = "yes"
        settings = r.row["settings"] + (f" ({r.row['note']})" if r.row.get("note") else "")
        lines.append(
            f"| {i} | `{r.id}`: {settings}; {r.gpus}x {gpu} | [{r.group['framework']}]({src}) | "
            f"{r.group['versions']} | {r.counter} | {published} | {est} | {err} | {verdict} | {inclusion} |"
        )
    return lines


def _group_stats(results: list[Published]) -> list[str]:
    """Median and max |error| per kind of run (summary rows only)."""
    kinds: dict[str, list[float]] = {}
    for r in results:
        if r.error_pct is None or r.excluded:
            continue
        method = str(r.row["facts"].get("finetune_method", "?"))
        key = f"{r.group['framework'].split(' ')[0]} {method}{' multi-GPU' if r.gpus > 1 else ''}"
        kinds.setdefault(key, []).append(r.error_pct)
    out = []
    for key in sorted(kinds):
        errs = kinds[key]
        out.append(
            f"* {key}: {len(errs)} rows, median error {statistics.median(errs):+.1f} %, "
            f"range {min(errs):+.1f} to {max(errs):+.1f} %"
        )
    return out


def section(results: list[Published]) -> list[str]:
    """The published-peaks section of docs/validation.md."""
    s = summarize(results)
    ok = "met" if s.met else "NOT met"
    lines = [
        HEADER,
        "",
        "<!-- generated by bench/validate_estimator.py --published (bench/published_peaks.py); do not edit by hand -->",
        "",
        "Measured peaks other people published, with the settings of each run read from the same source (the "
        "config files and scripts at the commit of the table), stored as estimator facts in "
        "`bench/data/published.yaml`. The estimate is put on the counter the number is: `allocated` and "
        "torchtune's `active` are compared with the allocated peak (`peak_bytes`); `reserved` with the allocated "
        "peak plus the allocator's expected segment overhead; `nvidia-smi` with the expected device total "
        "(CUDA context, cuBLAS workspaces, allocator segments, NCCL; the low-high band in brackets). Runs "
        "published as out of memory are checked by the verdict on their GPU, which must be *does not fit*. "
        "Runs on several GPUs are per-rank figures. Runs without torch: `python bench/validate_estimator.py "
        "--published`.",
        "",
        f"**{s.n} measured rows in the summary: median absolute error {s.median:.1f} %, max {s.worst:.1f} %, "
        f"{s.within_10} within 10 %; published OOM runs predicted to fit: {s.oom_predicted_fitting} of "
        f"{s.oom_rows} ({s.oom_borderline} borderline); runs that ran but are predicted not to fit: "
        f"{s.ran_predicted_not_fitting}; multi-GPU rows: {s.multi_gpu}** (targets: median <= "
        f"{TARGET_MEDIAN:.0f} %, max <= {TARGET_MAX:.0f} %, no OOM run predicted to fit: **{ok}**).",
        "",
        "Per kind of run (summary rows):",
        "",
        *_group_stats(results),
        "",
        *table(results),
        "",
    ]
    return lines


def main() -> int:
    results = run()
    print("\n".join(section(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
