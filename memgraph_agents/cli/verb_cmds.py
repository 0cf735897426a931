"""``memgraph list`` and ``memgraph note add | update | history | forget``: ``Memory``'s verbs on
stored items (``show`` is in ``memory_cmds``). Each prints what the verb returns; ``--json``
prints it as JSON (one object)."""

from __future__ import annotations

import argparse
import json

from memgraph_agents.cli.argtypes import add_user_option
from memgraph_agents.cli.filter_args import add_filter_options, add_metadata_option, filter_kwargs, metadata_arg
from memgraph_agents.config import Settings

NS_HELP = "the namespace (env MEMGRAPH_NAMESPACE; default 'default')"


def add_parsers(command) -> None:
    """``list`` and ``note`` (``command(name, help)`` makes a sub-command with the global options)."""
    s = command("list", help="stored sessions and notes, newest first (a page; --cursor for the next)")
    s.add_argument("--namespace", help=NS_HELP)
    add_user_option(s)
    s.add_argument("--kind", choices=["session", "note"], help="only sessions or only notes (default: both)")
    add_filter_options(s)
    s.add_argument("--limit", type=int, default=20, help="items per page (default 20)")
    s.add_argument("--cursor", help="the cursor a previous page printed: its next page")
    s.add_argument("--json", action="store_true", help="print the page as JSON")

    s = command("note", help="add, update, show the history of, or forget a note")
    verbs = s.add_subparsers(dest="note_command", required=True, metavar="VERB")
    a = verbs.add_parser("add", help="store a dated note; prints its id")
    a.add_argument("text")
    a.add_argument("--speaker", default="user", help="who says it (default: user)")
    add_metadata_option(a)
    u = verbs.add_parser("update", help="replace a note's text (and metadata) in one commit; keeps its history")
    u.add_argument("note_id")
    u.add_argument("text")
    add_metadata_option(u)
    h = verbs.add_parser("history", help="a note's versions, oldest first")
    h.add_argument("note_id")
    f = verbs.add_parser("forget", help="delete one note with its history")
    f.add_argument("note_id")
    for v in (a, u, h, f):
        v.add_argument("--namespace", help=NS_HELP)
        add_user_option(v)
        v.add_argument("--json", action="store_true", help="print the result as JSON")


def _ns(args: argparse.Namespace, settings: Settings) -> str:
    return settings.namespace if args.namespace is None else args.namespace  # "" is refused, not defaulted


def _line(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def cmd_list(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.api import Memory
    from memgraph_agents.cli.output import console, print_json, table

    page = Memory(settings=settings).list(
        _ns(args, settings), kind=args.kind, limit=args.limit, cursor=args.cursor, **filter_kwargs(args)
    )
    if args.json:
        print_json(page.model_dump_json())
        return 0
    rows = [
        [i.id, i.kind, i.date[:16], i.speaker or ",".join(i.participants), json.dumps(i.metadata), _line(i.text)]
        for i in page.items
    ]
    console.print(
        table(f"{page.namespace}: {len(rows)} item(s)", ["id", "kind", "date", "who", "metadata", "text"], rows)
    )
    if page.cursor:
        console.print(f"more: --cursor {page.cursor}", markup=False)
    return 0


def cmd_note(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.api import Memory
    from memgraph_agents.cli.output import console, print_json, table

    memory, ns = Memory(settings=settings), _ns(args, settings)
    verb = args.note_command
    if verb == "add":
        where = {"user_id": args.user_id} if args.user_id is not None else {"namespace": ns}  # the id is kept
        report = memory.add(args.text, **where, speaker=args.speaker, metadata=metadata_arg(args.metadata))
        [note_id] = report.note_ids
        out: dict = {"note_id": note_id, "namespace": ns}
        text = f"added {note_id} to {ns}"
    elif verb == "update":
        item = memory.update(args.note_id, args.text, namespace=ns, metadata=metadata_arg(args.metadata))
        out, text = item.model_dump(mode="json"), f"updated {item.id}: {_line(item.text)}"
    elif verb == "history":
        hist = memory.history(args.note_id, namespace=ns)
        if not args.json:
            rows = [[v.version, v.at[:19], json.dumps(v.metadata), _line(v.text)] for v in hist.versions]
            console.print(table(f"{hist.note_id} ({ns})", ["version", "stored at", "metadata", "text"], rows))
            return 0
        out, text = hist.model_dump(mode="json"), ""
    else:  # forget
        gone = memory.forget(namespace=ns, note=args.note_id)
        out = {"note_id": args.note_id, "namespace": ns, "nodes_removed": gone.nodes_removed}
        text = f"forgot {args.note_id} of {ns}: {gone.nodes_removed} nodes removed"
    if args.json:
        print_json(json.dumps(out))
    else:
        console.print(text, markup=False)
    return 0
