"""``triage kb``: lint, test and maintain the knowledge base."""

from __future__ import annotations

import argparse
from pathlib import Path

from triage.cli.errors import EXIT_FAILED, EXIT_OK, InputError

NAME = "kb"
HELP = "lint, test and maintain the knowledge base"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--knowledge", type=Path, metavar="DIR", help="the knowledge directory (default: the bundled one)")
    sub = parser.add_subparsers(dest="kb_command", metavar="ACTION", required=True, parser_class=type(parser))
    lint = sub.add_parser("lint", help="run every coded check; exit 1 on problems")
    lint.add_argument("--codes", action="store_true", help="list the lint codes and exit")
    test = sub.add_parser("test", help="run the behaviour cases (all, or one cause's)")
    test.add_argument("id", nargs="?", help="a cause id")
    test.add_argument("-v", "--verbose", action="store_true", help="show the ranking and evidence for passing cases too")
    schema = sub.add_parser("schema", help="write knowledge/schema/*.json from the models")
    schema.add_argument("--check", action="store_true", help="only check; exit 1 when stale")


def _lint(args: argparse.Namespace) -> int:
    from triage.kb.lint import CODES, lint_dir

    if args.codes:
        for code, text in CODES.items():
            print(f"{code}  {text}")
        return EXIT_OK
    kb, problems = lint_dir(args.knowledge)
    for problem in problems:
        print(problem.render())
    counts = f"{len(kb.causes)} causes, {len(kb.remedies)} remedies, {len(kb.myths)} myths, {len(kb.facts)} facts"
    if problems:
        print(f"{len(problems)} problem(s) in {counts}")
        return EXIT_FAILED
    print(f"ok: {counts}")
    return EXIT_OK


def _test(args: argparse.Namespace) -> int:
    from triage.kb.loader import load_checked
    from triage.kbtest import iter_cases, run_case

    kb = load_checked(args.knowledge)
    if args.id is not None and args.id not in kb.causes:
        raise InputError(f"no cause {args.id!r}; `triage kb lint` lists the knowledge base")
    failed = passed = todo = 0
    for cause_id, case in iter_cases(kb, args.id):
        result = run_case(kb, cause_id, case)
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
    from triage.kb.loader import default_knowledge_dir
    from triage.kb.schema import stale_schemas, write_schemas

    schema_dir = (args.knowledge or default_knowledge_dir()) / "schema"
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


def run(args: argparse.Namespace) -> int:
    return {"lint": _lint, "test": _test, "schema": _schema}[args.kb_command](args)
