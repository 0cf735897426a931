"""``memgraph export``: a namespace as one conversation file in the documented format
(``Memory.export``), which ``memgraph ingest`` reads back to the same sessions, turns and metadata."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memgraph_agents.cli.argtypes import add_user_option
from memgraph_agents.cli.filter_args import add_filter_options, filter_kwargs
from memgraph_agents.config import Settings


def add_parser(command) -> None:
    s = command("export", help="write a namespace's sessions and notes as a conversation file (JSON) ingest reads back")
    s.add_argument("--namespace", help="the namespace (env MEMGRAPH_NAMESPACE; default 'default')")
    add_user_option(s)
    s.add_argument("--kind", choices=["session", "note"], help="only sessions or only notes (default: both)")
    add_filter_options(s)
    s.add_argument("--out", type=Path, help="write to this file (default: standard output); never overwrites one")


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.api import Memory
    from memgraph_agents.cli.output import err_console, print_json

    ns = settings.namespace if args.namespace is None else args.namespace  # "" is refused, not defaulted
    data = Memory(settings=settings).export(ns, kind=args.kind, **filter_kwargs(args))
    text = json.dumps(data, ensure_ascii=False, indent=1)
    if args.out is None:
        print_json(text)
        return 0
    with open(args.out, "x", encoding="utf-8") as f:  # an existing file is an error, never replaced
        f.write(text + "\n")
    err_console.print(f"exported {len(data['sessions'])} session(s) and note(s) of {ns} to {args.out}", markup=False)
    return 0
