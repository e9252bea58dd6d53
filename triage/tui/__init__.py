"""The chat TUI: an interview pane, a live ranking and a what-if memory panel.

Importing this package does not import Textual; :func:`triage.tui.app.make_app`
does. The interview itself is :mod:`triage.interview` (pure Python).
"""
