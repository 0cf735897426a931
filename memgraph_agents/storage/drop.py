"""Dropping a whole namespace: its vectors' collection, its graph rows or file, its folder.

Taken under the same two locks a writer takes (the ingest lock, then the writer lock), with
their cross-machine halves when the graph is in PostgreSQL, so a running ingest finishes its
session first and no writer sees the namespace half-dropped.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock

from memgraph_agents.storage.graph_db import GraphDB
from memgraph_agents.storage.graph_store import is_server_url, pg_graph_db
from memgraph_agents.storage.identity import legacy_collection_name, memory_dir, owns_collection
from memgraph_agents.storage.locks import namespace_ingest_lock
from memgraph_agents.storage.namespaces import namespace_dir
from memgraph_agents.storage.stats import missing_namespace
from memgraph_agents.storage.vectors import chroma_session

if TYPE_CHECKING:
    from memgraph_agents.config import Settings


def delete_namespace(
    data_dir: Path,
    namespace: str,
    *,
    chroma_host: str | None = None,
    chroma_port: int = 8000,
    if_empty: bool = False,
    graph_url: str | None = None,
    store_id: str = "default",
) -> bool:
    """Drop a namespace's collection and files (its rows, in PostgreSQL); other memories (other
    namespaces, store ids, the embedded namespace of the same name) are untouched.

    ``if_empty``: only when it holds no session at all (checked under the locks), so a failed
    first ingest leaves no empty namespace behind. Returns whether it was dropped.
    """
    d = namespace_dir(Path(data_dir), namespace)
    if is_server_url(graph_url):
        return _delete_server_namespace(
            data_dir, namespace, chroma_host, chroma_port, if_empty, str(graph_url), store_id
        )
    if not (d / "graph.sqlite").exists():
        if if_empty and d.is_dir():  # a first ingest that failed before its graph file existed
            with namespace_ingest_lock(d).hold(timeout=600):
                if not (d / "graph.sqlite").exists():
                    shutil.rmtree(d)
                    return True
            return False

        raise missing_namespace(data_dir, namespace)
    # Wait for a running ingest to finish its session, then for any other writer.
    with namespace_ingest_lock(d).hold(timeout=600), FileLock(str(d / "write.lock"), mode=0o600):
        if if_empty and _has_sessions(d / "graph.sqlite"):
            return False
        name = legacy_collection_name(namespace)  # namespaces from before store ids
        if (d / "graph.sqlite").exists():
            db = GraphDB(d / "graph.sqlite")
            try:  # this data dir's collection (scoped by its store id), never another's
                name = db.get_meta("collection") or name
            finally:
                db.close()
        with ExitStack() as stack:  # an embedded client is closed after, the data dir's lock let go
            try:
                client = stack.enter_context(chroma_session(Path(data_dir), chroma_host, chroma_port))
            except Exception:
                if not if_empty:
                    raise
                client = None  # never held a session, so no vectors: the files can go regardless
            try:
                if client is not None:
                    client.delete_collection(name)
            except Exception:  # no vectors were ever written
                pass
    shutil.rmtree(d)
    return True


def drop_namespace(settings: Settings, namespace: str, *, if_empty: bool = False) -> bool:
    """``delete_namespace`` in the memory ``settings`` point at (data dir, Chroma, graph store)."""
    return delete_namespace(
        Path(settings.data_dir),
        namespace,
        chroma_host=settings.chroma_host,
        chroma_port=settings.chroma_port,
        if_empty=if_empty,
        graph_url=settings.graph_url,
        store_id=settings.store_id,
    )


def discard_unopened(settings: Settings, namespace: str) -> None:
    """Remove the folder of an embedded namespace whose first open failed (its graph file was
    never completed, so it holds no session): under its ingest lock, without reading the file.
    A PostgreSQL namespace keeps only lock files here; its rows are checked by ``if_empty``."""
    if is_server_url(settings.graph_url):
        drop_namespace(settings, namespace, if_empty=True)
        return
    d = namespace_dir(Path(settings.data_dir), namespace)
    if d.is_dir():
        with namespace_ingest_lock(d).hold(timeout=600):
            shutil.rmtree(d)


def _delete_server_namespace(
    data_dir: Path, namespace: str, chroma_host: str | None, chroma_port: int, if_empty: bool, url: str, sid: str
) -> bool:
    pg = pg_graph_db()
    if not pg.exists(url, sid, namespace):
        raise missing_namespace(data_dir, namespace, url, sid)
    d = memory_dir(Path(data_dir), namespace, url, sid)  # this memory's lock folder, never another's
    db = pg(url, sid, namespace)
    # The same two locks as a writer takes, both with their cross-machine half.
    with namespace_ingest_lock(d, db.remote_ingest_lock()).hold(timeout=600), db.writer_lock():
        if if_empty and db.sessions(None):
            return False
        name = db.get_meta("collection")
        # A collection an earlier version named after a data dir may hold another memory's
        # vectors (``storage.identity``): left in place, never dropped with this memory.
        if name is not None and owns_collection(name, server=True):
            try:
                with chroma_session(Path(data_dir), chroma_host, chroma_port) as client:
                    client.delete_collection(name)
            except Exception:  # no vectors were ever written (or the collection is gone already)
                if (
                    not if_empty
                    and chroma_host is not None
                    and not _collection_gone(data_dir, chroma_host, chroma_port, name)
                ):
                    raise
        db.drop()
    shutil.rmtree(d, ignore_errors=True)  # this worker's lock files
    return True


def _collection_gone(data_dir: Path, host: str, port: int, name: str) -> bool:
    try:
        with chroma_session(Path(data_dir), host, port) as client:
            return name not in {c.name for c in client.list_collections()}
    except Exception:
        return False


def _has_sessions(db: Path) -> bool:
    """Whether the graph file holds a session. A file whose schema was never written (its
    creation failed, e.g. on a full disk) holds none; any other read error is raised."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='sessions'").fetchone() is None:
            return False
        return con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] > 0
    finally:
        con.close()
