"""Durable graph rows in SQLite (stdlib, WAL): sessions, nodes, edges of one namespace.

Session lifecycle: ``pending`` (vectors may be partly written) -> ``committed`` (visible) and
``deleting`` (being removed). A replacement or an append of a committed session leaves its row
``committed`` and records the unfinished write in ``writes`` instead. A ``generation`` counter
in ``meta`` bumps on every change so readers (other threads or processes) know when to reload
their snapshot.

Ownership is exact: ``node_owners`` holds one row per (node, session that states it) and an
edge's key includes its session, so a node or edge stated by two sessions survives deleting
either one. ``turns`` keeps each session's input turns (with a digest per turn) so that a
grown session is recognised as an append. ``vector_garbage`` lists vectors whose rows a commit
removed; they are deleted from Chroma after the commit (again by ``recover`` after a crash).

All SQL of the embedded graph store lives here (reads, meta, connections), in
``storage.sqlite_writer`` (the write transaction of the ``GraphStore`` interface,
``storage.graph_store``, and its row-level statements), ``storage.sqlite_rows`` (row codecs)
and ``storage.sqlite_schema`` (tables, creation, migrations); ``storage.pg_graph`` is its
PostgreSQL twin.

Connections: one writer connection (``conn``, used only under the store's write locks) and
one reader connection per thread. Reads never run on the writer connection, so a reader
never sees a write transaction that is still open, and ``read_graph`` reads the generation,
sessions, nodes and edges inside one read transaction: one consistent committed state even
while another thread or process commits (WAL).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from memgraph_agents.datadir import create_private_file
from memgraph_agents.model.graph import Edge, Node
from memgraph_agents.sqlite_wal import enable_wal
from memgraph_agents.storage.session_write import SESSION_KEYS, session_dict, version_dict
from memgraph_agents.storage.sqlite_rows import EDGE_COLS, NODE_COLS, chunks, node_texts_in, row_to_edge, row_to_node
from memgraph_agents.storage.sqlite_schema import create_or_migrate
from memgraph_agents.storage.sqlite_writer import SqliteWriter


class _ReaderConnection(sqlite3.Connection):
    """A plain connection that can be weakly referenced (a thread's reader dies with it)."""


class GraphDB:
    def __init__(self, path: Path) -> None:
        create_private_file(path)  # 0600; SQLite gives -wal/-shm the same mode
        self.path = path
        self._open_lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._local = threading.local()
        self._readers: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()  # closed by ``close``
        create_or_migrate(self.conn, self.path)

    @property
    def conn(self) -> sqlite3.Connection:
        """The writer connection, (re)opened on first use: ``close`` frees the descriptors of a
        store evicted from the runtime's cache, and a holder that still uses it reopens them."""
        c = self._conn
        if c is None:
            with self._open_lock:
                if self._conn is None:
                    c = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False, isolation_level=None)
                    enable_wal(c, timeout=60)
                    c.execute("PRAGMA synchronous=NORMAL")
                    c.execute("PRAGMA foreign_keys=OFF")
                    self._conn = c
                c = self._conn
        return c

    @property
    def reader(self) -> sqlite3.Connection:
        """This thread's read connection (autocommit: each statement sees the latest commit)."""
        c = getattr(self._local, "conn", None)
        if c is None:
            c = sqlite3.connect(
                str(self.path), timeout=60, check_same_thread=False, isolation_level=None, factory=_ReaderConnection
            )
            c.execute("PRAGMA query_only=ON")
            self._local.conn = c
            self._readers.add(c)
        return c

    def read_graph(self, rowid: bool = False) -> tuple[int, list[tuple], list[tuple], list[dict]]:
        """``(generation, node rows, edge rows, committed sessions)`` from one read transaction;
        ``rowid``: each row with its rowid (its order key) appended."""
        c = self.reader
        c.execute("BEGIN")
        try:
            return self.generation(), self.raw_nodes(rowid), self.raw_edges(rowid), self.sessions("committed")
        finally:
            c.execute("COMMIT")

    def read_graph_keyed(self) -> tuple[int, list[tuple], list[tuple], list[dict]]:
        """``read_graph`` with rowids: the rows ``MemoryStore`` keeps to update its snapshot after
        its own commits (``read_delta``); only this store has it."""
        return self.read_graph(rowid=True)

    def read_delta(
        self,
        node_ids: Iterable[str],
        edge_sessions: Iterable[str],
        edge_keys: Iterable[tuple],
        edge_nodes: Iterable[str] | None = None,
        session_ids: Iterable[str] | None = None,
    ) -> tuple[int, list[tuple], list[tuple], list[dict]]:
        """In one read transaction, with rowids appended as in ``read_graph_keyed``: the node
        rows of ``node_ids``; every edge row whose (src, dst, kind, label) is in ``edge_keys``
        or is that of an edge row of ``edge_sessions`` or with an endpoint in ``edge_nodes``
        (default: ``node_ids``), in rowid order; the committed sessions (only those of
        ``session_ids`` when given)."""
        ids, sessions, keys = sorted(set(node_ids)), sorted(set(edge_sessions)), set(edge_keys)
        ends = ids if edge_nodes is None else sorted(set(edge_nodes))
        c = self.reader
        c.execute("BEGIN")
        try:
            nodes: list[tuple] = []
            for chunk in chunks(ids):
                marks = ",".join("?" * len(chunk))
                nodes += c.execute(f"SELECT {NODE_COLS}, rowid FROM nodes WHERE id IN ({marks})", chunk).fetchall()
            for chunk in chunks(ends):
                marks = ",".join("?" * len(chunk))
                q = f"SELECT src, dst, kind, label FROM edges WHERE src IN ({marks}) OR dst IN ({marks})"
                keys.update(c.execute(q, chunk + chunk).fetchall())
            for chunk in chunks(sessions):
                marks = ",".join("?" * len(chunk))
                q = f"SELECT src, dst, kind, label FROM edges WHERE session_id IN ({marks})"
                keys.update(c.execute(q, chunk).fetchall())
            q = f"SELECT {EDGE_COLS}, rowid FROM edges WHERE src=? AND dst=? AND kind=? AND label=?"
            edges = [r for k in sorted(keys) for r in c.execute(q, k).fetchall()]
            nodes.sort(key=lambda r: r[-1])
            edges.sort(key=lambda r: r[-1])
            if session_ids is None:
                return self.generation(), nodes, edges, self.sessions("committed")
            records = [r for r in (self.session(i) for i in sorted(set(session_ids))) if r is not None]
            return self.generation(), nodes, edges, records
        finally:
            c.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write; bumps the generation so every reader reloads."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
            self.conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
            self.conn.execute("COMMIT")
        except BaseException:
            # SQLite rolls back by itself on some errors (SQLITE_FULL: a full disk); a second
            # ROLLBACK would raise "no transaction is active" and hide the real error.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    @contextmanager
    def write(self) -> Iterator[SqliteWriter]:
        """``transaction`` behind the ``GraphWrite`` interface (``storage.graph_store``)."""
        with self.transaction() as c:
            yield SqliteWriter(c)

    def writer_lock(self) -> FileLock:
        """Held by a writer from a session's first row to its commit: one writer per namespace
        across the threads and processes of this machine (the file sits beside the graph)."""
        return FileLock(str(self.path.parent / "write.lock"), mode=0o600)

    def remote_ingest_lock(self) -> None:
        """No cross-machine half: the ingest lock's flock already covers every process that
        can open this file (SQLite is never shared across machines)."""
        return None

    def init_meta(self, key: str, value: str) -> str:
        """Set ``key`` unless it is set; returns the stored value (the first writer wins)."""
        with self.transaction() as c:
            c.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (key, value))
            return str(c.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()[0])

    def generation(self) -> int:
        return int(self.reader.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])

    def get_meta(self, key: str) -> str | None:
        r = self.reader.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return r[0] if r else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as c:
            c.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- reads ---------------------------------------------------------------------------
    def _session_rows(self, where: str, params: tuple) -> list[dict]:
        rows = self.reader.execute(f"SELECT {', '.join(SESSION_KEYS)} FROM sessions{where} ORDER BY seq", params)
        return [session_dict(r) for r in rows]

    def sessions(self, status: str | None = "committed") -> list[dict]:
        return self._session_rows(" WHERE status=?" if status else "", (status,) if status else ())

    def session(self, session_id: str, status: str | None = "committed") -> dict | None:
        """One session's record by id (any status when ``status`` is None), or None."""
        where, params = (" WHERE id=? AND status=?", (session_id, status)) if status else (" WHERE id=?", (session_id,))
        rows = self._session_rows(where, params)
        return rows[0] if rows else None

    def node_ids(self, ids: Iterable[str]) -> set[str]:
        ids = list(ids)
        found: set[str] = set()
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            q = f"SELECT id FROM nodes WHERE id IN ({','.join('?' * len(chunk))})"
            found.update(r[0] for r in self.reader.execute(q, chunk))
        return found

    def node_kinds(self, ids: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for chunk in chunks(list(ids)):
            q = f"SELECT id, kind FROM nodes WHERE id IN ({','.join('?' * len(chunk))})"
            out.update(dict(self.reader.execute(q, chunk).fetchall()))
        return out

    def stored_bytes(self) -> int:
        """Bytes on disk of the namespace's folder (the graph file, its WAL, the lock files)."""
        return sum(p.stat().st_size for p in self.path.parent.rglob("*") if p.is_file())

    def embedded_count(self) -> int:
        return int(self.reader.execute("SELECT COUNT(*) FROM nodes WHERE embed=1").fetchone()[0])

    def embedded_bound(self) -> int:
        """An upper bound of ``embedded_count`` read from the rowid b-tree's ends, not a scan of
        every node (the count is checked against the index threshold on every commit): rowids
        are distinct, so with all of them >= 1 the largest is at least the number of rows."""
        # Two subqueries: SQLite reads min() or max() off the b-tree only when it is alone in
        # its query (``SELECT MIN(rowid), MAX(rowid)`` scans every row).
        lo, hi = self.reader.execute("SELECT (SELECT MIN(rowid) FROM nodes), (SELECT MAX(rowid) FROM nodes)").fetchone()
        if lo is None:
            return 0
        return int(hi) if lo >= 1 else self.embedded_count()

    def nodes(self, where: str = "", params: tuple = ()) -> list[Node]:
        q = f"SELECT {NODE_COLS} FROM nodes " + where
        return [row_to_node(r) for r in self.reader.execute(q, params)]

    def edges(self, where: str = "", params: tuple = ()) -> list[Edge]:
        q = "SELECT src, dst, kind, label, session_id, weight, turn_ids, attrs FROM edges " + where
        return [row_to_edge(r) for r in self.reader.execute(q, params)]

    def raw_nodes(self, rowid: bool = False) -> list[tuple]:
        return self.reader.execute(
            f"SELECT {NODE_COLS}{', rowid' if rowid else ''} FROM nodes ORDER BY rowid"
        ).fetchall()

    def raw_edges(self, rowid: bool = False) -> list[tuple]:
        return self.reader.execute(
            f"SELECT {EDGE_COLS}{', rowid' if rowid else ''} FROM edges ORDER BY rowid"
        ).fetchall()

    def raw_owners(self) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.reader.execute("SELECT node_id, session_id FROM node_owners ORDER BY 1, 2")]

    def all_meta(self) -> dict[str, str]:
        return dict(self.reader.execute("SELECT key, value FROM meta").fetchall())

    def session_turns(self, session_id: str) -> list[tuple[str, str, dict]]:
        """The stored input turns of a session: ``(turn id, digest, data)`` in order."""
        rows = self.reader.execute(
            "SELECT turn_id, digest, data FROM turns WHERE session_id=? ORDER BY idx", (session_id,)
        )
        return [(r[0], r[1], json.loads(r[2])) for r in rows]

    def session_digests(self, session_id: str) -> list[str]:
        """The digests of a session's stored input turns, in order (``session_turns`` without
        their data: what deciding an append needs)."""
        rows = self.reader.execute("SELECT digest FROM turns WHERE session_id=? ORDER BY idx", (session_id,))
        return [r[0] for r in rows]

    def note_versions(self, session_id: str) -> list[dict]:
        """A note's versions, oldest first (``version``, ``at``, ``text``, ``metadata``)."""
        q = "SELECT version, at, text, metadata FROM note_versions WHERE session_id=? ORDER BY version"
        return [version_dict(r) for r in self.reader.execute(q, (session_id,))]

    def pending_writes(self) -> list[tuple[str, str]]:
        return self.reader.execute("SELECT session_id, kind FROM writes ORDER BY session_id").fetchall()

    def vector_garbage(self) -> list[str]:
        return [r[0] for r in self.reader.execute("SELECT id FROM vector_garbage ORDER BY id")]

    def node_vectors(self, ids: Iterable[str]) -> list[tuple[str, bytes, bytes]]:
        """``(id, text digest, encoded vector)`` of the stored vectors among ``ids``."""
        ids = list(ids)
        if len(ids) > 450:  # a whole snapshot's: one scan, filtered here
            want = set(ids)
            rows = self.reader.execute("SELECT id, digest, vec FROM node_vectors").fetchall()
            return [r for r in rows if r[0] in want]
        out: list[tuple[str, bytes, bytes]] = []
        for chunk in chunks(ids):
            q = f"SELECT id, digest, vec FROM node_vectors WHERE id IN ({','.join('?' * len(chunk))})"
            out += self.reader.execute(q, chunk).fetchall()
        return out

    def vectors_by_digest(self, digests: Iterable[bytes]) -> list[tuple[bytes, bytes]]:
        """``(text digest, encoded vector)`` of stored vectors whose text has one of ``digests``."""
        out: list[tuple[bytes, bytes]] = []
        for chunk in chunks(list(digests)):
            q = f"SELECT digest, vec FROM node_vectors WHERE digest IN ({','.join('?' * len(chunk))})"
            out += self.reader.execute(q, chunk).fetchall()
        return out

    def node_texts(self, ids: Iterable[str]) -> dict[str, tuple[str, str, bool]]:
        """``id -> (text, primary owner, embedded)`` of the committed nodes among ``ids``."""
        return node_texts_in(self.reader, ids)

    def owned_node_ids(self, session_id: str) -> list[str]:
        return [
            r[0]
            for r in self.reader.execute(
                "SELECT node_id FROM node_owners WHERE session_id=? ORDER BY node_id", (session_id,)
            )
        ]

    def counts(self) -> tuple[dict[str, int], dict[str, int]]:
        n = dict(self.reader.execute("SELECT kind, COUNT(*) FROM nodes GROUP BY kind").fetchall())
        e = dict(self.reader.execute("SELECT kind, COUNT(*) FROM edges GROUP BY kind").fetchall())
        return n, e

    def close(self) -> None:
        """Close every connection (descriptors freed); the next use reopens them."""
        with self._open_lock:
            self._local = threading.local()  # every thread gets a fresh reader on next use
            for c in list(self._readers):
                c.close()
            self._readers = weakref.WeakSet()
            conn, self._conn = self._conn, None
            if conn is not None:
                conn.close()


def read_meta(path: Path, key: str) -> str | None:
    """One meta value of a graph file, read-only (never creates or migrates it)."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # no file: an error, not a new file
    except sqlite3.Error:
        return None
    try:
        row = con.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    return row[0] if row else None
