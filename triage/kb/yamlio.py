"""Safe YAML reading with line numbers for error messages."""

from __future__ import annotations

from typing import Any

import yaml

try:  # the C loader when present: much faster, same safety
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader  # type: ignore[assignment]


class YamlError(ValueError):
    """A file that is not valid YAML; carries the 1-based line of the problem."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def load_yaml(text: str) -> Any:
    """Parse ``text`` with the safe loader, raising :class:`YamlError` with a line."""
    try:
        return yaml.load(text, Loader=SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise YamlError(f"invalid YAML: {exc.problem or exc}", line) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}", None) from None


def duplicate_keys(text: str) -> list[tuple[int, str]]:
    """(1-based line, key) of every mapping key that repeats an earlier key of the same mapping.

    The safe loader silently keeps the last of two equal keys, so a second
    ``label:`` in a cause replaces the first without an error.
    """
    try:
        root = yaml.compose(text, Loader=SafeLoader)
    except yaml.YAMLError:
        return []  # reported as invalid YAML (KB000) by the loader
    found: list[tuple[int, str]] = []
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen and key.value != "<<":
                        found.append((key.start_mark.line + 1, key.value))
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(found)


def line_of(text: str, loc: tuple[int | str, ...]) -> int | None:
    """The 1-based line of the value at ``loc`` (a pydantic error location) in ``text``.

    Walks the composed node tree as far as the location goes, so an error deep
    in a nested list still points at the closest line that exists.
    """
    try:
        node = yaml.compose(text, Loader=SafeLoader)
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    best = node.start_mark.line + 1
    for key in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == key:
                    best = k.start_mark.line + 1
                    child = v
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            child = node.value[key]
            best = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return best
