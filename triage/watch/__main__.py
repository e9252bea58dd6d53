"""``python -m triage.watch [--report PATH] [--snapshot] train.py ARGS...`` (or ``-m module ARGS...``).

Runs the script as ``python train.py ARGS...`` would (``sys.argv``, ``sys.path[0]``
and ``__name__ == "__main__"`` as it expects) inside :func:`triage.watch.watch`;
its exit code, output and exceptions are its own.
"""

from __future__ import annotations

import os
import runpy
import sys

from triage.watch import DEFAULT_REPORT, watch

USAGE = (
    "usage: python -m triage.watch [--report PATH] [--snapshot] SCRIPT.py [ARGS...]\n"
    "       python -m triage.watch [--report PATH] [--snapshot] -m MODULE [ARGS...]"
)


def main(argv: list[str]) -> int:
    report, snapshot = DEFAULT_REPORT, False
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-m":
        if argv[i] in ("-h", "--help"):
            print(USAGE)
            return 0
        if argv[i] == "--snapshot":
            snapshot = True
        elif argv[i] == "--report" and i + 1 < len(argv):
            report = argv[i + 1]
            i += 1
        elif argv[i].startswith("--report="):
            report = argv[i].partition("=")[2]
        else:
            print(f"python -m triage.watch: unknown option {argv[i]}\n{USAGE}", file=sys.stderr)
            return 2
        i += 1
    rest = argv[i:]
    module = None
    if rest[:1] == ["-m"]:
        if len(rest) < 2:
            print(f"python -m triage.watch: -m needs a module name\n{USAGE}", file=sys.stderr)
            return 2
        module, rest = rest[1], rest[2:]
    elif not rest:
        print(USAGE, file=sys.stderr)
        return 2
    if module is None:
        script = rest[0]
        if not os.path.isfile(script):
            print(f"python -m triage.watch: cannot open {script}: no such file", file=sys.stderr)
            return 2
        sys.argv = list(rest)
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        with watch(snapshot=snapshot, path=report):
            runpy.run_path(script, run_name="__main__")
    else:
        sys.argv = [module, *rest]
        sys.path[0] = os.getcwd()
        with watch(snapshot=snapshot, path=report):
            runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
