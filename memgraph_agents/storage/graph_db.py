"""Durable graph rows in SQLite (stdlib, WAL): sessions, nodes, edges of one namespace.

Session lifecycle: ``pending`` (vectors may be partly written) -> ``committed`` (visible) and
``deleting`` (being removed). A ``generation`` counter in ``meta`` bumps on every change so
readers (other threads or processes) know when to reload their snapshot.

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

from memgraph_agents.datadir import create_private_file
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind
from memgraph_agents.sqlite_wal import enable_wal

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, date TEXT NOT NULL, status TEXT NOT NULL, seq INTEGER NOT NULL,
    participants TEXT NOT NULL, n_turns INTEGER NOT NULL, content_hash TEXT NOT NULL,
    builder TEXT NOT NULL, ingested_at TEXT NOT NULL, info TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS nodes (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, text TEXT NOT NULL, session_id TEXT NOT NULL,
    turn_ids TEXT NOT NULL, attrs TEXT NOT NULL, embed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS edges (
    src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL,
    session_id TEXT NOT NULL, weight REAL NOT NULL, turn_ids TEXT NOT NULL, attrs TEXT NOT NULL,
    PRIMARY KEY (src, dst, kind, label)
);
CREATE INDEX IF NOT EXISTS nodes_session ON nodes(session_id);
CREATE INDEX IF NOT EXISTS nodes_kind ON nodes(kind);
CREATE INDEX IF NOT EXISTS edges_session ON edges(session_id);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst);
"""


def _node_row(n: Node) -> tuple:
    return (n.id, n.kind.value, n.text, n.session_id, json.dumps(n.turn_ids), json.dumps(n.attrs), int(n.embed))


def _edge_row(e: Edge) -> tuple:
    return (e.src, e.dst, e.kind.value, e.label, e.session_id, float(e.weight), json.dumps(e.turn_ids), json.dumps(e.attrs))


def row_to_node(r: tuple) -> Node:
    return Node(id=r[0], kind=NodeKind(r[1]), text=r[2], session_id=r[3], turn_ids=json.loads(r[4]),
                attrs=json.loads(r[5]), embed=bool(r[6]))


def row_to_edge(r: tuple) -> Edge:
    return Edge(src=r[0], dst=r[1], kind=EdgeKind(r[2]), label=r[3], session_id=r[4], weight=r[5],
                turn_ids=json.loads(r[6]), attrs=json.loads(r[7]))


class _ReaderConnection(sqlite3.Connection):
    """A plain connection that can be weakly referenced (a thread's reader dies with it)."""


class GraphDB:
    def __init__(self, path: Path) -> None:
        create_private_file(path)  # 0600; SQLite gives -wal/-shm the same mode
        self.path = path
        self.conn = sqlite3.connect(str(path), timeout=60, check_same_thread=False, isolation_level=None)
        enable_wal(self.conn, timeout=60)
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=OFF")
        self.conn.executescript(SCHEMA)
        self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('generation', '0')")
        self._local = threading.local()
        self._readers: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()  # closed by ``close``

    @property
    def reader(self) -> sqlite3.Connection:
        """This thread's read connection (autocommit: each statement sees the latest commit)."""
        c = getattr(self._local, "conn", None)
        if c is None:
            c = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False, isolation_level=None,
                                factory=_ReaderConnection)
            c.execute("PRAGMA query_only=ON")
            self._local.conn = c
            self._readers.add(c)
        return c

    def read_graph(self) -> tuple[int, list[tuple], list[tuple], list[dict]]:
        """``(generation, node rows, edge rows, committed sessions)`` from one read transaction."""
        c = self.reader
        c.execute("BEGIN")
        try:
            return self.generation(), self.raw_nodes(), self.raw_edges(), self.sessions("committed")
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
            self.conn.execute("ROLLBACK")
            raise

    def generation(self) -> int:
        return int(self.reader.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])

    def get_meta(self, key: str) -> str | None:
        r = self.reader.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return r[0] if r else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as c:
            c.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- reads ---------------------------------------------------------------------------
    def sessions(self, status: str | None = "committed") -> list[dict]:
        q = "SELECT id, date, status, seq, participants, n_turns, content_hash, builder, ingested_at, info FROM sessions"
        rows = self.reader.execute(q + (" WHERE status=?" if status else "") + " ORDER BY seq", (status,) if status else ())
        keys = ("id", "date", "status", "seq", "participants", "n_turns", "content_hash", "builder", "ingested_at", "info")
        out = []
        for r in rows:
            d = dict(zip(keys, r))
            d["participants"] = json.loads(d["participants"])
            d["info"] = json.loads(d["info"])
            out.append(d)
        return out

    def node_ids(self, ids: Iterable[str]) -> set[str]:
        ids = list(ids)
        found: set[str] = set()
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            q = f"SELECT id FROM nodes WHERE id IN ({','.join('?' * len(chunk))})"
            found.update(r[0] for r in self.reader.execute(q, chunk))
        return found

    def nodes(self, where: str = "", params: tuple = ()) -> list[Node]:
        q = "SELECT id, kind, text, session_id, turn_ids, attrs, embed FROM nodes " + where
        return [row_to_node(r) for r in self.reader.execute(q, params)]

    def edges(self, where: str = "", params: tuple = ()) -> list[Edge]:
        q = "SELECT src, dst, kind, label, session_id, weight, turn_ids, attrs FROM edges " + where
        return [row_to_edge(r) for r in self.reader.execute(q, params)]

    def raw_nodes(self) -> list[tuple]:
        return self.reader.execute("SELECT id, kind, text, session_id, turn_ids, attrs, embed FROM nodes ORDER BY rowid").fetchall()

    def raw_edges(self) -> list[tuple]:
        return self.reader.execute("SELECT src, dst, kind, label, session_id, weight, turn_ids, attrs FROM edges ORDER BY rowid").fetchall()

    def counts(self) -> tuple[dict[str, int], dict[str, int]]:
        n = dict(self.reader.execute("SELECT kind, COUNT(*) FROM nodes GROUP BY kind").fetchall())
        e = dict(self.reader.execute("SELECT kind, COUNT(*) FROM edges GROUP BY kind").fetchall())
        return n, e

    # -- writes (inside ``transaction``) ------------------------------------------------
    @staticmethod
    def insert_nodes(c: sqlite3.Connection, nodes: Iterable[Node], replace: bool = False) -> None:
        # New rows never overwrite: an existing node keeps its owner (first session wins).
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        c.executemany(f"{verb} INTO nodes VALUES (?,?,?,?,?,?,?)", [_node_row(n) for n in nodes])

    @staticmethod
    def insert_edges(c: sqlite3.Connection, edges: Iterable[Edge], replace: bool = False) -> None:
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        c.executemany(f"{verb} INTO edges VALUES (?,?,?,?,?,?,?,?)", [_edge_row(e) for e in edges])

    def close(self) -> None:
        for c in list(self._readers):
            c.close()
        self.conn.close()
