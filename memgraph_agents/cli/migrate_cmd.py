"""``memgraph migrate --to postgresql://…``: move a data dir's memory to the servers, exactly.

The source is the data dir's embedded graph, with its vectors in the embedded Chroma (or on
``--from-chroma HOST:PORT``); the target is the PostgreSQL database of ``--to`` (store id
``--store-id`` or ``MEMGRAPH_STORE_ID``) with the vectors on the Chroma server of
``MEMGRAPH_CHROMA_HOST`` / ``MEMGRAPH_CHROMA_PORT``. Nothing is built again
(``storage.migrate``).
"""

from __future__ import annotations

import argparse

from memgraph_agents.config import Settings


def add_parser(command) -> None:
    s = command("migrate", help="copy this data dir's memory to PostgreSQL + a Chroma server, exactly")
    s.add_argument("--to", required=True, metavar="URL", help="postgresql://user@host:port/database")
    s.add_argument("--store-id", help="the memory's store id in that database (env MEMGRAPH_STORE_ID)")
    s.add_argument("--namespace", help="one namespace (default: every namespace of the data dir)")
    s.add_argument("--from-chroma", metavar="HOST:PORT", help="the source's vectors are on this Chroma server")


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.cli.output import console
    from memgraph_agents.storage import MemoryStore
    from memgraph_agents.storage.graph_store import stored_namespaces
    from memgraph_agents.storage.migrate import copy_namespace
    from memgraph_agents.storage.pg_schema import redact

    host, _, port = (args.from_chroma or "").partition(":")
    source = settings.override(graph_url=None, chroma_host=host or None, chroma_port=int(port or 8000))
    target = settings.override(graph_url=args.to, store_id=args.store_id or settings.store_id)
    if not target.chroma_host:
        raise ValueError(
            "migrate needs the target's Chroma server: set MEMGRAPH_CHROMA_HOST (and MEMGRAPH_CHROMA_PORT)"
        )
    names = [args.namespace] if args.namespace else stored_namespaces(source.data_dir)
    if not names:
        console.print(f"no memory in {source.data_dir}: nothing to migrate")
        return 0
    for ns in names:
        src = MemoryStore.open(source, ns, create=False)
        dst = MemoryStore.open(target, ns)
        try:
            if dst.db.sessions(None):  # copied by an earlier run (a re-run resumes the others)
                console.print(f"{ns}: already holds sessions in the target, skipped", markup=False)
                continue
            out = copy_namespace(src, dst)
        finally:
            src.close()
            dst.close()
        console.print(
            f"{ns}: {out['sessions']} sessions, {out['nodes']} nodes, {out['vectors']} vectors copied to "
            f"{redact(str(target.graph_url))} (store {target.store_id!r}), "
            + (
                f"indexed in Chroma {target.chroma_host}:{target.chroma_port}"
                if out["chroma_index"]
                else "searched exactly (no Chroma index below MEMGRAPH_CHROMA_INDEX_NODES)"
            ),
            markup=False,
        )
    return 0
