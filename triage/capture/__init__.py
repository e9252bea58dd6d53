"""Capture a training run instead of guessing about it: ``triage run -- <command ...>``.

Three small jobs, one module each: :mod:`cmdline` reads the command line as configuration
(the launcher, its GPU count, HF-style ``--key value`` arguments, ``key=value`` overrides,
every config file it names); :mod:`environ` asks the machine (the interpreter's package
versions, ``nvidia-smi``, the allocator's environment variables, the cgroup's OOM-kill
counter); :mod:`runner` runs the command unchanged, passes its output through, forwards
signals and streams the output through the log scanner. :mod:`session` ties them together
into a :class:`~triage.capture.session.Capture`, which the pipeline turns into facts.
"""

from __future__ import annotations
