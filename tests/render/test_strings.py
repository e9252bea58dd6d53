"""Every interface string exists in both languages."""

from __future__ import annotations

import re

from triage.render.strings import STRINGS, t


def test_every_string_has_english_and_chinese():
    for key, entry in STRINGS.items():
        assert entry.get("en", "").strip(), key
        assert re.search(r"[\u4e00-\u9fff]", entry.get("zh", "")), key


def test_lookup_falls_back_to_english():
    assert t("causes", "fr") == t("causes", "en")
