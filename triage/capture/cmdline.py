"""Read a training command line as configuration.

``torchrun --nproc_per_node 4 train.py --per_device_train_batch_size 4 --gradient_checkpointing True
--deepspeed ds.json`` says how many GPUs the run uses, how it is distributed, and the same settings a
``TrainingArguments`` JSON would: an HF argument name is the same key as in that JSON, so the
arguments are handed to :func:`triage.ingest.config.read_config` as one mapping and typed by its
rules (nothing here repeats its key table). ``key=value`` overrides (LLaMA-Factory, axolotl) are
read the same way, and every ``.json``/``.yaml``/``.yml`` argument is listed for the config readers.

The launchers understood: ``python [-m module] x.py``, ``accelerate launch``, ``torchrun`` (and
``python -m torch.distributed.run``), ``deepspeed``, ``llamafactory-cli train x.yaml`` and
``axolotl train x.yml``; an ``env VAR=value`` prefix is looked through.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from triage.ingest.config import RULES, read_config
from triage.ingest.errors import IngestError
from triage.ingest.found import Found, excerpt

#: The source label of every fact read from the command line.
COMMAND_LINE = "command line"

CONFIG_SUFFIXES = (".json", ".yaml", ".yml")
_PYTHON = re.compile(r"^(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:\.exe)?$")
_KEY = re.compile(r"^[A-Za-z_][\w.-]*$")

# Launcher options that take no value (everything else written ``--opt value`` consumes the next token).
_TORCHRUN_FLAGS = frozenset(
    {"--standalone", "--no_python", "--no-python", "--run_path", "--run-path", "-m", "--module"}
)
_ACCELERATE_FLAGS = frozenset(
    {
        "--multi_gpu", "--multi-gpu", "--use_deepspeed", "--use-deepspeed", "--use_fsdp", "--use-fsdp", "--cpu",
        "--debug", "-q", "--quiet", "--tpu", "--use_cpu", "-m", "--module", "--no_python", "--no-python",
        "--same_network", "--same-network", "--use_megatron_lm", "--use-megatron-lm", "--dynamo_use_fullgraph",
        "--dynamo_use_dynamic", "--downcast_bf16", "--enable_cpu_affinity", "--rdzv_conf", "--tpu_use_cluster",
        "--fsdp_use_orig_params", "--fsdp_sync_module_states", "--fsdp_offload_params", "--offload_params",
    }
)  # fmt: skip
_DEEPSPEED_FLAGS = frozenset(
    {"--module", "--no_python", "--no-python", "--no_local_rank", "--no_ssh_check", "--force_multi", "--save_pid",
     "--autotuning", "--elastic_training", "--bind_cores_to_rank", "--enable_each_rank_log", "--no_ssh"}
)  # fmt: skip
_MODULE_LAUNCHERS = {
    "torch.distributed.run": "torchrun",
    "torch.distributed.launch": "torchrun",
    "accelerate.commands.launch": "accelerate",
    "deepspeed.launcher.runner": "deepspeed",
}


@dataclass(frozen=True)
class CommandReading:
    """What a command line says about the run."""

    launcher: str
    """python, torchrun, accelerate, deepspeed, llamafactory, axolotl or other."""
    interpreter: str | None
    """The Python interpreter that runs the user's code (a path or a name on PATH), when there is one."""
    launcher_found: tuple[Found, ...] = ()
    """What the launcher says (GPU count, how the run is distributed): weaker than any config."""
    found: tuple[Found, ...] = ()
    """What the arguments of the training script say (``--key value``, ``key=value``)."""
    config_files: tuple[str, ...] = ()
    """``.json``/``.yaml``/``.yml`` arguments that exist, in the order given (relative to the working directory)."""
    unknown_keys: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    """``VAR=value`` set by an ``env`` prefix."""


@dataclass
class _Args:
    """Script arguments: ``{key: value}`` with the tokens that said each, and the positional tokens."""

    values: dict[str, object] = field(default_factory=dict)
    said: dict[str, str] = field(default_factory=dict)
    positional: list[str] = field(default_factory=list)


def _is_option(token: str) -> bool:
    return token.startswith("-") and len(token) > 1 and not re.fullmatch(r"-\d+(?:\.\d*)?(?:e-?\d+)?", token)


def parse_script_args(tokens: Sequence[str]) -> _Args:
    """HF-style ``--key value``, ``--key=value``, bare ``--flag``, ``--key v1 v2`` and ``key=value`` tokens."""
    out = _Args()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token == "--":
            continue
        if _is_option(token):
            name, eq, value = token.lstrip("-").partition("=")
            key = name.replace("-", "_")
            if not key:
                continue
            if eq:
                _put(out, key, value, token)
                continue
            values = []
            while i < len(tokens) and not _is_option(tokens[i]) and not _is_assignment(tokens[i]):
                values.append(tokens[i])
                i += 1
            said = " ".join([token, *values])
            if not values:
                _put(out, key, True, said)
            elif len(values) == 1:
                _put(out, key, values[0], said)
            else:
                _put(out, key, values, said)
            continue
        if _is_assignment(token):
            key, _, value = token.partition("=")
            _put(out, key.replace("-", "_"), value, token)
            continue
        out.positional.append(token)
    return out


def _is_assignment(token: str) -> bool:
    key, eq, _ = token.partition("=")
    return bool(eq) and _KEY.match(key) is not None and not token.startswith("-")


def _put(out: _Args, key: str, value: object, said: str) -> None:
    """One argument; ``--no_<flag>`` (HfArgumentParser's negation of a boolean) is ``<flag>: false``."""
    if key.startswith("no_") and value is True and key[3:].lower() in RULES:
        key, value = key[3:], False
    out.values.pop(key, None)  # the last one given wins, and is listed last
    out.values[key] = value
    out.said[key] = said


def _path_like(value: object) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [v for v in values if isinstance(v, str) and v.lower().endswith(CONFIG_SUFFIXES)]


def read_script_args(
    tokens: Sequence[str], cwd: str, defaults: bool = False
) -> tuple[list[Found], list[str], list[str], list[str]]:
    """Facts, config files, unknown keys and notes of a training script's arguments.

    ``defaults``: the arguments are the whole config of a framework (``llamafactory-cli train --key value
    ...`` with no config file), so its defaults for what they leave out hold.
    """
    args = parse_script_args(tokens)
    configs = [p for p in args.positional if p.lower().endswith(CONFIG_SUFFIXES)]
    for value in args.values.values():
        configs += _path_like(value)
    model = args.values.get("model_name_or_path")
    if isinstance(model, str) and os.path.isfile(os.path.join(cwd, model, "config.json")):
        configs.append(os.path.join(model, "config.json"))
    named = bool(configs)
    configs = [p for p in dict.fromkeys(configs) if os.path.isfile(os.path.join(cwd, p))]
    if not args.values:
        return [], configs, [], []
    options = dict(args.values)
    ds = options.get("deepspeed")
    if isinstance(ds, str) and ds in configs:
        options["deepspeed"] = True  # the file itself says the stage; its name is only a guess
    keys = list(options)
    text = "{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(options[k])}" for k in keys) + "\n}"
    try:
        reading = read_config(text, COMMAND_LINE)
    except IngestError as exc:  # pragma: no cover - the text is JSON written here
        return [], configs, [], [f"{COMMAND_LINE}: arguments not read ({exc})"]
    found = []
    for item in reading.found:
        # the config reader's own key rules say nothing more than the key (no note); a note marks what it
        # infers from the kind of config (a framework's defaults, the framework itself), which holds only
        # for a whole config of that framework, not for overrides of a config file or a script's arguments
        if item.note is not None and (named or not defaults):
            continue
        said = args.said[keys[item.line - 2]] if item.line is not None and 2 <= item.line < 2 + len(keys) else None
        found.append(Found(item.name, item.raw, None, excerpt(said) if said else None, item.note))
    return found, configs, list(reading.unknown_keys), list(reading.notes)


def _interpreter_of(program: str) -> str | None:
    """The Python interpreter a console script runs (from its ``#!`` line), or None."""
    path = program if os.sep in program else shutil.which(program)
    if not path:
        return None
    try:
        with open(path, "rb") as fh:
            first = fh.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
        if not words:
            return None
    return words[0] if _PYTHON.match(os.path.basename(words[0])) else None


def _launcher_options(tokens: Sequence[str], flags: frozenset[str]) -> tuple[dict[str, str | bool], list[str], int]:
    """Options before the launched program: ``{name: value}``, the tokens that said them, where the program starts."""
    options: dict[str, str | bool] = {}
    said: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not _is_option(token):
            break
        name, eq, value = token.partition("=")
        key = name.lstrip("-").replace("-", "_")
        if eq:
            options[key] = value
            said.append(token)
            i += 1
        elif token in flags or i + 1 >= len(tokens) or tokens[i + 1].endswith(".py"):
            options[key] = True
            said.append(token)
            i += 1
        else:
            options[key] = tokens[i + 1]
            said.append(f"{token} {tokens[i + 1]}")
            i += 2
    return options, said, i


def _int_option(options: dict[str, str | bool], *names: str) -> tuple[int | None, str | None]:
    for name in names:
        value = options.get(name)
        if isinstance(value, str) and value.isdigit() and int(value) > 0:
            return int(value), name
    return None, None


def _said(said: list[str], key: str) -> str | None:
    for token in said:
        if token.lstrip("-").replace("-", "_").startswith(key):
            return token
    return None


def accelerate_default_config(env: Mapping[str, str]) -> str | None:
    """The config ``accelerate launch`` falls back to (``accelerate config`` writes it), when it exists."""
    home = env.get("HF_HOME") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface"
    )
    path = os.path.join(os.path.expanduser(home), "accelerate", "default_config.yaml")  # accelerate's config_args.py
    return path if os.path.isfile(path) else None


@dataclass
class _Reader:
    cwd: str
    env_vars: Mapping[str, str] = field(default_factory=dict)
    launcher: str = "other"
    interpreter: str | None = None
    launcher_found: list[Found] = field(default_factory=list)
    found: list[Found] = field(default_factory=list)
    configs: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    env: list[tuple[str, str]] = field(default_factory=list)

    def launch(self, name: str, raw: object, said: str | None, note: str) -> None:
        self.launcher_found.append(Found(name, raw, None, excerpt(said) if said else None, note))

    def script(self, tokens: Sequence[str]) -> None:
        defaults = self.launcher in ("llamafactory", "axolotl")
        found, configs, unknown, notes = read_script_args(tokens, self.cwd, defaults)
        self.found += found
        self.configs += configs
        self.unknown += unknown
        self.notes += notes

    def config_option(self, options: dict[str, str | bool], *names: str) -> None:
        for name in names:
            value = options.get(name)
            if isinstance(value, str) and os.path.isfile(os.path.join(self.cwd, value)):
                self.configs.append(value)

    def command(self, argv: Sequence[str]) -> None:
        program = os.path.basename(argv[0])
        rest = list(argv[1:])
        if program == "env":
            while rest and (rest[0].startswith("-") or _is_assignment(rest[0])):
                token = rest.pop(0)
                if _is_assignment(token):
                    name, _, value = token.partition("=")
                    self.env.append((name, value))
            if rest:
                self.command(rest)
            return
        if _PYTHON.match(program):
            self.interpreter = argv[0]
            self.python(rest)
            return
        interpreter = _interpreter_of(argv[0])
        if program == "torchrun":
            self.interpreter = interpreter
            self.torchrun(rest)
        elif program == "accelerate" and rest[:1] == ["launch"]:
            self.interpreter = interpreter
            self.accelerate(rest[1:])
        elif program == "deepspeed":
            self.interpreter = interpreter
            self.deepspeed(rest)
        elif program in ("llamafactory-cli", "lmf"):
            self.interpreter = interpreter
            self.launcher = "llamafactory"
            self.launch("framework", "llama_factory", program, "launched with llamafactory-cli")
            self.script(rest[1:] if rest and not rest[0].endswith(CONFIG_SUFFIXES) else rest)
        elif program == "axolotl":
            self.interpreter = interpreter
            self.launcher = "axolotl"
            self.launch("framework", "axolotl", program, "launched with axolotl")
            self.script(rest[1:] if rest and not rest[0].endswith(CONFIG_SUFFIXES) else rest)
        else:
            self.interpreter = interpreter
            self.script(rest)

    def python(self, tokens: list[str]) -> None:
        self.launcher = "python"
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token == "-m" and i + 1 < len(tokens):
                self.module(tokens[i + 1], tokens[i + 2 :])
                return
            if token.startswith("-m") and len(token) > 2:
                self.module(token[2:], tokens[i + 1 :])
                return
            if token == "-c":
                return  # inline code: nothing to read
            if token in ("-W", "-X"):
                i += 2
                continue
            if token.startswith("-") and token != "-":
                i += 1
                continue
            self.script(tokens[i + 1 :])
            return

    def module(self, module: str, tokens: list[str]) -> None:
        launcher = _MODULE_LAUNCHERS.get(module)
        if launcher == "torchrun":
            self.torchrun(tokens)
        elif launcher == "accelerate":
            self.accelerate(tokens)
        elif launcher == "deepspeed":
            self.deepspeed(tokens)
        elif module.startswith("axolotl.cli"):
            self.launcher = "axolotl"
            self.launch("framework", "axolotl", f"-m {module}", "launched as axolotl")
            self.script(tokens)
        elif module.startswith(("llamafactory", "llmtuner")):
            self.launcher = "llamafactory"
            self.launch("framework", "llama_factory", f"-m {module}", "launched as LLaMA-Factory")
            self.script(tokens)
        else:
            self.script(tokens)

    def target(self, options: dict[str, str | bool], tokens: list[str]) -> None:
        """The program a launcher starts: a script, a module (``-m``) or, with ``--no_python``, a command."""
        if not tokens:
            return
        if options.get("no_python") is True:
            interpreter = self.interpreter
            self.command(tokens)
            self.interpreter = self.interpreter or interpreter
        elif options.get("m") is True or options.get("module") is True:
            self.module(tokens[0], tokens[1:])
        else:
            self.script(tokens[1:])

    def torchrun(self, tokens: list[str]) -> None:
        self.launcher = "torchrun"
        options, said, start = _launcher_options(tokens, _TORCHRUN_FLAGS)
        count, key = _int_option(options, "nproc_per_node", "nproc-per-node")
        if count is not None and key is not None:
            self.launch("gpu_count", count, _said(said, key), "processes per node started by torchrun")
            if count > 1:
                self.launch("distributed", "ddp", _said(said, key), "torchrun starts one process per GPU")
        elif "nproc_per_node" in options:
            self.notes.append(
                f"{COMMAND_LINE}: --nproc_per_node {options['nproc_per_node']}: GPU count decided at run time"
            )
        self.target(options, tokens[start:])

    def accelerate(self, tokens: list[str]) -> None:
        self.launcher = "accelerate"
        options, said, start = _launcher_options(tokens, _ACCELERATE_FLAGS)
        self.config_option(options, "config_file", "deepspeed_config_file", "fsdp_config_file")
        default = accelerate_default_config(self.env_vars)
        if "config_file" not in options and default is not None:
            self.configs.append(default)  # what `accelerate launch` reads when no --config_file is given
        count, key = _int_option(options, "num_processes")
        machines, _ = _int_option(options, "num_machines")
        if count is not None and key is not None:
            per_node = max(1, count // machines) if machines else count
            self.launch("gpu_count", per_node, _said(said, key), "processes per machine started by accelerate")
        if options.get("use_deepspeed") is True:
            self.launch("distributed", "deepspeed", _said(said, "use_deepspeed"), "accelerate launch --use_deepspeed")
        elif options.get("use_fsdp") is True:
            self.launch("distributed", "fsdp", _said(said, "use_fsdp"), "accelerate launch --use_fsdp")
        elif options.get("multi_gpu") is True or (count or 0) > 1:
            self.launch("distributed", "ddp", _said(said, "multi_gpu") or _said(said, "num_processes"), "data parallel")
        stage, stage_key = _int_option(options, "zero_stage")
        if stage is not None and stage_key is not None and stage <= 3:
            self.launch("zero_stage", stage, _said(said, stage_key), "accelerate launch --zero_stage")
        precision = options.get("mixed_precision")
        if isinstance(precision, str) and precision.lower() in ("no", "fp16", "bf16"):
            self.launch("mixed_precision", precision.lower(), _said(said, "mixed_precision"), "accelerate launch")
        self.target(options, tokens[start:])

    def deepspeed(self, tokens: list[str]) -> None:
        self.launcher = "deepspeed"
        options, said, start = _launcher_options(tokens, _DEEPSPEED_FLAGS)
        self.launch("distributed", "deepspeed", "deepspeed", "launched with the deepspeed launcher")
        count, key = _int_option(options, "num_gpus", "num_gpus_per_node")
        include = options.get("include") or options.get("i")
        if count is not None and key is not None:
            self.launch("gpu_count", count, _said(said, key), "GPUs per node given to the deepspeed launcher")
        elif isinstance(include, str) and ":" in include:
            devices = include.split("@")[0].split(":", 1)[1]
            n = len([d for d in devices.split(",") if d.strip()])
            if n:
                self.launch("gpu_count", n, _said(said, "include"), "GPUs listed in --include")
        self.target(options, tokens[start:])

    def reading(self) -> CommandReading:
        configs = tuple(dict.fromkeys(self.configs))
        said = {f.name for f in self.found}
        launcher = [f for f in self.launcher_found if f.name not in said]
        return CommandReading(
            launcher=self.launcher,
            interpreter=self.interpreter,
            launcher_found=tuple(launcher),
            found=tuple(self.found),
            config_files=configs,
            unknown_keys=tuple(dict.fromkeys(self.unknown)),
            notes=tuple(self.notes),
            env=tuple(self.env),
        )


def read_command(argv: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None) -> CommandReading:
    """What ``argv`` (the user's command, unchanged) says about the run; never raises on odd arguments."""
    reader = _Reader(cwd or os.getcwd(), os.environ if env is None else env)
    if argv:
        reader.command(list(argv))
    return reader.reading()
