"""The one error of ``triage run`` before the command runs (kept light: the API imports it eagerly)."""

from __future__ import annotations


class RunError(Exception):
    """The command (or its log copy) could not be started; ``exit_code`` is what triage exits with.

    A shell's codes for a command: 127 not found, 126 not executable; 2 for no command at all, 3
    for a log copy that cannot be written. ``key`` names the message in
    :mod:`triage.render.strings` (``run_error_<key>``) and ``params`` fill it, so the CLI says it
    in the user's language; the English text is the exception's own message.
    """

    def __init__(self, message: str, exit_code: int, key: str, **params: str) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.key = key
        self.params = params
