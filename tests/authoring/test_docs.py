"""`triage kb docs`: generated pages in both languages, cross-linked, and a check that fails when stale."""

from __future__ import annotations

import re
from pathlib import Path

from triage.authoring.docs import render_docs, stale_docs, write_docs
from triage.cli import main
from triage.kb.loader import load_checked, load_knowledge

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`[^`\n]*`")


def test_committed_docs_are_current():
    kb, _ = load_knowledge(REPO / "knowledge")
    out = REPO / "docs" / "knowledge"
    stale = stale_docs(kb, out)
    assert stale == [], (
        f"docs/knowledge is stale ({', '.join(stale[:5])}...): run `triage kb docs` and commit the result"
    )


def test_every_entity_has_a_section_in_both_languages(lint_kb, tmp_path):
    kb = load_checked(lint_kb())
    pages = render_docs(kb, tmp_path / "docs")
    assert set(pages) == {
        "index.md",
        *(
            f"{lang}/{page}"
            for lang in ("en", "zh")
            for page in ("index.md", "batch_size.md", "remedies.md", "myths.md")
        ),
    }
    for lang in ("en", "zh"):
        category = pages[f"{lang}/batch_size.md"]
        assert '<a id="big-batch"></a>' in category
        assert "(remedies.md#smaller-batch)" in category  # the cause links its remedy
        assert '<a id="smaller-batch"></a>' in pages[f"{lang}/remedies.md"]
        assert "(batch_size.md#big-batch)" in pages[f"{lang}/remedies.md"]  # and the remedy links back
        assert '<a id="bigger-is-faster"></a>' in pages[f"{lang}/myths.md"]
    assert "### Batch too big" in pages["en/batch_size.md"] and "### batch 太大" in pages["zh/batch_size.md"]
    assert "**How to confirm.** Confirm." in pages["en/batch_size.md"]
    assert "**如何确认.** 确认。" in pages["zh/batch_size.md"]
    assert "cases: 1 must fire, 1 must stay silent" in pages["en/batch_size.md"]


def test_links_resolve(tmp_path):
    """Every relative link of the shipped knowledge base's docs points at a file, and every anchor exists."""
    kb, _ = load_knowledge()
    out = tmp_path / "docs" / "knowledge"
    pages = render_docs(kb, out)
    write_docs(kb, out)
    anchors = {rel: set(re.findall(r'<a id="([^"]+)"></a>', text)) for rel, text in pages.items()}
    broken = []
    for rel, text in pages.items():
        page_dir = (out / rel).parent
        for target in LINK.findall(CODE_SPAN.sub("", text)):
            if target.startswith(("http://", "https://")):
                continue
            file, _, anchor = target.partition("#")
            path = (page_dir / file).resolve() if file else (out / rel)
            if not path.exists():
                broken.append(f"{rel}: {target}")
            elif anchor:
                key = str(path.relative_to(out.resolve())) if path.is_relative_to(out.resolve()) else None
                if key is None or anchor not in anchors.get(key, set()):
                    broken.append(f"{rel}: {target}")
    assert broken == []


def test_check_fails_when_stale_and_write_fixes_it(lint_kb, tmp_path, capsys):
    root = lint_kb()
    out = tmp_path / "docs"
    argv = ["kb", "--knowledge", str(root), "docs", "--out", str(out)]
    assert main([*argv, "--check"]) == 1  # nothing written yet
    assert "run `triage kb docs`" in capsys.readouterr().out
    assert main(argv) == 0
    assert main([*argv, "--check"]) == 0
    assert "ok: docs are current" in capsys.readouterr().out
    # a changed entity makes its pages stale
    cause = root / "causes" / "batch_size" / "big-batch.yaml"
    text = cause.read_text().replace("The micro batch is too big.", "The micro batch is far too big.")
    cause.write_text(text.replace("微批次太大。", "微批次远远太大。"))
    capsys.readouterr()
    assert main([*argv, "--check"]) == 1
    out_text = capsys.readouterr().out
    assert f"stale: {out / 'en' / 'batch_size.md'}" in out_text and f"stale: {out / 'zh' / 'batch_size.md'}" in out_text
    # a page left over from a removed category is stale too, and writing removes it
    (out / "en" / "seq_len.md").write_text("old page\n", encoding="utf-8")
    assert stale_docs(load_checked(root), out) == ["en/batch_size.md", "zh/batch_size.md", "en/seq_len.md"]
    assert main(argv) == 0
    assert not (out / "en" / "seq_len.md").exists()
    assert main([*argv, "--check"]) == 0


def test_output_is_deterministic(lint_kb, tmp_path):
    root = lint_kb()
    assert render_docs(load_checked(root), tmp_path) == render_docs(load_checked(root), tmp_path)
