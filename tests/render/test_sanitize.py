"""Nothing from the user's inputs can drive the terminal: escape sequences go, other controls show."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from triage.render.sanitize import clean_terminal

ESC = "\x1b"
HOSTILE = [
    (f"{ESC}]0;PWNED-TITLE\x07model", "model"),  # window title (BEL-terminated OSC)
    (f"{ESC}]2;title{ESC}\\after", "after"),  # OSC ended by ST
    (f"x{ESC}]52;c;ZWNobyBoaQ==\x07y", "xy"),  # OSC 52: write the clipboard
    (f"{ESC}]52;c;ZWNobyBoaQ==", ""),  # unterminated OSC 52
    (f"{ESC}]8;;https://evil.example\x07click{ESC}]8;;\x07", "click"),  # OSC 8 hyperlink
    (f"meta-llama/Llama-2-7b-hf{ESC}[2J{ESC}[H", "meta-llama/Llama-2-7b-hf"),  # clear screen, cursor home
    (f"{ESC}[31mRED{ESC}[0m", "RED"),  # colour
    (f"{ESC}[8mhidden{ESC}[28m", "hidden"),  # concealed text is shown
    (f"{ESC}[1A{ESC}[2Kfake line", "fake line"),  # cursor up, erase line
    (f"{ESC}[?1049h{ESC}[?25l", ""),  # alternate screen, hide cursor
    ("\x9b31mC1 CSI\x9b0m", "C1 CSI"),  # 8-bit CSI
    ("\x9d0;t\x9cok", "ok"),  # 8-bit OSC and ST
    (f"{ESC}Pq#0;2;0;0;0{ESC}\\sixel", "sixel"),  # DCS
    (f"{ESC}_apc payload{ESC}\\a{ESC}^pm{ESC}\\b{ESC}Xsos{ESC}\\c", "abc"),  # APC, PM, SOS
    (f"{ESC}c{ESC}(B{ESC}7{ESC}8reset", "reset"),  # short ESC forms
    (f"trailing{ESC}", "trailing"),  # lone ESC
    (f"{ESC}[", ""),  # truncated CSI
    ("safe\rEVIL", "safe\nEVIL"),  # a CR that would overwrite the line
    ("a\r\nb", "a\nb"),
    ("abc\x08\x08\x08XYZ", "abc\\x08\\x08\\x08XYZ"),  # backspaces
    ("bell\x07 nul\x00 vt\x0b ff\x0c del\x7f", "bell\\x07 nul\\x00 vt\\x0b ff\\x0c del\\x7f"),
    ("\x85next line \x9c", "\\x85next line \\x9c"),  # C1 NEL and a stray ST are shown
    ("admin\u202etxt.exe", "admin\\u202etxt.exe"),  # bidi override (Trojan Source)
    ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
    ("bytes \udcff\udcfe", "bytes \\udcff\\udcfe"),  # surrogateescape'd bytes
]


@pytest.mark.parametrize(("hostile", "expected"), HOSTILE)
def test_hostile_strings_are_disarmed(hostile, expected):
    out = clean_terminal(hostile)
    assert out == expected
    assert ESC not in out and "\x07" not in out and "\x9b" not in out and "\x9d" not in out
    assert clean_terminal(out) == out


@pytest.mark.parametrize(
    "text",
    [
        "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity)",
        "训练到第 500 步左右显存一点点涨上去然后 OOM",
        "line one\n\tindented line two\n",
        "███████··· 75% Gradient checkpointing is off → 18.9 GiB",
        "emoji 👩‍💻 and a zero-width joiner stay",
        "a \\x1b that is already escaped text",
    ],
)
def test_ordinary_text_is_unchanged(text):
    assert clean_terminal(text) == text


def test_single_line_shows_line_breaks():
    assert clean_terminal("key\nGradient checkpointing is on\tok", single_line=True) == (
        "key\\nGradient checkpointing is on\\tok"
    )
    assert clean_terminal("a\r\nb", single_line=True) == "a\\nb"


_DANGEROUS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
control_heavy = st.text(
    alphabet=st.one_of(
        st.sampled_from([ESC, "[", "]", "\\", "\x07", "\x9b", "\x9c", "\x9d", "\r", "\n", ";", "0", "m", "P", "_"]),
        st.characters(max_codepoint=0x2070),
    ),
    max_size=200,
)


@given(control_heavy)
def test_no_control_character_survives(text):
    out = clean_terminal(text)
    assert not _DANGEROUS.search(out)
    assert clean_terminal(out) == out
    one = clean_terminal(text, single_line=True)
    assert "\n" not in one and "\t" not in one and not _DANGEROUS.search(one)


@pytest.mark.parametrize("unit", [f"{ESC}[", f"{ESC}]", f"{ESC}[0;", "\x9d", f"{ESC}P", ESC, "\r", "\x00", f"{ESC}[1"])
def test_time_is_linear(unit):
    def best(n: int) -> float:
        text = unit * (n // len(unit))
        fastest = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            clean_terminal(text)
            fastest = min(fastest, time.perf_counter() - start)
        return fastest

    small, large = best(100_000), best(400_000)
    assert large < 2.0
    assert large < 10 * small + 0.02, (small, large)
