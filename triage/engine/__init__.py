"""The diagnosis engine: pure Python over typed facts; no I/O, no Textual."""
