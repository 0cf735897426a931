"""``memgraph ingest | stats | show | forget``."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

from rich.progress import TaskID

from memgraph_agents.cli.filter_args import metadata_arg
from memgraph_agents.cli.output import console, env_namespace, err_console, progress_bar, table
from memgraph_agents.config import Settings


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.api import Memory
    from memgraph_agents.ingest_plan import plan_ingest
    from memgraph_agents.loaders import load_conversations

    memory = Memory(settings=settings)
    metadata = metadata_arg(getattr(args, "metadata", None))
    # Everything is parsed and validated (dates, limits, namespaces) before anything is written.
    conversations = load_conversations(Path(args.file), args.format, limits=settings.limits)
    # --namespace ("" is refused, not defaulted), else MEMGRAPH_NAMESPACE, else one per conversation
    fixed = args.namespace if args.namespace is not None else (env_namespace() or None)
    plan = plan_ingest(conversations, settings, fixed, source=str(args.file))
    if fixed and len(conversations) > 1:
        console.print(f"note: {len(conversations)} conversations go into one namespace {fixed!r}")
    total_turns = 0
    with progress_bar("turns") as p:
        for conv, ns in plan:
            # counted in turns (a session's when it is done): sessions differ tenfold in length
            sizes = {s.id: len(s.turns) for s in conv.sessions}
            task = p.add_task(f"{conv.id} -> {ns}", total=sum(sizes.values()))
            # An explicit --llm / --preset asks to rebuild sessions stored with another builder or preset.
            rebuild = getattr(args, "llm", None) is not None or getattr(args, "preset", None) is not None

            def advance(session_id: str, done: int, total: int, task: TaskID = task, sizes=sizes) -> None:
                p.advance(task, sizes.get(session_id, 0))

            # --user-id: that user's namespace, which keeps the id (the browser shows it)
            where = {"user_id": args.user_id} if getattr(args, "user_id", None) is not None else {"namespace": ns}
            report = memory.add(
                conv,
                **where,
                replace=bool(getattr(args, "replace", False)),
                rebuild=rebuild,
                progress=advance,
                metadata=metadata,
            )
            total_turns += report.turns
            p.update(
                task,
                description=f"{conv.id} -> {ns}: {report.sessions_added} new, {report.sessions_appended} "
                f"appended, {report.sessions_replaced} replaced, {report.sessions_unchanged} "
                f"unchanged ({report.seconds:.1f}s)",
            )
            for note in report.warnings:
                console.print(f"  {conv.id} {note}", markup=False)
            for outcome in report.sessions:  # one line per session: how it was built, LLM or fallback
                console.print(f"  {conv.id} {outcome.line(not settings.offline)}", markup=False)
    console.print(f"ingested {len(conversations)} conversation(s), {total_turns} new turn(s) into {settings.data_dir}")
    return 0


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    # What Memory.stats runs (api.ops.stats: SQLite only, no Chroma, no embedding model), without
    # building a Memory: that validates the retriever, which loads every retriever (langgraph…).
    from memgraph_agents.api import ops
    from memgraph_agents.datadir import check_data_dir
    from memgraph_agents.errors import StorageError
    from memgraph_agents.storage.graph_store import scan_stored_namespaces

    check_data_dir(settings.data_dir)  # a file, under a file, read-only: one clear error
    skipped: list[str] = []
    only = args.namespace if args.namespace is not None else (env_namespace() or None)
    if only is not None:
        names = [only]
    else:
        names, skipped = scan_stored_namespaces(settings.data_dir, settings.graph_url, settings.store_id)
    for name in skipped:  # a leftover folder must not hide every other namespace
        err_console.print(
            f"warning: skipping {name!r} in {settings.data_dir}/namespaces: not a namespace name", markup=False
        )
    if not names:
        console.print(f"no memory in {settings.data_dir} yet: run `memgraph ingest FILE` first")
        return 0
    from memgraph_agents.model.graph import EdgeKind, NodeKind

    rows_s, stats, shown = [], [], []
    unread: list[tuple[str, BaseException]] = []
    for ns in names:
        try:
            s = ops.stats(settings, ns)
        except (StorageError, sqlite3.Error, OSError) as e:  # this namespace only (e.g. NamespaceUnusableError)
            if only is not None:
                raise
            err_console.print(f"warning: cannot read namespace {ns!r}: {' '.join(str(e).split())}", markup=False)
            unread.append((ns, e))
            continue
        shown.append(ns)
        stats.append(s)
        rows_s.append(
            [
                ns,
                s["sessions"],
                ",".join(s["presets"] or ["-"]),
                sum(s["nodes"].values()),
                sum(s["edges"].values()),
                s["vectors"],
                f"{s['graph_bytes'] / 1e6:.1f} MB",
            ]
        )
    # The core kinds always (a zero says something); generated-memory kinds when some namespace has them.
    core_nodes = {"session", "turn", "sentence", "event", "argument", "topic"}
    core_edges = {"contains", "next", "evidence", "relation", "role", "synonym", "member", "similar"}
    node_kinds = [k.value for k in NodeKind if k.value in core_nodes or any(s["nodes"].get(k.value) for s in stats)]
    edge_kinds = [k.value for k in EdgeKind if k.value in core_edges or any(s["edges"].get(k.value) for s in stats)]
    console.print(
        table("Namespaces", ["namespace", "sessions", "preset", "nodes", "edges", "vectors", "on disk"], rows_s)
    )
    # Kinds as rows, namespaces as columns: stays readable on an 80-column terminal.
    names = shown
    console.print(
        table("Nodes by kind", ["node kind"] + names, [[k] + [s["nodes"].get(k, 0) for s in stats] for k in node_kinds])
    )
    console.print(
        table("Edges by kind", ["edge kind"] + names, [[k] + [s["edges"].get(k, 0) for s in stats] for k in edge_kinds])
    )
    if unread:  # a partial listing must not pass for the whole memory
        _unread_error(settings, unread, len(unread) + len(shown))
    return 0


def _unread_error(settings: Settings, unread: list[tuple[str, BaseException]], total: int) -> None:
    from memgraph_agents.errors import StorageError
    from memgraph_agents.storage.disk import disk_full_error, is_disk_full

    what = f"{len(unread)} of {total} namespaces could not be read ({', '.join(repr(ns) for ns, _ in unread)})"
    if any(is_disk_full(e, settings.data_dir) for _, e in unread):
        raise disk_full_error(Path(settings.data_dir), what)
    raise StorageError(f"{what}: the listing is incomplete")


def cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    """A stored item through ``Memory.get``: its text, attributes, graph neighbours and the
    provenance turns it rests on (with their dates, the question a short reply answers, and
    "(superseded on DATE by TURN)" on a statement a later one replaced)."""
    from memgraph_agents.api import Memory
    from memgraph_agents.api.ops import open_store
    from memgraph_agents.retrieval.finish import finished_turns

    memory = Memory(settings=settings)
    ns = settings.namespace if args.namespace is None else args.namespace  # "" is refused, not defaulted
    item = memory.get(args.node_id, namespace=ns)
    console.print(
        f"[bold]{item.node_id or item.id}[/bold] ({item.node_kind or item.kind}, owner session {item.session_id or '-'})"
    )
    console.print(f"{item.speaker}: {item.text}" if item.kind == "turn" else item.text, markup=False)
    if item.date:
        console.print(f"date: {item.date}", markup=False)
    if item.metadata:
        console.print(f"metadata: {json.dumps(item.metadata, ensure_ascii=False)}", markup=False)
    if item.attrs:
        console.print(f"attrs: {item.attrs}", markup=False)
    rows = [
        ["->" if n.direction == "out" else "<-", n.edge, n.label, n.node_id, " ".join(n.text.split())[:70]]
        for n in item.neighbours
    ]
    console.print(table(f"Neighbours ({item.n_neighbours})", ["dir", "edge", "label", "node", "text"], rows))
    console.print(f"provenance turns ({len(item.turn_ids)}):")
    shown = item.turn_ids[:20]
    finished = {ev.turn_ids[0]: ev for ev in finished_turns(open_store(settings, ns), shown)}
    for tid in shown:
        turn = item if tid == item.id and item.kind == "turn" else memory.get(tid, namespace=ns)
        ev = finished.get(tid)
        mark = f" {ev.mark()}" if ev and ev.mark() else ""
        console.print(f"  [{turn.date[:10]} | {tid}] {turn.speaker}: {turn.text}{mark}", markup=False, soft_wrap=True)
        if ev and ev.context:  # the question a short reply answers, on the line below
            console.print(f"      {ev.context_note()}", markup=False, soft_wrap=True)
    return 0


def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.api import Memory

    if args.session:  # one session: of --namespace, else MEMGRAPH_NAMESPACE
        ns = args.namespace or settings.namespace
        out = Memory(settings=settings).forget(namespace=ns, session=args.session)
        console.print(f"forgot session {args.session} of {ns}: {out.nodes_removed} nodes removed")
        return 0
    if not args.namespace:  # a whole namespace only when named on the command line
        raise ValueError("forget needs --namespace (and --session S to forget one session)")
    Memory(settings=settings).forget(namespace=args.namespace)
    console.print(f"forgot namespace {args.namespace}")
    return 0
