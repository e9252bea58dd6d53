"""Loading the knowledge base: safe YAML, every problem with file and line."""

from __future__ import annotations

from pathlib import Path

from triage.kb.loader import load_knowledge


def test_shipped_kb_loads_without_problems():
    kb, problems = load_knowledge()
    assert problems == [], [p.render() for p in problems]
    assert kb.causes and kb.remedies and kb.facts


def test_yaml_error_has_file_and_line(lint_kb):
    _kb, problems = load_knowledge(lint_kb("KB000"))
    (p,) = [p for p in problems if p.code == "KB000"]
    assert p.path == "causes/batch_size/big-batch.yaml" and p.line == 5
    assert "YAML" in p.message


def test_unsafe_yaml_tags_are_rejected(lint_kb):
    root = lint_kb()
    evil = root / "remedies" / "evil.yaml"
    evil.write_text("kind: remedy\nid: !!python/object/apply:os.system ['echo pwned']\n", encoding="utf-8")
    _, problems = load_knowledge(root)
    assert any(p.path == "remedies/evil.yaml" and p.code == "KB000" for p in problems)


def test_schema_error_names_the_field_and_line(lint_kb):
    root = lint_kb()
    path = root / "causes" / "batch_size" / "big-batch.yaml"
    text = path.read_text(encoding="utf-8").replace("prior: 0.1", "prior: 7")
    path.write_text(text, encoding="utf-8")
    _, problems = load_knowledge(root)
    (p,) = problems
    assert p.line == text.splitlines().index("prior: 7") + 1 and p.message.startswith("prior:")


def test_unknown_key_is_an_error_not_dropped(lint_kb):
    root = lint_kb()
    path = root / "remedies" / "smaller-batch.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "sevrity: high\n", encoding="utf-8")
    _, problems = load_knowledge(root)
    assert [p.message.split(":")[0] for p in problems] == ["sevrity"]


def test_missing_dir_is_one_clear_problem(tmp_path: Path):
    _, problems = load_knowledge(tmp_path / "nowhere")
    assert len(problems) == 1 and "no knowledge base" in problems[0].message
