"""Write bench/data/user_files/: the files a user has, as the libraries themselves write them.

    python bench/user_file_templates.py      # needs torch, transformers, peft and trl

The oracle matrix's "from the user's files" table (bench/validate_estimator.py) fills these
templates with each row's settings, so the files it reads carry every key the real classes write
(transformers 5.x ``activation_checkpointing`` beside its deprecated alias, ``use_liger_kernel``,
``torch_empty_cache_steps``, TRL's ``model_init_kwargs``, peft's full ``LoraConfig``, the
``BitsAndBytesConfig`` a 4-bit model saves) and not only the ones the reader already knows.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "bench" / "data" / "user_files"

#: the oracle matrix's presets
PRESETS = (
    "llama-2-7b", "llama-3-8b", "llama-3.2-1b", "mistral-7b", "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-7b",
    "gemma-2b", "gemma-7b", "phi-2", "phi-3-mini", "tinyllama-1.1b",
)  # fmt: skip


def _jsonable(value: object) -> object:
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def main() -> int:
    warnings.filterwarnings("ignore")
    import peft
    import torch
    import transformers
    import trl
    from peft import LoraConfig
    from transformers import AutoConfig, BitsAndBytesConfig, TrainingArguments
    from trl import ModelConfig, SFTConfig

    from triage.estimate import find_architecture
    from triage.measure.spec import hf_config_from_architecture

    OUT.mkdir(parents=True, exist_ok=True)
    versions = {"transformers": transformers.__version__, "trl": trl.__version__, "peft": peft.__version__}
    files: dict[str, object] = {
        "training_args.json": json.loads(TrainingArguments(output_dir="out").to_json_string()),
        # SFTConfig's bf16 defaults to True, which refuses to build without a GPU; the row sets it anyway
        "sft_config.json": json.loads(SFTConfig(output_dir="out", bf16=False).to_json_string()),
        "trl_model_config.json": {f.name: getattr(ModelConfig(), f.name) for f in dataclasses.fields(ModelConfig)},
        "adapter_config.json": LoraConfig(task_type="CAUSAL_LM").to_dict(),
        "bnb_4bit.json": BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16,
        ).to_dict(),
    }
    models = {}
    for preset in PRESETS:
        arch = find_architecture(preset)
        assert arch is not None, preset
        cfg = dict(hf_config_from_architecture(arch))
        model_type = cfg.pop("model_type")
        config = AutoConfig.for_model(model_type, **cfg)
        config.architectures = [type(config).__name__.replace("Config", "ForCausalLM")]
        models[preset] = json.loads(config.to_json_string())  # what save_pretrained writes
    files["model_configs.json"] = models
    for name, data in files.items():
        text = json.dumps({"written_by": versions, "data": data}, indent=1, default=_jsonable, sort_keys=False)
        (OUT / name).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {OUT / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
