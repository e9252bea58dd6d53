"""``triage kb``: lint, test and maintain the knowledge base.

The commands work on the triage checkout around the current directory, or on
``--knowledge DIR`` (see :mod:`triage.authoring.checkout`). Outside a checkout,
``lint``, ``test`` and ``stats`` check the knowledge base triage runs with and
say so; the commands that write or compare repository files refuse.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from triage.cli.errors import EXIT_FAILED, EXIT_OK, InputError, UsageError

if TYPE_CHECKING:
    from triage.authoring.checkout import Workspace

NAME = "kb"
HELP = "lint, test and maintain the knowledge base"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--knowledge",
        type=Path,
        metavar="DIR",
        help="the knowledge directory (default: knowledge/ of the triage checkout around the current directory)",
    )
    sub = parser.add_subparsers(dest="kb_command", metavar="ACTION", required=True, parser_class=type(parser))
    lint = sub.add_parser("lint", help="run every coded check; exit 1 on problems")
    lint.add_argument("--codes", action="store_true", help="list the lint codes and exit")
    lint.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="report only problems in these files (the whole knowledge base is still checked; for pre-commit)",
    )
    test = sub.add_parser("test", help="run the behaviour cases (all, or one cause's)")
    test.add_argument("id", nargs="?", help="a cause id")
    test.add_argument(
        "-v", "--verbose", action="store_true", help="show the ranking and evidence for passing cases too"
    )
    test.add_argument(
        "--with-corpus",
        action="store_true",
        help="add the votes of the bundled corpus' similar solved reports, as users get them "
        "(default: the knowledge base alone)",
    )
    schema = sub.add_parser("schema", help="write knowledge/schema/*.json from the models")
    schema.add_argument("--check", action="store_true", help="only check; exit 1 when stale")
    new = sub.add_parser("new", help="write a template for a new cause, remedy or myth (and a cause's cases file)")
    new.add_argument("kind", choices=["cause", "remedy", "myth"])
    new.add_argument("id", help="the new id, kebab-case (it is the file name)")
    new.add_argument("--category", help="a cause's category (triage explain --categories lists them)")
    docs = sub.add_parser("docs", help="write docs/knowledge/ (English and Chinese) from the knowledge base")
    docs.add_argument("--check", action="store_true", help="only check; exit 1 when the docs are stale")
    docs.add_argument(
        "--out", type=Path, metavar="DIR", help="the docs directory (default: docs/knowledge beside knowledge/)"
    )
    case = sub.add_parser("case-from-report", help="turn an exported markdown report into a case that must fire")
    case.add_argument(
        "report", type=Path, metavar="REPORT.md", help="a report from `triage --format markdown` or the TUI"
    )
    case.add_argument("--cause", required=True, metavar="ID", help="the true cause")
    case.add_argument("--name", metavar="NAME", help="the case name (default: report-<file stem>)")
    stats = sub.add_parser("stats", help="coverage: entities per category, myths, version bugs, missing Chinese text")
    stats.add_argument("--format", choices=["text", "json"], default="text")
    for action in (lint, test, schema, new, docs, case, stats):  # `triage kb new ... --knowledge DIR` works too
        action.add_argument("--knowledge", type=Path, metavar="DIR", default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def _workspace(args: argparse.Namespace, *, installed_ok: bool = False) -> Workspace:
    """The knowledge directory this command works on; one line on stderr when it is not a checkout's."""
    from triage.authoring.checkout import NoKnowledgeDir, NotInCheckout, find_workspace

    try:
        cwd = Path.cwd()
    except OSError as exc:
        raise InputError(f"cannot read the current directory: {exc.strerror or exc}") from None
    try:
        found = find_workspace(args.kb_command, args.knowledge, cwd, installed_ok=installed_ok)
    except NotInCheckout as exc:
        raise UsageError(str(exc)) from None
    except NoKnowledgeDir as exc:
        raise InputError(str(exc)) from None
    if found.installed:
        print(
            f"triage: not in a triage checkout; `triage kb {args.kb_command}` checks the knowledge base triage "
            f"runs with, {found.knowledge} (run it from the repository or pass --knowledge DIR for yours)",
            file=sys.stderr,
        )
    return found


def _lint(args: argparse.Namespace) -> int:
    from triage.authoring.lint import CODES, lint_dir

    if args.codes:
        for code, text in CODES.items():
            print(f"{code}  {text}")
        return EXIT_OK
    kb, problems = lint_dir(_workspace(args, installed_ok=True).knowledge)
    if args.files:
        from triage.authoring.lint import only_files

        problems = only_files(kb, problems, args.files)
    for problem in problems:
        print(problem.render())
    counts = f"{len(kb.causes)} causes, {len(kb.remedies)} remedies, {len(kb.myths)} myths, {len(kb.facts)} facts"
    if problems:
        print(f"{len(problems)} problem(s) in {counts}")
        return EXIT_FAILED
    print(f"ok: {counts}")
    return EXIT_OK


def _test(args: argparse.Namespace) -> int:
    from triage.authoring.kbtest import iter_cases, run_case
    from triage.kb.loader import load_checked

    kb = load_checked(_workspace(args, installed_ok=True).knowledge)
    if args.id is not None and args.id not in kb.causes:
        raise InputError(f"no cause {args.id!r}; `triage kb lint` lists the knowledge base")
    failed = passed = todo = 0
    for cause_id, case in iter_cases(kb, args.id):
        result = run_case(kb, cause_id, case, similar=args.with_corpus)
        if result.todo:
            status = "TODO-PASS" if result.passed else "todo"
            todo += 1
        elif result.passed:
            status, passed = "PASS", passed + 1
        else:
            status, failed = "FAIL", failed + 1
        print(f"{status:<9} {cause_id}::{case.name}  ({case.expect}: {result.reason})")
        if status == "FAIL" or args.verbose:
            for line in result.ranking():
                print(f"          {line}")
            for line in result.evidence():
                print(f"            {line}")
    print(f"{passed} passed, {failed} failed, {todo} todo")
    return EXIT_FAILED if failed else EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from triage.authoring.schema import stale_schemas, write_schemas

    schema_dir = _workspace(args).schema
    if args.check:
        stale = stale_schemas(schema_dir)
        for name in stale:
            print(f"stale: {schema_dir / name}")
        if stale:
            print("run `triage kb schema` and commit the result")
            return EXIT_FAILED
        print("ok: schemas are current")
        return EXIT_OK
    for name in write_schemas(schema_dir):
        print(f"wrote {schema_dir / name}")
    return EXIT_OK


def _new(args: argparse.Namespace) -> int:
    from triage.authoring.scaffold import ScaffoldError, check_request, scaffold

    try:
        check_request(args.kind, args.id, args.category)
    except ScaffoldError as exc:
        raise UsageError(str(exc)) from None
    root = _workspace(args).knowledge
    try:
        written = scaffold(root, args.kind, args.id, args.category)
    except ScaffoldError as exc:
        raise InputError(str(exc)) from None
    for path in written:
        print(f"wrote {path}")
    print(
        "fill in every TODO, then run `triage kb lint` and `triage kb test"
        + (f" {args.id}`" if args.kind == "cause" else "`")
    )
    return EXIT_OK


def _docs(args: argparse.Namespace) -> int:
    from triage.authoring.checkout import is_installed
    from triage.authoring.docs import stale_docs, write_docs
    from triage.kb.loader import load_checked

    found = _workspace(args)
    out = args.out or found.docs
    if is_installed(out):
        raise UsageError(f"`triage kb docs` does not write or check docs inside an installed package: {out}")
    kb = load_checked(found.knowledge)
    if args.check:
        stale = stale_docs(kb, out)
        for rel in stale:
            print(f"stale: {out / rel}")
        if stale:
            print("run `triage kb docs` and commit the result")
            return EXIT_FAILED
        print("ok: docs are current")
        return EXIT_OK
    written, removed = write_docs(kb, out)
    for rel in written:
        print(f"wrote {out / rel}")
    for rel in removed:
        print(f"removed {out / rel}")
    print(f"ok: {out} is current ({len(written)} written, {len(removed)} removed)")
    return EXIT_OK


def _case_from_report(args: argparse.Namespace) -> int:
    from triage.authoring.casegen import (
        ReportError,
        append_case,
        build_case,
        case_names,
        cases_path,
        default_name,
        parse_report,
    )
    from triage.kb.loader import load_checked

    kb = load_checked(_workspace(args).knowledge)
    if args.cause not in kb.causes:
        raise InputError(f"no cause {args.cause!r}; `triage kb lint` lists the knowledge base")
    try:
        with args.report.open(encoding="utf-8", errors="replace") as fh:
            report = parse_report(fh)
    except OSError as exc:
        raise InputError(f"cannot read {args.report}: {exc.strerror or exc}") from None
    try:
        taken = case_names(cases_path(kb, args.cause))
        if args.name is not None and args.name in taken:
            raise ReportError(f"case {args.name!r} exists already in {args.cause}.cases.yaml; pick another --name")
        name = args.name or default_name(args.report, taken)
        new = build_case(kb, report, args.cause, name, args.report.name)
        path = append_case(kb, args.cause, new.case)
    except ReportError as exc:
        raise InputError(str(exc)) from None
    for line in new.skipped:
        print(f"skipped fact {line}", file=sys.stderr)
    if report.truncated:
        print("the symptom was long: kept its last part; trim it to what matters", file=sys.stderr)
    print(f"appended case {name!r} (expect: fire) to {path}")
    print(f"run `triage kb test {args.cause}`: it fails until the cause recognises this report")
    return EXIT_OK


def _stats(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict

    from triage.authoring.stats import compute, render
    from triage.kb.loader import load_checked

    stats = compute(load_checked(_workspace(args, installed_ok=True).knowledge))
    if args.format == "json":
        print(json.dumps({**asdict(stats), "shortfalls": stats.shortfalls}, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(render(stats))
    return EXIT_FAILED if stats.shortfalls else EXIT_OK


def run(args: argparse.Namespace) -> int:
    commands = {
        "stats": _stats,
        "lint": _lint,
        "test": _test,
        "schema": _schema,
        "new": _new,
        "docs": _docs,
        "case-from-report": _case_from_report,
    }
    return commands[args.kb_command](args)
