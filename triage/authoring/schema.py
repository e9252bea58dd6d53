"""Generate the JSON Schema of every knowledge file from the pydantic models."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from triage.kb.models import CasesFile, Cause, FactSpec, Myth, Remedy

SCHEMAS: dict[str, type[BaseModel]] = {
    "fact": FactSpec,
    "cause": Cause,
    "remedy": Remedy,
    "myth": Myth,
    "cases": CasesFile,
}


def render_schemas() -> dict[str, str]:
    """File name -> JSON text, exactly as committed in knowledge/schema/."""
    out = {}
    for name, model in SCHEMAS.items():
        schema = model.model_json_schema(by_alias=True)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["$id"] = f"https://triage.invalid/schema/{name}.schema.json"
        out[f"{name}.schema.json"] = json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    return out


def stale_schemas(schema_dir: Path) -> list[str]:
    """The schema files in ``schema_dir`` that are missing or differ from the models."""
    stale = []
    for name, text in render_schemas().items():
        path = schema_dir / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale


def write_schemas(schema_dir: Path) -> list[str]:
    """Write every schema file; returns the names written."""
    schema_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_schemas().items():
        (schema_dir / name).write_text(text, encoding="utf-8")
        written.append(name)
    return written
