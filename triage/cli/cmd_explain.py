"""``triage explain ID``: the full explanation of a cause, remedy, myth or fact."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from triage.cli.errors import EXIT_OK, InputError

NAME = "explain"
HELP = "show the full explanation of a cause, remedy, myth or fact"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", nargs="?", help="an entity id, e.g. gradient-checkpointing-off")
    parser.add_argument("--lang", choices=["en", "zh"], default="en")
    parser.add_argument("--facts", action="store_true", help="list every fact of the vocabulary")
    parser.add_argument("--categories", action="store_true", help="list the cause categories")
    parser.add_argument("--knowledge", type=Path, metavar="DIR")


def run(args: argparse.Namespace) -> int:
    from triage import api
    from triage.kb.models import Category
    from triage.render.explain import explain, list_facts

    if args.categories:
        print("\n".join(c.value for c in Category))
        return EXIT_OK
    kb = api.knowledge(args.knowledge)
    if args.facts:
        sys.stdout.write(list_facts(kb, args.lang))
        return EXIT_OK
    if not args.id:
        raise InputError("give an id, e.g. triage explain gradient-checkpointing-off (or --facts, --categories)")
    entity = kb.entity(args.id)
    if entity is None:
        from rapidfuzz import process

        ids = [*kb.causes, *kb.remedies, *kb.myths, *kb.facts]
        near = [m[0] for m in process.extract(args.id, ids, limit=3)]
        raise InputError(f"no entity {args.id!r}; did you mean {', '.join(near)}?")
    sys.stdout.write(explain(kb, entity, args.lang))
    return EXIT_OK
