"""Copy a namespace from one store to another, exactly: ``memgraph migrate --to postgresql://…``.

Moves an embedded data dir's memory to the servers (README "Running on servers") without
building anything again: sessions built with an LLM stay as they are, and the copy answers
exactly as the original (same rows in the same order, same vectors beside the rows, and in
Chroma when the target's threshold gives the namespace a Chroma index: ``storage.chroma_index``). It works between any two
stores (``GraphStore``), so a memory can move back from the servers to a data dir too.

The copy follows the commit protocol: vectors first, then ONE transaction with every row and
the sessions committed, so a copy that dies half-way leaves the target's namespace without any
visible session, and running it again finishes it (vectors are upserts; the rows are written
only into a namespace that holds no session yet). The source is read under its writer lock
(no commit in between); the target is written under its ingest and writer locks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memgraph_agents.errors import StorageError
from memgraph_agents.storage.chroma_index import INDEX_META, ON, upsert_rows
from memgraph_agents.storage.sqlite_rows import row_to_edge, row_to_node
from memgraph_agents.storage.vector_rows import vector_rows

if TYPE_CHECKING:
    from memgraph_agents.storage.memory_store import MemoryStore

# Meta a store keeps about itself (not copied): its generation, schema, collection name and
# whether that collection is an index (the target decides by its own threshold).
_OWN_META = {"generation", "schema", "collection", INDEX_META}


def copy_namespace(src: MemoryStore, dst: MemoryStore) -> dict:
    """Copy ``src``'s committed memory into ``dst`` (an empty namespace); returns counts."""
    with src._thread_lock, src.lock:  # no commit into the source while it is read
        src.recover()
        gen, nodes, edges, sessions = src.db.read_graph()
        owners = src.db.raw_owners()
        turns = {s["id"]: src.db.session_turns(s["id"]) for s in sessions}
        versions = {s["id"]: src.db.note_versions(s["id"]) for s in sessions}  # empty but for notes
        meta = {k: v for k, v in src.db.all_meta().items() if k not in _OWN_META}
        embedded = [r for r in nodes if r[6]]
        text = {r[0]: r[2] for r in embedded}
        # the vectors beside the rows (Chroma's, in a source whose rows could not take them yet)
        got = src._load_vectors(list(text), list(text.values()))
    missing = sorted(set(text) - set(got))
    if missing:
        raise StorageError(
            f"namespace {src.namespace!r}: {len(missing)} vectors missing in the source (e.g. {missing[0]!r})"
        )
    with dst.ingest_lock.hold(timeout=600), dst.own_data_dir(), dst._thread_lock, dst.lock:
        if dst.db.sessions(None):
            raise StorageError(
                f"namespace {dst.namespace!r} already holds sessions in the target: "
                "migrate into an empty namespace (or forget it there first)"
            )
        index = dst._index_to_build(len(got)) or dst.indexed()  # a Chroma index only above the threshold
        if index:  # 1. vectors (owner: the node's primary owner, as a commit would record it)
            upsert_rows(dst.vectors, embedded, got)
        with dst.db.write() as t:  # 2. every row, the sessions committed, in one transaction
            for s in sessions:
                t.add_pending_session(s)
            t.insert_nodes(row_to_node(r) for r in nodes)
            t.add_owner_pairs(owners)
            t.insert_edges(row_to_edge(r) for r in edges)
            t.put_vectors(vector_rows(got, text))
            for s in sessions:
                t.write_turns(s["id"], 0, turns[s["id"]], replace=True)
                t.commit_session_row(s)
                for version in versions[s["id"]]:
                    t.add_version(s["id"], version["text"], version["metadata"], version["at"])
            for k, v in meta.items():
                t.set_meta(k, v)
            if index:
                t.set_meta(INDEX_META, ON)
    return {
        "namespace": src.namespace,
        "sessions": len(sessions),
        "nodes": len(nodes),
        "vectors": len(got),
        "chroma_index": index,
    }
