"""Where the authoring commands work: the triage checkout around the current directory, or ``--knowledge DIR``.

Authoring reads and writes files that belong to the repository: ``knowledge/``,
``docs/knowledge/`` and ``knowledge/schema/``. An installed triage carries only a
copy of ``knowledge/`` inside its package, so an authoring command never falls
back to that copy for anything it writes or compares with the repository; it
finds the checkout by walking up from the current directory to a folder whose
``pyproject.toml`` names the project ``triage-oom`` and that holds ``knowledge/``.

Read-only checks of the knowledge itself (lint, cases, stats) may still run on
the knowledge base triage runs with when no checkout is found; the caller says
so on stderr.
"""

from __future__ import annotations

import site
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

from triage.kb.loader import default_knowledge_dir

#: The ``[project] name`` in the repository's pyproject.toml.
PROJECT = "triage-oom"
#: How the messages describe a checkout.
WHAT_A_CHECKOUT_IS = f"a folder whose pyproject.toml names {PROJECT} and that holds knowledge/"


class NotInCheckout(Exception):
    """No checkout around the current directory and no usable ``--knowledge`` (one-line message)."""


class NoKnowledgeDir(Exception):
    """``--knowledge DIR`` is not a directory (one-line message)."""


@dataclass(frozen=True)
class Workspace:
    """The knowledge directory an authoring command works on, and how it was found."""

    knowledge: Path
    """The knowledge root (``<repo>/knowledge`` or ``--knowledge DIR``), resolved."""
    checkout: Path | None
    """The repository root when it was found from the current directory."""
    installed: bool = False
    """True when this is the knowledge triage runs with, used because no checkout was found."""

    @property
    def docs(self) -> Path:
        """``docs/knowledge`` of the repository: beside the knowledge directory."""
        return self.knowledge.parent / "docs" / "knowledge"

    @property
    def schema(self) -> Path:
        """The JSON Schema folder, ``knowledge/schema``."""
        return self.knowledge / "schema"


def is_checkout(folder: Path) -> bool:
    """True when ``folder`` is the root of a triage repository."""
    pyproject = folder / "pyproject.toml"
    if not pyproject.is_file() or not (folder / "knowledge").is_dir():
        return False
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    project = data.get("project")
    return isinstance(project, dict) and project.get("name") == PROJECT


def find_checkout(start: Path) -> Path | None:
    """The nearest triage repository root at or above ``start``, or None."""
    start = start.resolve()
    return next((folder for folder in (start, *start.parents) if is_checkout(folder)), None)


def installed_roots() -> list[Path]:
    """The folders an installed package lives in (site-packages, and the copy of knowledge/ in triage)."""
    roots = {Path(__file__).resolve().parent.parent / "_knowledge"}
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        if key in paths:
            roots.add(Path(paths[key]))
    for folder in (*site.getsitepackages(), site.getusersitepackages()):
        roots.add(Path(folder))
    return sorted(root.resolve() for root in roots)


def is_installed(path: Path) -> bool:
    """True when ``path`` lies inside an installed package (site-packages or the bundled knowledge)."""
    resolved = path.resolve()
    return any(resolved.is_relative_to(root) for root in installed_roots())


def find_workspace(command: str, knowledge: Path | None, cwd: Path, *, installed_ok: bool = False) -> Workspace:
    """The knowledge directory ``triage kb <command>`` works on.

    ``--knowledge DIR`` wins; else the checkout around ``cwd``. Without either,
    an ``installed_ok`` command (a read-only check of the knowledge itself) gets
    the knowledge triage runs with, marked ``installed``; any other command
    raises :class:`NotInCheckout`, as it does when its knowledge directory lies
    inside an installed package (it would write there, or compare with
    repository files that are not installed).
    """
    if knowledge is not None:
        if not knowledge.is_dir():
            raise NoKnowledgeDir(f"--knowledge {knowledge}: no such directory")
        found = Workspace(knowledge.resolve(), None)
    else:
        checkout = find_checkout(cwd)
        if checkout is None:
            if installed_ok:
                return Workspace(default_knowledge_dir().resolve(), None, installed=True)
            raise NotInCheckout(
                f"`triage kb {command}` works on a triage checkout and {cwd} is not in one "
                f"({WHAT_A_CHECKOUT_IS}): run it from the repository or pass --knowledge DIR"
            )
        found = Workspace((checkout / "knowledge").resolve(), checkout)
    if not installed_ok and is_installed(found.knowledge):
        raise NotInCheckout(
            f"`triage kb {command}` does not change or check an installed package, and {found.knowledge} "
            "is inside one: run it from the repository or pass --knowledge DIR"
        )
    return found
