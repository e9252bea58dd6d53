"""Tell whether a regular expression can backtrack catastrophically, from its parse tree.

Python's ``re`` is a backtracking engine: a pattern such as ``^(\\w+\\s?)*$`` takes time
exponential in the length of a text it fails to match (31 characters: 55 s). The two shapes
behind that are rejected here:

* a **nested quantifier**: inside a repeated group, a variable-width piece (``a+``, ``\\s?``,
  ``(?:ab)*``) that is not separated from what may follow it, in the same iteration or the
  next one, by a required character it cannot match. ``(a+)+``, ``(a*)*`` and
  ``(\\w+\\s?)+`` are rejected; ``(\\d+-)+`` and ``(\\w+\\s)+`` are not, because every iteration
  must end with a character the inner repeat cannot take.
* an **ambiguous alternation under a quantifier**: two alternatives of a repeated group that
  can start with the same character, as in ``(a|a)+`` or ``(a|ab)*`` (empty alternatives, which
  ``re`` makes of ``gpus|gpu``, count as an optional piece, not as an alternative).

Possessive quantifiers (``a++``) and atomic groups (``(?>...)``) never backtrack and pass.
Only repeats that can run more than :data:`MAX_SAFE_TIMES` times are examined. Character sets
are compared on a sample alphabet (all of Latin-1 and representative CJK, digits, spaces and
case-folding characters of other scripts), so overlap is judged the way ``re`` would match.

The check is conservative (it may reject a pattern that is in fact linear) and limited to those
two shapes: a pattern that rescans a long run from every start position (``\\d+x`` searched in a
run of digits) is quadratic, not exponential, and is not reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from re import _constants as sre_constants  # type: ignore[attr-defined]  # Python >= 3.11
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

#: A repeat bounded by this many iterations cannot blow up (2**16 paths at worst).
MAX_SAFE_TIMES = 16

_C = sre_constants
_REPEATS = (_C.MAX_REPEAT, _C.MIN_REPEAT)
_ZERO_WIDTH = (_C.AT, _C.ASSERT, _C.ASSERT_NOT)
_CATEGORIES = {
    _C.CATEGORY_DIGIT: r"\d",
    _C.CATEGORY_NOT_DIGIT: r"\D",
    _C.CATEGORY_SPACE: r"\s",
    _C.CATEGORY_NOT_SPACE: r"\S",
    _C.CATEGORY_WORD: r"\w",
    _C.CATEGORY_NOT_WORD: r"\W",
}
#: The characters character sets are compared on.
_ALPHABET = "".join(chr(c) for c in range(256)) + "中显存爆卡训练×é٣\u3000\u2028\u00a0ſKİıﬀ😀"

Item = tuple[Any, Any]


class _Wrap:
    """Marks the point where a repeat's body starts over (its next iteration)."""


_WRAP = _Wrap()


def _escape(code: int) -> str:
    return re.escape(chr(code))


def _class_source(op: Any, av: Any) -> str:
    """A regex that matches exactly the characters of one parsed character item."""
    if op is _C.LITERAL:
        return _escape(av)
    if op is _C.NOT_LITERAL:
        return f"[^{_escape(av)}]"
    if op is _C.ANY:
        return "."
    if op is _C.IN:
        negate = ""
        parts = []
        for sub_op, sub_av in av:
            if sub_op is _C.NEGATE:
                negate = "^"
            elif sub_op is _C.LITERAL:
                parts.append(_escape(sub_av))
            elif sub_op is _C.RANGE:
                parts.append(f"{_escape(sub_av[0])}-{_escape(sub_av[1])}")
            elif sub_op is _C.CATEGORY:
                parts.append(_CATEGORIES.get(sub_av, r"\s\S"))
            else:  # an unknown member: assume it matches anything
                parts.append(r"\s\S")
        return f"[{negate}{''.join(parts)}]" if parts else ("[\\s\\S]" if negate else "(?!)")
    return r"[\s\S]"


@lru_cache(maxsize=4096)
def _bits(source: str, flags: int) -> int:
    """The sample characters a one-character regex matches, as a bit set."""
    compiled = re.compile(source, flags & (re.IGNORECASE | re.DOTALL | re.ASCII | re.UNICODE))
    out = 0
    for i, char in enumerate(_ALPHABET):
        if compiled.fullmatch(char):
            out |= 1 << i
    return out


_ALL = (1 << len(_ALPHABET)) - 1


@dataclass(frozen=True)
class _Analysis:
    flags: int

    # -- what an item can match ------------------------------------------------------------------------------

    def chars(self, items: Iterable[Item]) -> int:
        """Every character any part of ``items`` can match."""
        out = 0
        for op, av in items:
            if op in (_C.LITERAL, _C.NOT_LITERAL, _C.ANY, _C.IN):
                out |= _bits(_class_source(op, av), self.flags)
            elif op is _C.SUBPATTERN:
                out |= self.chars(av[-1])
            elif op in (*_REPEATS, _C.POSSESSIVE_REPEAT):
                out |= self.chars(av[2])
            elif op is _C.ATOMIC_GROUP:
                out |= self.chars(av)
            elif op is _C.BRANCH:
                for alternative in av[1]:
                    out |= self.chars(alternative)
            elif op in (_C.GROUPREF, _C.GROUPREF_EXISTS):
                out |= _ALL
        return out

    def nullable(self, items: Iterable[Item]) -> bool:
        """Whether ``items`` can match the empty string."""
        return all(self._nullable_item(op, av) for op, av in items)

    def _nullable_item(self, op: Any, av: Any) -> bool:
        if op in _ZERO_WIDTH or op in (_C.GROUPREF, _C.GROUPREF_EXISTS):
            return True
        if op is _C.SUBPATTERN:
            return self.nullable(av[-1])
        if op in (*_REPEATS, _C.POSSESSIVE_REPEAT):
            return av[0] == 0 or self.nullable(av[2])
        if op is _C.ATOMIC_GROUP:
            return self.nullable(av)
        if op is _C.BRANCH:
            return any(self.nullable(alternative) for alternative in av[1])
        return False

    def first(self, items: Iterable[Item]) -> int:
        """The characters a match of ``items`` can start with."""
        out = 0
        for op, av in items:
            if op in _ZERO_WIDTH:
                continue
            if op is _C.SUBPATTERN:
                out |= self.first(av[-1])
            elif op in (*_REPEATS, _C.POSSESSIVE_REPEAT):
                out |= self.first(av[2])
            elif op is _C.ATOMIC_GROUP:
                out |= self.first(av)
            elif op is _C.BRANCH:
                for alternative in av[1]:
                    out |= self.first(alternative)
            elif op in (_C.GROUPREF, _C.GROUPREF_EXISTS):
                out |= _ALL
            else:
                out |= self.chars([(op, av)])
            if not self._nullable_item(op, av):
                break
        return out

    # -- the two shapes --------------------------------------------------------------------------------------

    def flatten(self, items: Iterable[Item]) -> list[Item]:
        """``items`` with groups opened up (a group does not change what a sequence matches)."""
        out: list[Item] = []
        for op, av in items:
            if op is _C.SUBPATTERN:
                out.extend(self.flatten(av[-1]))
            else:
                out.append((op, av))
        return out

    def separated(self, taken: int, after: Sequence[Item | _Wrap], body: Sequence[Item]) -> bool:
        """Whether something required, that cannot start with a character of ``taken``, comes next."""
        wrapped = False
        queue: list[Item | _Wrap] = list(after)
        while queue:
            entry = queue.pop(0)
            if isinstance(entry, _Wrap):
                if wrapped:
                    return False
                wrapped = True
                queue = [*body, _WRAP]
                continue
            op, av = entry
            if op in _ZERO_WIDTH:
                continue
            if self.first([entry]) & taken:
                return False
            if not self._nullable_item(op, av):
                return True
        return False

    def sequence_problem(self, seq: Sequence[Item], after: Sequence[Item | _Wrap], body: Sequence[Item]) -> str | None:
        """The first unseparated variable-width piece or ambiguous alternation in one repeated body.

        ``after`` is what may follow ``seq`` (ending with the next iteration of ``body``).
        """
        for i, (op, av) in enumerate(seq):
            rest: list[Item | _Wrap] = [*seq[i + 1 :], *after]
            if op is _C.BRANCH:
                alternatives = [self.flatten(a) for a in av[1]]
                starts = [self.first(a) for a in alternatives if not self.nullable(a)]
                for j, a in enumerate(starts):
                    if any(a & b for b in starts[j + 1 :]):
                        return "ambiguous alternation under a quantifier (two alternatives can start alike)"
                if len(starts) < len(alternatives):  # an empty alternative: the branch is optional
                    taken = 0
                    for alternative in alternatives:
                        taken |= self.chars(alternative)
                    if not self.separated(taken, rest, body):
                        return "nested quantifier (an optional piece is not separated from what follows)"
                for alternative in alternatives:
                    found = self.sequence_problem(alternative, rest, body)
                    if found:
                        return found
            elif op in _REPEATS:
                if av[0] != av[1] and not self.separated(self.chars(av[2]), rest, body):
                    return "nested quantifier (a repeat inside a repeat, not separated from what follows)"
                if av[1] is not _C.MAXREPEAT and av[1] <= MAX_SAFE_TIMES:  # larger ones are checked on their own
                    inner = self.flatten(av[2])
                    found = self.sequence_problem(inner, [*inner, *rest], body)
                    if found:
                        return found
        return None

    def walk(self, items: Iterable[Item]) -> str | None:
        """Check every repeat in the tree, including those inside lookarounds and other repeats."""
        for op, av in items:
            children: list[Iterable[Item]] = []
            if op in _REPEATS:
                high = av[1]
                if high is _C.MAXREPEAT or high > MAX_SAFE_TIMES:
                    body = self.flatten(av[2])
                    if self.nullable(body) and body:
                        return "nested quantifier (the repeated group can match nothing)"
                    found = self.sequence_problem(body, [_WRAP], body)
                    if found:
                        return found
                children.append(av[2])
            elif op is _C.POSSESSIVE_REPEAT:
                children.append(av[2])
            elif op is _C.SUBPATTERN:
                children.append(av[-1])
            elif op is _C.ATOMIC_GROUP:
                children.append(av)
            elif op in (_C.ASSERT, _C.ASSERT_NOT):
                children.append(av[1])
            elif op is _C.BRANCH:
                children.extend(av[1])
            elif op is _C.GROUPREF_EXISTS:
                children.extend(branch for branch in av[1:] if branch is not None)
            for child in children:
                found = self.walk(child)
                if found:
                    return found
        return None


@dataclass
class _Group:
    """A parenthesised group (or the whole pattern) as written, before ``re`` simplifies it."""

    parent: _Group | None
    start: int
    splits: list[int]
    """Where each ``|`` at this group's level is."""
    end: int = -1
    repeated: bool = False
    """Followed by a quantifier that can run more than MAX_SAFE_TIMES times (and may backtrack)."""
    atomic: bool = False


def _quantifier_after(pattern: str, i: int) -> bool:
    """Whether the quantifier at ``pattern[i:]`` is unbounded (or large) and not possessive."""
    if i >= len(pattern) or pattern[i] not in "*+{":
        return False
    if pattern[i] == "{":
        m = re.match(r"\{(\d*)(,?)(\d*)\}", pattern[i:])
        if m is None:
            return False
        if m.group(2):
            high = m.group(3)
            if high and int(high) <= MAX_SAFE_TIMES:
                return False
        elif int(m.group(1) or 0) <= MAX_SAFE_TIMES:
            return False
        i += m.end()
    else:
        i += 1
    return not (i < len(pattern) and pattern[i] == "+")


def _written_groups(pattern: str) -> list[_Group]:
    """Every group of ``pattern`` as written, with the positions of its ``|`` separators."""
    root = _Group(None, 0, [])
    groups = [root]
    current = root
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i += 1
            if i < len(pattern) and pattern[i] == "^":
                i += 1
            if i < len(pattern) and pattern[i] == "]":
                i += 1
            while i < len(pattern) and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif char == "(":
            if pattern.startswith("(?#", i):
                close = pattern.find(")", i)
                i = len(pattern) if close < 0 else close + 1
                continue
            group = _Group(current, i + 1, [], atomic=pattern.startswith("(?>", i))
            groups.append(group)
            current = group
        elif char == ")" and current.parent is not None:
            current.end = i
            current.repeated = _quantifier_after(pattern, i + 1)
            current = current.parent
        elif char == "|":
            current.splits.append(i)
        i += 1
    root.end = len(pattern)
    return groups


def _under_repeat(group: _Group) -> bool:
    node: _Group | None = group
    while node is not None and not node.atomic:
        if node.repeated:
            return True
        node = node.parent
    return False


def _written_alternation_problem(pattern: str, flags: int) -> str | None:
    """Overlapping alternatives under a quantifier, judged on the alternatives as written.

    ``re`` rewrites ``a|a`` as a character set and ``a|ab`` as ``a(?:|b)``, which hides the
    ambiguity from the parse tree; so alternatives are compared here one by one.
    """
    if flags & re.VERBOSE or re.match(r"\(\?[a-zA-Z]*x", pattern):
        return None  # comments and spaces would be read as pattern text
    analysis = _Analysis(flags)
    for group in _written_groups(pattern):
        if not group.splits or not _under_repeat(group):
            continue
        bounds = [group.start, *(s + 1 for s in group.splits)]
        ends = [*group.splits, group.end]
        body_start = group.start
        if pattern.startswith("?", body_start):  # (?:...), (?P<name>...), (?i:...)
            colon = pattern.find(":", body_start)
            close = pattern.find(">", body_start)
            cut = min(x for x in (colon, close) if x >= 0) if colon >= 0 or close >= 0 else body_start
            bounds[0] = cut + 1
        starts: list[int] = []
        for low, high in zip(bounds, ends, strict=True):
            text = pattern[low:high]
            try:
                parsed = list(sre_parse.parse(text, flags))
            except (re.error, OverflowError, RecursionError):
                starts.append(_ALL)  # refers to a group elsewhere: assume it can start with anything
                continue
            if analysis.nullable(parsed):
                return "ambiguous alternation under a quantifier (an empty alternative)"
            starts.append(analysis.first(parsed))
        for j, a in enumerate(starts):
            if any(a & b for b in starts[j + 1 :]):
                return "ambiguous alternation under a quantifier (two alternatives can start alike)"
    return None


def unsafe_regex_reason(pattern: str, *, flags: int = 0) -> str | None:
    """Why ``pattern`` may take exponential time (a nested quantifier, an ambiguous alternation), or None.

    ``flags`` are the ``re`` flags the pattern is compiled with (the engine adds IGNORECASE to
    knowledge regexes, which makes more characters overlap). A pattern that does not compile
    is reported too.
    """
    try:
        parsed = sre_parse.parse(pattern, flags)
    except (re.error, OverflowError, RecursionError) as exc:
        return f"not a valid regular expression: {exc}"
    all_flags = flags | parsed.state.flags
    try:
        return _written_alternation_problem(pattern, all_flags) or _Analysis(all_flags).walk(list(parsed))
    except RecursionError:
        return "nested too deeply to check"
