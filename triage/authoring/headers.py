"""The yaml-language-server comment on the first line of every knowledge file.

Editors that speak the YAML language server (VS Code's YAML extension, neovim,
JetBrains) validate a file against the JSON Schema named in this comment while
the contributor types. The path is relative to the file, so it depends on how
deep the file sits: ``causes/<category>/x.yaml`` uses ``../../schema/...``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from triage.kb.loader import CASES_SUFFIX, FOLDERS

PREFIX = "# yaml-language-server: $schema="
#: Any yaml-language-server schema comment, whatever it points at.
COMMENT_RE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S+)\s*$")
_KIND_OF_FOLDER = {folder: kind for kind, folder in FOLDERS.items()}


def schema_kind(root: Path, path: Path) -> str | None:
    """The schema a file validates against (fact, cause, remedy, myth, cases), from where it lives."""
    if path.name.endswith(CASES_SUFFIX):
        return "cases"
    try:
        folder = path.relative_to(root).parts[0]
    except (ValueError, IndexError):
        return None
    return _KIND_OF_FOLDER.get(folder)


def expected_header(root: Path, path: Path, kind: str | None = None) -> str | None:
    """The comment line ``path`` must start with, or None when it is not a knowledge file."""
    kind = kind or schema_kind(root, path)
    if kind is None:
        return None
    target = root / "schema" / f"{kind}.schema.json"
    rel = os.path.relpath(target, path.parent).replace(os.sep, "/")
    return PREFIX + rel
