"""Fuzz every reader and the user's whole path; probe time against input size.

    python bench/fuzz.py                      # quick: 2,000 inputs per reader target (~minutes)
    python bench/fuzz.py --full               # 100,000 inputs per target (hours for `api`)
    python bench/fuzz.py --targets text,config --n 50000 --jobs 2
    python bench/fuzz.py --probe-only         # only the timing probe (1 MB / 10 MB patterns)
    python bench/fuzz.py --no-probe --max-seconds 600

A bench, not a CI test: inputs come from hypothesis (random draws, no shrinking, no example
database) in three shapes per target: arbitrary text or bytes, token soups built from the
words the readers look for (OOM messages, config keys, version banners, ANSI sequences,
brackets, huge numbers), and real inputs mutated byte-wise (flips, inserted tokens, deleted,
duplicated and repeated ranges, splices, numbers replaced by extreme ones). The seeds are the
files under ``tests/fixtures`` (logs, configs, environment reports, OOM messages, report
texts) and the ``report`` texts of ``corpus/records/*.yaml``.

Targets (each runs in its own worker process, so a hang in one cannot stop the others):

- ``text``    triage.ingest.text.read_text
- ``oom``     triage.ingest.oom parse_message / find_reports / final_report / findings / other_process_bytes
- ``log``     triage.ingest.log.read_log_lines over iter_file_lines (a temp file) and iter_text_lines
- ``env``     triage.ingest.env.read_env over a temp file and over text
- ``config``  triage.ingest.config.read_config (parse_config_text, detect_kind, the rules) via lines.read_small
- ``config-data``  read_config on generated JSON/YAML documents whose keys are the ones the readers know
- ``sniff``   triage.ingest.sniff.sniff, with file names as hints
- ``session`` triage.api.build_session(kb, symptoms=[text]) and build_session(kb, inputs=[file])
- ``scorer``  triage.pipeline.scorer_for(kb, text): every knowledge regex and the similar-report index
- ``api``     build_session -> api.analyse -> render.contract.to_dict -> render_text, render_markdown,
              render.output.validated + render.outbound.json_text, for_terminal; also checks that the
              JSON is strict and that terminal text carries no escape or control character

Per target it prints inputs run, exceptions (type, first line, where, a saved reproducer) and
the slowest input. IngestError, FactError, KnowledgeError and InterviewError are the documented
answers to bad input and count as fine. Anything else, an input slower than --bound seconds per
100 KB, or a worker that hangs (--hang seconds on one input: the worker dumps its stack and the
input it was on is kept) makes the exit code 1.

The timing probe feeds adversarial patterns (long digit runs, repeated separators, deep
brackets, CJK runs, repeated OOM messages, ANSI escape storms, tqdm carriage returns ...) in
lines just under the readers' long-line cut (so nothing is truncated away) to read_text and the
symptom path at 100 KB and 1 MB (the CLI's symptom limit), to the config reader at 100 KB and
1 MB, and to the log reader at 1 MB and 10 MB through a temp file. It prints seconds per MB and
flags growth more than 1.5x the size ratio (10x the size, more than 15x the time).

Reproducers go to --out (default: $TMPDIR/triage-fuzz); see each one's ``.trace`` file.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import hashlib
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

QUICK_N = 2_000
QUICK_N_API = 200
FULL_N = 100_000
#: Seconds allowed per input of up to 100 KB (larger inputs: proportionally more).
BOUND = 2.0
#: Seconds on one input after which a worker is declared hung (its stack is dumped, it exits).
HANG = 120.0
#: Mutated inputs are cut to this many bytes (--max-input): small inputs run fast, and a
#: quadratic path still shows at this size (the probe below covers the large sizes).
DEFAULT_MAX_INPUT = 32 * 1024
MAX_INPUT = DEFAULT_MAX_INPUT

TARGETS = ("text", "oom", "log", "env", "config", "config-data", "sniff", "session", "scorer", "api")
EXPECTED = ("IngestError", "ConfigShapeError", "FactError", "KnowledgeError", "InterviewError")

# ---------------------------------------------------------------------------------------------
# Seeds and tokens
# ---------------------------------------------------------------------------------------------

TOKENS: tuple[str, ...] = (
    "CUDA out of memory. ",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "23.64 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.50 GiB memory in use. "
    "Of the allocated memory 13.20 GiB is allocated by PyTorch, and 8.90 GiB is reserved by PyTorch but unallocated.",
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity; ",
    "Process 12345 has 3.00 GiB memory in use. ",
    "DefaultCPUAllocator: can't allocate memory: you tried to allocate 123456789 bytes. ",
    "CUBLAS_STATUS_ALLOC_FAILED",
    "MPS backend out of memory",
    "Killed",
    "exitcode  : -9",
    "Traceback (most recent call last):\n",
    '  File "/x/trainer.py", line 1234, in train\n',
    "  0%|          | 0/1000 [00:00<?, ?it/s]",
    "\r 12%|███▌      | 120/1000 [01:02<07:33,  1.94it/s]",
    "{'loss': 1.2345, 'grad_norm': 0.5, 'learning_rate': 2e-05, 'epoch': 0.01}",
    "max_memory_allocated=12.34 GiB",
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
    "[rank0]: ",
    "- `transformers` version: 4.38.2\n",
    "- `Accelerate` version: 0.27.0\n",
    "PyTorch version: 2.1.0+cu121\n",
    "GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB\n",
    "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n",
    "|   0  NVIDIA GeForce RTX 3090  Off | 00000000:01:00.0 Off |  N/A |\n",
    "| 24000MiB / 24576MiB |",
    "torch==2.1.0\n",
    "peft                     0.7.1\n",
    "Package    Version\n",
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "gradient_checkpointing",
    "max_seq_length",
    "max_length",
    "lora_r",
    "lora_alpha",
    "target_modules",
    "torch_dtype",
    "bf16",
    "zero_optimization",
    "stage",
    "offload_optimizer",
    "load_in_4bit",
    "attn_implementation",
    "model_name_or_path",
    "meta-llama/Llama-2-7b-hf",
    "Qwen/Qwen2.5-72B-Instruct",
    "LLaMA-7B LoRA on a 3090",
    "batch size 4, ",
    "bs=8 ",
    "max_length 2048 ",
    "no gradient checkpointing",
    "use_cache=False",
    "8x A100 80GB",
    "24GB",
    "1e308",
    "-1",
    "nan",
    "inf",
    "99999999999999999999999999999999",
    "0x7fffffff",
    "评估的时候爆显存",
    "显存不足",
    "单卡 4090",
    ": ",
    " = ",
    "=",
    ",",
    "/",
    "\\",
    "---\n",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    "&a ",
    "*a",
    "!!python/object:os.system ",
    "!!binary ",
    "<<: *a",
    "? ",
    "- ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\x00",
    "\x1b[31m",
    "\x1b[0m",
    "\x1b]0;title\x07",
    "\x1b]52;c;aGVsbG8=\x07",
    "\x1b]8;;http://x\x1b\\",
    "\x1b[",
    "\x9b31m",
    "\u202e",
    "\ufeff",
    "\u2028",
    "https://user:pass@host/x",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "/home/alice/train.py",
)

INTERESTING_BYTES = (0x00, 0x0A, 0x0D, 0x1B, 0x22, 0x27, 0x3A, 0x3D, 0x5B, 0x5D, 0x7B, 0x7D, 0x7F, 0x80, 0xC3, 0xFF)
EXTREME_NUMBERS = (b"0", b"-1", b"1e308", b"1e-308", b"nan", b"inf", b"9" * 40, b"4294967296", b"0.0", b"-0", b"1_000")


def _report_texts(root: Path) -> list[str]:
    import yaml

    out: list[str] = []
    for path in sorted((root / "corpus" / "records").glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            continue
        records = data if isinstance(data, list) else (data or {}).get("records", []) if isinstance(data, dict) else []
        for rec in records:
            if isinstance(rec, dict) and isinstance(rec.get("report"), str):
                out.append(rec["report"])
    for path in sorted((root / "tests" / "fixtures" / "reports").glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            continue
        if isinstance(data, dict) and isinstance(data.get("report"), str):
            out.append(data["report"])
    return out


def _files(root: Path, patterns: Iterable[str]) -> list[bytes]:
    out = []
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if path.is_file():
                out.append(path.read_bytes())
    return out


def seeds_for(target: str, root: Path = ROOT) -> list[bytes]:
    """The real inputs mutated for ``target``."""
    fx = "tests/fixtures/"
    reports = [t.encode() for t in _report_texts(root)]
    logs = _files(root, [fx + "ingest/oom/*", fx + "e2e/*"])
    texts = _files(root, [fx + "ingest/text/*", fx + "reports/*.md"])
    envs = _files(root, [fx + "ingest/env/*"])
    configs = _files(root, [fx + "ingest/config/*", fx + "estimate/*.json", fx + "estimate/*.yaml"])
    report_yaml = _files(root, [fx + "reports/*.yaml"])
    by_target = {
        "text": reports + texts + logs,
        "oom": logs + reports,
        "log": logs + reports,
        "env": envs + reports,
        "config": configs + report_yaml,
        "config-data": configs,
        "sniff": logs + envs + configs + reports,
        "session": reports + texts + logs + envs + configs,
        "scorer": reports + texts + logs,
        "api": reports + texts + logs + envs + configs,
    }
    return by_target[target] or [b""]


def mutate(data: bytes, ops: Sequence[tuple[int, int, int, int]], seeds: Sequence[bytes]) -> bytes:
    """``data`` changed by each (op, a, b, c) in turn; positions are taken modulo the length."""
    buf = bytearray(data)
    for op, a, b, c in ops:
        n = len(buf)
        kind = op % 11
        if kind == 0 and n:  # flip bits
            buf[a % n] ^= 1 << (b % 8)
        elif kind == 1 and n:  # set an interesting byte
            buf[a % n] = INTERESTING_BYTES[b % len(INTERESTING_BYTES)]
        elif kind == 2:  # insert a token
            tok = TOKENS[b % len(TOKENS)].encode("utf-8", "surrogatepass")
            pos = a % (n + 1)
            buf[pos:pos] = tok * (1 + c % 3)
        elif kind == 3 and n:  # delete a range
            pos = a % n
            del buf[pos : pos + 1 + b % 256]
        elif kind == 4 and n:  # duplicate a range, up to 64 times
            pos = a % n
            chunk = bytes(buf[pos : pos + 1 + b % 512])
            buf[pos:pos] = chunk * (1 + c % 64)
        elif kind == 5 and seeds:  # splice in part of another seed
            other = seeds[b % len(seeds)]
            if other:
                start = c % len(other)
                piece = other[start : start + 1 + (a >> 8) % 4096]
                pos = a % (n + 1)
                buf[pos:pos] = piece
        elif kind == 6 and n:  # truncate
            del buf[a % n :]
        elif kind == 7 and n:  # repeat one line many times
            pos = a % n
            start = buf.rfind(b"\n", 0, pos) + 1
            end = buf.find(b"\n", pos)
            end = n if end < 0 else end + 1
            line = bytes(buf[start:end]) or b"\n"
            buf[end:end] = line * (1 + c % 2000)
        elif kind == 8:  # replace a number by an extreme one
            numbers = list(re.finditer(rb"\d+(?:\.\d+)?", bytes(buf)))
            if numbers:
                m = numbers[a % len(numbers)]
                buf[m.start() : m.end()] = EXTREME_NUMBERS[b % len(EXTREME_NUMBERS)]
        elif kind == 9:  # insert random bytes
            pos = a % (n + 1)
            rnd = random.Random(c)
            buf[pos:pos] = bytes(rnd.getrandbits(8) for _ in range(1 + b % 64))
        elif kind == 10 and n:  # swap two ranges' order (move a chunk)
            pos, size = a % n, 1 + b % 1024
            chunk = bytes(buf[pos : pos + size])
            del buf[pos : pos + size]
            dest = c % (len(buf) + 1)
            buf[dest:dest] = chunk
        if len(buf) > MAX_INPUT:
            del buf[MAX_INPUT:]
    return bytes(buf)


# ---------------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------------


def _strategy(target: str, seeds: Sequence[bytes]) -> SearchStrategy[bytes]:
    """One hypothesis strategy producing bytes for ``target``: arbitrary, token soup, or mutated seed."""
    from hypothesis import strategies as st

    u32 = st.integers(min_value=0, max_value=2**32 - 1)
    ops = st.lists(st.tuples(u32, u32, u32, u32), min_size=1, max_size=8)
    mutated = st.tuples(st.integers(min_value=0, max_value=len(seeds) - 1), ops).map(
        lambda t: mutate(seeds[t[0]], t[1], seeds)
    )
    encodings = st.sampled_from(["utf-8", "utf-8", "utf-8", "gb18030", "utf-16", "latin-1"])
    pieces = st.one_of(
        st.sampled_from(TOKENS),
        st.text(max_size=24),
        st.from_regex(r"\d{1,64}(?:\.\d{1,8})?", fullmatch=True),
        st.from_regex(r"[ \t]{0,8}[\n\r]{0,2}", fullmatch=True),
    )
    soup = st.tuples(st.lists(pieces, max_size=60), encodings).map(
        lambda t: "".join(t[0]).encode(t[1], errors="replace")
    )
    arbitrary = st.one_of(
        st.binary(max_size=4096),
        st.text(max_size=2048).map(lambda s: s.encode("utf-8", "surrogatepass")),
    )
    if target == "config-data":
        return _config_documents()
    return st.one_of(arbitrary, soup, mutated, mutated)


def _config_documents() -> SearchStrategy[bytes]:
    """JSON and YAML documents with keys the config reader knows and values of every type and size."""
    from hypothesis import strategies as st

    from triage.ingest.config import IRRELEVANT, RULES

    keys = sorted(RULES) + sorted(IRRELEVANT)[:50]
    key = st.one_of(st.sampled_from(keys), st.sampled_from(keys).map(str.upper), st.text(max_size=12))
    scalar = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(["auto", "true", "False", "bf16", "fp16", "int4", "all-linear", "1e308", "-1", "2GB", "nan"]),
        st.text(max_size=16),
    )
    value = st.recursive(
        scalar,
        lambda inner: st.one_of(
            st.lists(inner, max_size=6),
            st.dictionaries(key, inner, max_size=6),  # type: ignore[arg-type]
        ),
        max_leaves=25,
    )
    doc = st.dictionaries(key, value, min_size=1, max_size=15)

    def dump(pair: tuple[dict[str, Any], int]) -> bytes:
        data, style = pair
        if style == 0:
            return json.dumps(data, allow_nan=True).encode()
        if style == 1:
            return json.dumps(data, allow_nan=True, indent=2).encode()
        import yaml

        return yaml.safe_dump(data, allow_unicode=style == 2, default_flow_style=style == 3).encode(
            "utf-8", "surrogatepass"
        )

    return st.tuples(doc, st.integers(min_value=0, max_value=3)).map(dump)


# ---------------------------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------------------------


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


_NAMES = ("", "input", "x.json", "x.yaml", "x.yml", "x.log", "x.txt", "config", "env.txt", "run.out")
_TERMINAL_BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class InvariantError(AssertionError):
    """An output that breaks a promise of the README (strict JSON, no control characters)."""


def _no_constants(name: str) -> Any:
    raise InvariantError(f"json_text produced {name}, which is not JSON")


def _each(*calls: Callable[[], object]) -> None:
    """Run every call; then raise the first unexpected exception, else the first expected one."""
    errors: list[Exception] = []
    for call in calls:
        try:
            call()
        except Exception as exc:
            errors.append(exc)
    unexpected = [e for e in errors if type(e).__name__ not in EXPECTED]
    if unexpected or errors:
        raise (unexpected or errors)[0]


def make_target(target: str, tmp: Path) -> Callable[[bytes], None]:
    """The function that runs one input through ``target``."""
    tmp_file = str(tmp / "input")

    def to_file(data: bytes) -> str:
        with open(tmp_file, "wb") as fh:
            fh.write(data)
        return tmp_file

    if target == "text":
        from triage.ingest.text import read_text

        def run_text(data: bytes) -> None:
            read_text(_text(data))

        return run_text

    if target == "oom":
        from triage.ingest import oom
        from triage.ingest.logscan import Line

        def run_oom(data: bytes) -> None:
            text = _text(data)
            oom.parse_message(text)
            lines = [Line(i, t) for i, t in enumerate(text.splitlines(), start=1)]
            reports = oom.find_reports(lines)
            final = oom.final_report(reports)
            if final is not None:
                oom.findings(final, reports)
                oom.other_process_bytes(final)

        return run_oom

    if target == "log":
        from triage.ingest.lines import iter_file_lines, iter_text_lines
        from triage.ingest.log import read_log_lines

        def run_log(data: bytes) -> None:
            _each(
                lambda: read_log_lines(iter_file_lines(to_file(data))),
                lambda: read_log_lines(iter_text_lines(_text(data))),
            )

        return run_log

    if target == "env":
        from triage.ingest.env import read_env
        from triage.ingest.lines import iter_file_lines, iter_text_lines

        def run_env(data: bytes) -> None:
            _each(lambda: read_env(iter_file_lines(to_file(data))), lambda: read_env(iter_text_lines(_text(data))))

        return run_env

    if target in ("config", "config-data"):
        from triage.ingest.config import read_config
        from triage.ingest.lines import read_small

        def run_config(data: bytes) -> None:
            # read_config parses with parse_config_text; the file goes through read_small's decoding first
            read_config(read_small(to_file(data)), _NAMES[len(data) % len(_NAMES)] or "config")

        return run_config

    if target == "sniff":
        from triage.ingest.sniff import sniff

        def run_sniff(data: bytes) -> None:
            text = _text(data)
            sniff(text[: 1 << 16], _NAMES[zlib.crc32(data[:64]) % len(_NAMES)])

        return run_sniff

    from triage import api

    kb = api.knowledge()

    if target == "session":

        def run_session(data: bytes) -> None:
            _each(
                lambda: api.build_session(kb, symptoms=[_text(data)]),
                lambda: api.build_session(kb, inputs=[to_file(data)]),
            )

        return run_session

    if target == "scorer":
        from triage.pipeline import scorer_for

        def run_scorer(data: bytes) -> None:
            scorer_for(kb, _text(data)[: 64 * 1024])

        return run_scorer

    from triage.render.contract import to_dict
    from triage.render.markdown import render_markdown
    from triage.render.outbound import for_terminal, json_text
    from triage.render.output import validated
    from triage.render.text import render_text

    def run_api(data: bytes) -> None:
        text = _text(data)
        if data[:1] and data[0] % 2:
            session = api.build_session(kb, inputs=[to_file(data)], lang="zh" if data[0] % 4 == 3 else "en")
            symptom = None
        else:
            session = api.build_session(kb, symptoms=[text])
            symptom = text
        analysis = api.analyse(kb, session)
        out = to_dict(kb, analysis.diagnosis, memory=analysis.memory, similar=analysis.similar)
        printed = for_terminal(render_text(out)) + for_terminal(render_markdown(out, symptom=symptom))
        bad = _TERMINAL_BAD.search(printed)
        if bad:
            raise InvariantError(f"terminal output carries control character {bad.group()!r}")
        json.loads(json_text(validated(out)), parse_constant=_no_constants)

    return run_api


# ---------------------------------------------------------------------------------------------
# Worker: one target, N inputs
# ---------------------------------------------------------------------------------------------


@dataclass
class Finding:
    kind: str  # "exception" | "slow" | "hang"
    signature: str
    type: str
    message: str
    where: str
    reproducer: str
    size: int
    seconds: float
    count: int = 1


@dataclass
class Result:
    target: str
    inputs: int = 0
    expected: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    slowest_size: int = 0
    slowest_path: str = ""
    findings: list[Finding] = field(default_factory=list)
    crashed: str = ""


def _where(exc: BaseException) -> str:
    """The innermost frame inside triage (else the innermost frame): ``path:line in function``."""
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if f"{os.sep}triage{os.sep}" in f.filename] or frames
    if not mine:
        return "?"
    f = mine[-1]
    path = f.filename
    with contextlib.suppress(ValueError):
        path = str(Path(path).resolve().relative_to(ROOT))
    return f"{path}:{f.lineno} in {f.name}"


def _save(out: Path, stem: str, data: bytes, trace: str) -> str:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stem}.bin"
    path.write_bytes(data)
    (out / f"{stem}.trace").write_text(trace, encoding="utf-8")
    return str(path)


def _bound(size: int, bound: float) -> float:
    return bound * max(1.0, size / 100_000)


def run_worker(target: str, n: int, seed: int, out: Path, bound: float, hang: float, max_seconds: float) -> Result:
    """Run ``n`` inputs (or until ``max_seconds``) through ``target``; never raises for a finding."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    out.mkdir(parents=True, exist_ok=True)
    seeds = seeds_for(target)
    strategy = _strategy(target, seeds)
    result = Result(target)
    by_sig: dict[str, Finding] = {}
    current = out / "current.bin"
    hang_log = open(out / "hang.trace", "w", encoding="utf-8")  # noqa: SIM115 - faulthandler writes here until exit
    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix=f"fuzz-{target}-"))
    call = make_target(target, tmp)

    def one(data: bytes) -> None:
        if result.inputs >= n or time.monotonic() - started > max_seconds:
            return
        current.write_bytes(data)
        faulthandler.dump_traceback_later(hang, exit=True, file=hang_log)
        t0 = time.perf_counter()
        exc: Exception | None = None
        try:
            call(data)
        except Exception as e:
            exc = e
        dt = time.perf_counter() - t0
        faulthandler.cancel_dump_traceback_later()
        result.inputs += 1
        if dt > result.slowest:
            result.slowest, result.slowest_size = dt, len(data)
            result.slowest_path = _save(out, "slowest", data, f"{dt:.3f} s, {len(data)} bytes\n")
        if exc is not None and type(exc).__name__ in EXPECTED:
            result.expected += 1
        elif exc is not None:
            first = (str(exc).splitlines() or [""])[0][:200]
            where = _where(exc)
            sig = f"{type(exc).__name__} at {where}"
            have = by_sig.get(sig)
            if have is None or len(data) < have.size:
                stem = "exc-" + hashlib.sha1(sig.encode()).hexdigest()[:10]
                trace = "".join(traceback.format_exception(exc))
                path = _save(out, stem, data, trace)
                count = have.count + 1 if have else 1
                by_sig[sig] = Finding("exception", sig, type(exc).__name__, first, where, path, len(data), dt, count)
            else:
                have.count += 1
        if dt > _bound(len(data), bound):
            have = by_sig.get("slow")
            over = dt / _bound(len(data), bound)
            if have is None or over > have.seconds / _bound(have.size, bound):
                path = _save(out, "slow-" + hashlib.sha1(data).hexdigest()[:10], data, f"{dt:.3f} s\n")
                count = have.count + 1 if have else 1
                message = f"{dt:.2f} s on {len(data):,} bytes (bound {_bound(len(data), bound):.1f} s)"
                by_sig["slow"] = Finding("slow", "slow", "slow", message, "", path, len(data), dt, count)
            else:
                have.count += 1
        if result.inputs % max(1, n // 10) == 0:
            print(f"  [{target}] {result.inputs}/{n} inputs, {time.monotonic() - started:.0f} s", file=sys.stderr)

    rng = random.Random(seed)
    batch = 2_000
    stale = 0
    while result.inputs < n and time.monotonic() - started < max_seconds and stale < 5:
        before = result.inputs
        test: Callable[[], None] = given(strategy)(one)
        test = settings(
            max_examples=min(batch, n - result.inputs),
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            print_blob=False,
        )(test)
        test = hseed(rng.getrandbits(64))(test)
        test()
        stale = stale + 1 if result.inputs == before else 0
    result.seconds = time.monotonic() - started
    result.findings = sorted(by_sig.values(), key=lambda f: (f.kind, f.signature))
    hang_log.close()
    current.unlink(missing_ok=True)
    return result


# ---------------------------------------------------------------------------------------------
# Timing probe
# ---------------------------------------------------------------------------------------------

#: Characters per generated line: under the readers' cut (2 x 16,384), so whole lines are read.
PROBE_LINE = 30_000

PATTERNS: dict[str, str] = {
    "digits": "0123456789",
    "version-dots": "1.",
    "equals": "=",
    "colons": ":",
    "commas": ",",
    "slashes": "/",
    "kv-pairs": "a=1 ",
    "yaml-ish": "x: ",
    "spaces-digits": "1 ",
    "sizes": "1.5 GiB ",
    "brackets": "[",
    "bracket-braces": "[{",
    "quotes": '"',
    "cjk": "显",
    "cjk-oom": "爆显存",
    "cuda-oom": "CUDA out of memory. ",
    "ansi-sgr": "\x1b[31m",
    "ansi-osc-open": "\x1b]0;",
    "tqdm-cr": "\r 12%|███▌      | 120/1000 [01:02<07:33,  1.94it/s]",
    "word-dash": "a-",
    "lora-kv": "lora_r=16 ",
    "bs-kv-comma": "bs=8,",
}


def pattern_text(unit: str, size: int, line: int = PROBE_LINE) -> str:
    """About ``size`` characters of ``unit`` repeated, in lines of ``line`` characters."""
    body = (unit * (line // len(unit) + 1))[:line]
    count = max(1, size // (line + 1))
    return "\n".join([body] * count) + "\n"


def oom_lines(size: int) -> str:
    """Whole OOM messages, one per line (every line a report the OOM reader parses)."""
    line = TOKENS[1] + "\n"
    return line * max(1, size // len(line))


@dataclass
class ProbeRow:
    channel: str
    pattern: str
    small_mb: float
    small_s: float
    big_mb: float
    big_s: float
    error: str = ""

    @property
    def ratio(self) -> float:
        return self.big_s / max(self.small_s, 0.005)

    @property
    def superlinear(self) -> bool:
        return self.ratio > 1.5 * (self.big_mb / self.small_mb) and self.big_s > 0.5


class ProbeTimeout(Exception):
    """One probe measurement ran past --probe-timeout."""


def _alarm(signum: int, frame: object) -> None:
    raise ProbeTimeout


def run_probe(
    patterns: Sequence[str], channels: Sequence[str], log_mb: Sequence[float], timeout: float = 60.0
) -> list[ProbeRow]:
    """Time every pattern through every channel at its two sizes; a measurement past ``timeout`` is cut short."""
    import signal

    signal.signal(signal.SIGALRM, _alarm)
    from triage import api
    from triage.ingest.config import read_config
    from triage.ingest.errors import IngestError
    from triage.ingest.lines import iter_file_lines
    from triage.ingest.log import read_log_lines
    from triage.ingest.text import read_text

    kb = api.knowledge() if "session" in channels else None
    tmp = Path(tempfile.mkdtemp(prefix="fuzz-probe-")) / "probe.log"

    def t_text(text: str) -> float:
        t0 = time.perf_counter()
        read_text(text)
        return time.perf_counter() - t0

    def t_session(text: str) -> float:
        assert kb is not None
        t0 = time.perf_counter()
        api.build_session(kb, symptoms=[text])
        return time.perf_counter() - t0

    def t_config(text: str) -> float:
        t0 = time.perf_counter()
        with contextlib.suppress(IngestError):
            read_config(text, "probe.yaml")
        return time.perf_counter() - t0

    def t_log(text: str) -> float:
        tmp.write_text(text, encoding="utf-8")
        t0 = time.perf_counter()
        read_log_lines(iter_file_lines(str(tmp)))
        return time.perf_counter() - t0

    sizes = {"read_text": (0.1, 1.0), "session": (0.1, 1.0), "config": (0.1, 1.0), "log-file": tuple(log_mb)}
    funcs: dict[str, Callable[[str], float]] = {
        "read_text": t_text,
        "session": t_session,
        "config": t_config,
        "log-file": t_log,
    }
    rows = []
    for channel in channels:
        small, big = sizes[channel]
        for name in patterns:

            def make(mb: float, name: str = name) -> str:
                size = int(mb * 1_000_000)
                return oom_lines(size) if name == "oom-lines" else pattern_text(PATTERNS[name], size)

            row = ProbeRow(channel, name, small, 0.0, big, 0.0)
            which = "small"
            try:
                signal.setitimer(signal.ITIMER_REAL, timeout)
                row.small_s = funcs[channel](make(small))
                which = "big"
                signal.setitimer(signal.ITIMER_REAL, timeout)
                row.big_s = funcs[channel](make(big))
                signal.setitimer(signal.ITIMER_REAL, 0)
            except ProbeTimeout:
                row.error = f"TIMEOUT: the {which} input ran past {timeout:.0f} s"
                if which == "small":
                    row.small_s = row.big_s = timeout
                else:
                    row.big_s = timeout
            except Exception as exc:
                signal.setitimer(signal.ITIMER_REAL, 0)
                row.error = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:80]}"
            rows.append(row)
            flag = "SUPER-LINEAR" if row.superlinear else ""
            print(
                f"  probe {channel:9} {name:15} {small:>5} MB {row.small_s:8.3f} s   {big:>5} MB {row.big_s:8.3f} s"
                f"  x{row.ratio:6.1f} {flag} {row.error}",
                file=sys.stderr,
                flush=True,
            )
    tmp.unlink(missing_ok=True)
    return rows


# ---------------------------------------------------------------------------------------------
# Parent: spawn workers, print the table, exit code
# ---------------------------------------------------------------------------------------------


def _spawn(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    fh = open(log, "wb")  # noqa: SIM115 - the child writes here; closed when the parent exits
    return subprocess.Popen([sys.executable, str(Path(__file__).resolve()), *argv], stdout=fh, stderr=fh)


def _print_result(r: Result) -> bool:
    bad = False
    status = "ok"
    if r.crashed:
        status, bad = "HANG/CRASH", True
    elif any(f.kind in ("exception", "slow") for f in r.findings):
        status, bad = "FOUND", True
    print(
        f"{r.target:12} inputs {r.inputs:>7,}  expected-errors {r.expected:>6,}  time {r.seconds:7.1f} s  "
        f"slowest {r.slowest * 1000:8.1f} ms ({r.slowest_size:,} B)  {status}"
    )
    if r.crashed:
        print(f"    {r.crashed}")
    for f in r.findings:
        print(f"    [{f.kind}] x{f.count} {f.type}: {f.message}")
        if f.where:
            print(f"        at {f.where}")
        print(f"        reproducer ({f.size:,} B): {f.reproducer}")
    return bad


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help=f"{FULL_N:,} inputs per target")
    parser.add_argument("--n", type=int, help="inputs per target (overrides --full and the quick default)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated: " + ", ".join(TARGETS))
    parser.add_argument("--jobs", type=int, default=1, help="workers at once (timings are fairest with 1)")
    parser.add_argument("--seed", type=int, default=0, help="0: a fresh random seed")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "triage-fuzz")
    parser.add_argument("--bound", type=float, default=BOUND, help="seconds allowed per input of up to 100 KB")
    parser.add_argument("--hang", type=float, default=HANG, help="seconds on one input that count as a hang")
    parser.add_argument("--max-seconds", type=float, default=math.inf, help="wall-time cap per target")
    parser.add_argument("--max-input", type=int, default=DEFAULT_MAX_INPUT, help="bytes a mutated input is cut to")
    parser.add_argument("--probe-timeout", type=float, default=60.0, help="seconds per probe measurement")
    parser.add_argument("--no-probe", action="store_true")
    parser.add_argument("--probe-only", action="store_true")
    parser.add_argument("--probe-patterns", default=",".join([*PATTERNS, "oom-lines"]))
    parser.add_argument("--probe-channels", default="read_text,session,config,log-file")
    parser.add_argument("--probe-log-mb", default="1,10", help="the log reader's two sizes in MB")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    global MAX_INPUT
    MAX_INPUT = args.max_input
    if args.worker == "probe":
        rows = run_probe(
            args.probe_patterns.split(","),
            args.probe_channels.split(","),
            [float(x) for x in args.probe_log_mb.split(",")],
            args.probe_timeout,
        )
        args.result.write_text(json.dumps([asdict(r) for r in rows]))
        return 0
    if args.worker:
        n = args.n
        result = run_worker(args.worker, n, args.seed, args.out / args.worker, args.bound, args.hang, args.max_seconds)
        args.result.write_text(json.dumps(asdict(result)))
        return 0

    seed = args.seed or random.SystemRandom().getrandbits(32)
    targets = [t for t in args.targets.split(",") if t]
    unknown = set(targets) - set(TARGETS)
    if unknown:
        parser.error(f"unknown targets: {', '.join(sorted(unknown))}")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    print(f"fuzz: seed {seed}, out {out}", flush=True)

    jobs: list[tuple[str, list[str]]] = []
    if not args.probe_only:
        for i, target in enumerate(targets):
            n = args.n or (FULL_N if args.full else QUICK_N_API if target == "api" else QUICK_N)
            worker_argv = ["--worker", target, "--n", str(n), "--seed", str(seed + i), "--out", str(out)]
            worker_argv += ["--bound", str(args.bound), "--hang", str(args.hang)]
            worker_argv += ["--max-seconds", str(args.max_seconds), "--max-input", str(args.max_input)]
            jobs.append((target, worker_argv))
    if not args.no_probe:
        jobs.append(
            (
                "probe",
                [
                    "--worker",
                    "probe",
                    "--probe-patterns",
                    args.probe_patterns,
                    "--probe-channels",
                    args.probe_channels,
                    "--probe-log-mb",
                    args.probe_log_mb,
                    "--probe-timeout",
                    str(args.probe_timeout),
                ],
            )
        )

    running: list[tuple[str, subprocess.Popen[bytes], Path, Path]] = []
    failed = False
    pending = list(jobs)
    results: dict[str, Any] = {}
    while pending or running:
        while pending and len(running) < max(1, args.jobs):
            name, wargv = pending.pop(0)
            res_path = out / f"{name}.result.json"
            res_path.unlink(missing_ok=True)
            log = out / f"{name}.log"
            running.append((name, _spawn([*wargv, "--result", str(res_path)], log), res_path, log))
        time.sleep(0.5)
        for item in list(running):
            name, proc, res_path, log = item
            if proc.poll() is None:
                continue
            running.remove(item)
            if res_path.exists():
                results[name] = json.loads(res_path.read_text())
            else:
                results[name] = {"crashed": f"worker exited {proc.returncode}; see {log}"}
                target_out = out / name
                if (target_out / "current.bin").exists():
                    kept = target_out / f"hang-{int(time.time())}.bin"
                    (target_out / "current.bin").rename(kept)
                    results[name]["crashed"] += f" and {target_out / 'hang.trace'}; the input: {kept}"

    print()
    for name, _ in jobs:
        data = results.get(name, {})
        if name == "probe":
            continue
        if "target" not in data:
            failed = True
            print(f"{name:12} HANG/CRASH {data.get('crashed', '')}")
            continue
        findings = [Finding(**f) for f in data.pop("findings")]
        failed |= _print_result(Result(**data, findings=findings))
    if "probe" in results:
        print("\ntiming probe (seconds; s/MB; growth = big/small time)")
        probe = results["probe"]
        if isinstance(probe, dict):
            failed = True
            print(f"  {probe.get('crashed')}")
        else:
            print(f"  {'channel':9} {'pattern':15} {'small':>12} {'s/MB':>7} {'big':>13} {'s/MB':>7} {'growth':>7}")
            for raw in probe:
                row = ProbeRow(**raw)
                flag = "SUPER-LINEAR" if row.superlinear else ""
                failed |= row.superlinear or bool(row.error)
                print(
                    f"  {row.channel:9} {row.pattern:15} {row.small_mb:>4} MB {row.small_s:6.3f}"
                    f" {row.small_s / row.small_mb:7.3f} {row.big_mb:>5} MB {row.big_s:6.3f}"
                    f" {row.big_s / row.big_mb:7.3f} {row.ratio:6.1f}x {flag}{row.error}"
                )
    print(f"\nfuzz: {'FAILED' if failed else 'ok'} (seed {seed})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
