"""The JSON Schema in knowledge/schema/ is generated from the models and kept current."""

from __future__ import annotations

from pathlib import Path

from triage.authoring.schema import render_schemas, stale_schemas

REPO = Path(__file__).resolve().parents[2]


def test_schema_is_current():
    assert stale_schemas(REPO / "knowledge" / "schema") == [], "run `triage kb schema` and commit the result"


def test_stale_schema_detected(tmp_path: Path):
    for name, text in render_schemas().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "cause.schema.json").write_text("{}", encoding="utf-8")
    assert stale_schemas(tmp_path) == ["cause.schema.json"]
