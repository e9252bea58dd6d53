"""User text made safe to show: one kind of line break, no terminal control sequences.

What the user pastes is shown back in the conversation, the ranking (evidence
excerpts) and the answers list. It is always drawn as plain text (a Rich
``Text`` or Textual ``Content`` built without markup), so ``[bold]`` or
``[link=...]`` show as typed; the functions here take out what a terminal
would act on instead of showing: colour and cursor codes, OSC sequences
(window title, clipboard) and other control characters. The readers still get
the text as pasted (they strip colour codes themselves).

No Textual import: the module is pure string work.
"""

from __future__ import annotations

import re

#: ANSI/VT sequences: CSI (ESC [ or the 8-bit CSI), OSC up to BEL or ST (or the end), and two-byte ESC sequences.
#: Each alternative is a single pass with no nested quantifier, so the match is linear in the text's length.
_SEQUENCES = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[@-Z\\-_]")
#: C0 controls other than tab and line feed, DEL and the C1 controls.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def unify_line_breaks(text: str) -> str:
    """CRLF and lone CR (what terminals send for a pasted line break) become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ ... ␟
    return "␡" if code == 0x7F else "\ufffd"


def shown(text: str) -> str:
    """``text`` as it may be drawn: sequences removed, other control characters as visible symbols (␛, ␇)."""
    text = _SEQUENCES.sub("", unify_line_breaks(text))
    return _CONTROLS.sub(_picture, text)


def one_line(text: str) -> str:
    """``text`` for a one-line input box: as :func:`shown`, with tabs and line breaks as spaces."""
    return shown(text).replace("\t", " ").replace("\n", " ")
