"""Make text from the user's inputs safe to print on a terminal.

A config or log received from someone else can carry escape sequences: CSI codes that
clear the screen or hide text, OSC sequences that retitle the window or (OSC 52) write the
clipboard, a bare carriage return that overwrites what came before. :func:`clean_terminal`
removes every ANSI escape sequence whole (CSI, OSC, DCS, SOS, PM, APC and the short ESC
forms, in their 7-bit and 8-bit spellings), turns CR LF and a lone CR into LF, and shows
every other C0/C1 control character, DEL, the Unicode bidirectional overrides and lone
surrogates as a visible ``\\xNN`` / ``\\uNNNN`` escape. Line feeds and tabs stay (unless ``single_line``).

Both passes are one regular expression each, with possessive, non-nested quantifiers: time
is linear in the length of the text, and cleaning clean text changes nothing.
"""

from __future__ import annotations

import re

#: Whole escape sequences, removed. String sequences (OSC, DCS, SOS, PM, APC) run to their
#: terminator (BEL or ST), else to the next ESC, line break or the end of the text.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*+[ -/]*+[@-~]?"  # CSI: parameters, intermediates, final byte
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*+(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[ -/]*+[0-~]?"  # other ESC sequences (ESC c, ESC ( B, ESC 7 ...) and a lone ESC
)
_NEWLINE = re.compile(r"\r\n?")
#: What is left to show: C0 except tab and line feed, DEL, C1, bidi embeddings/overrides/isolates,
#: and lone surrogates (undecodable bytes kept by ``surrogateescape``, which no terminal can encode).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_CONTROL_OR_BREAK = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\t": "\\t"}


def _visible(m: re.Match[str]) -> str:
    char = m.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean_terminal(text: str, *, single_line: bool = False) -> str:
    """``text`` without escape sequences and with every other control character made visible.

    ``single_line`` also shows line feeds and tabs as ``\\n`` / ``\\t``, for values that must
    stay on one line (a config key, a fact's value) so they cannot forge lines of output.
    """
    text = _SEQUENCE.sub("", text)
    text = _NEWLINE.sub("\n", text)
    return (_CONTROL_OR_BREAK if single_line else _CONTROL).sub(_visible, text)
