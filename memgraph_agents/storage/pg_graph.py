"""Graph rows in PostgreSQL (``MEMGRAPH_GRAPH_URL=postgresql://…``): the server twin of
``graph_db.GraphDB`` behind the same interface (``storage.graph_store``).

Scope: a memory is ``(store id, namespace)`` (``MEMGRAPH_STORE_ID``: workers that set the same
one share it; another store id in the same database is another memory). Every statement binds
both (``self.scope``), reads included: no query can see another namespace's rows.

Connections: one pool per database for the whole process (``pg_schema.pool_for``), not per
namespace. Reads take a pooled connection per call; ``read_graph`` reads in one
``REPEATABLE READ`` transaction, so a snapshot is one committed state. A write is one
transaction (``write()``) that bumps the namespace's generation last.

Locks: the writer lock and the ingest lock's remote half are session-level advisory locks,
each on a pooled connection it keeps while held: one writer per namespace across machines,
and a worker that dies (or a server restart) releases them with its connection. A write
checks that its writer lock's connection is still alive first: after a server restart the
lock may be gone, and the write fails (to be retried) instead of racing another writer.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from memgraph_agents.model.graph import Edge
from memgraph_agents.storage.pg_schema import TABLES, GraphServerError, pool_for, redact
from memgraph_agents.storage.pg_writer import PgWriter
from memgraph_agents.storage.session_write import SESSION_KEYS, session_dict, version_dict
from memgraph_agents.storage.sqlite_rows import row_to_edge

NODE_COLS = "id, kind, text, session_id, turn_ids, attrs, embed"
EDGE_COLS = "src, dst, kind, label, session_id, weight, turn_ids, attrs"
SCOPED = "store_id=%s AND namespace=%s"


def _psycopg_errors() -> tuple[type[BaseException], ...]:
    # lazy: psycopg, the [postgres] extra
    import psycopg

    return (psycopg.OperationalError, psycopg.InterfaceError)


class _AdvisoryLock:
    """A session-level advisory lock on a pooled connection kept while held (``purpose``: the
    pool it takes that connection from).

    As a context manager it is the writer lock (waits; re-entrant per thread, as ``FileLock``);
    ``try_acquire``/``release`` make it the ingest lock's remote half (``locks.RemoteLock``)."""

    def __init__(self, db: PgGraphDB, kind: str, purpose: str) -> None:
        self.db, self.keys = db, (kind, f"{db.store_id}/{db.namespace}")
        self.pool = pool_for(db.url, purpose)
        self._local = threading.local()
        self._conn: Any = None  # the try-lock's connection (one holder: the ingest lock's mutex)

    def _take(self, sql: str) -> Any:
        # lazy: psycopg, the [postgres] extra
        from psycopg_pool import PoolTimeout

        pool = self.pool
        try:  # waits for a connection (a server restart), then fails clearly (a server gone)
            conn = pool.getconn()
        except PoolTimeout as e:
            raise self.db.server_error(e) from e
        try:
            got = conn.execute(f"SELECT {sql}(hashtext(%s), hashtext(%s))", self.keys).fetchone()[0]
            conn.commit()  # a session-level lock outlives the transaction
        except BaseException as e:
            pool.putconn(conn)
            if isinstance(e, _psycopg_errors()):
                raise self.db.server_error(e) from e
            raise
        if got is False:
            pool.putconn(conn)
            return None
        return conn

    def _give_back(self, conn: Any) -> None:
        try:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s), hashtext(%s))", self.keys)
            conn.commit()
        except Exception:  # the server went away: the lock went with the connection
            conn.close()
        finally:
            self.pool.putconn(conn)

    def __enter__(self) -> _AdvisoryLock:
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            self._local.conn = self._take("pg_advisory_lock")
        self._local.depth = depth + 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._local.depth -= 1
        if self._local.depth == 0:
            conn, self._local.conn = self._local.conn, None
            self._give_back(conn)

    def check_held(self) -> None:
        """If this thread holds the lock, prove its connection (hence the lock) is alive."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            return
        try:
            conn.execute("SELECT 1").fetchone()
            conn.commit()
        except Exception as e:
            raise GraphServerError(
                "lost the namespace's writer lock (the PostgreSQL server restarted?): the write is abandoned"
            ) from e

    def try_acquire(self) -> bool:
        conn = self._take("pg_try_advisory_lock")
        if conn is None:
            return False
        self._conn = conn
        return True

    def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._give_back(conn)


class PgGraphDB:
    """One namespace of one store in a PostgreSQL database (see the module docstring)."""

    def __init__(self, url: str, store_id: str, namespace: str) -> None:
        self.url, self.store_id, self.namespace = url, store_id, namespace
        self.scope = (store_id, namespace)
        self.pool = pool_for(url)
        self._writer = _AdvisoryLock(self, "memgraph-writer", "writer")
        with self._conn() as c:  # the namespace exists from here on (``exists``)
            c.execute("INSERT INTO mg_meta VALUES (%s, %s, 'generation', '0') ON CONFLICT DO NOTHING", self.scope)

    # -- connections -----------------------------------------------------------------------
    def server_error(self, e: BaseException) -> GraphServerError:
        return _server_error(self.url, e)

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        """A pooled connection; its transaction commits on exit (rolls back on an error)."""
        try:
            with self.pool.connection() as c:
                yield c
        except _psycopg_errors() as e:
            raise self.server_error(e) from e

    def _q(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        """Run ``sql`` whose first two placeholders are the scope."""
        with self._conn() as c:
            cur = c.execute(sql, (*self.scope, *params))
            return cur.fetchall() if cur.description else []

    @staticmethod
    def exists(url: str, store_id: str, namespace: str) -> bool:
        return PgGraphDB.read_meta(url, store_id, namespace, "generation") is not None

    @staticmethod
    def read_meta(url: str, store_id: str, namespace: str, key: str) -> str | None:
        q = f"SELECT value FROM mg_meta WHERE {SCOPED} AND key=%s"
        r = _query(url, q, (store_id, namespace, key))
        return r[0][0] if r else None

    @staticmethod
    def namespaces(url: str, store_id: str) -> list[str]:
        q = "SELECT namespace FROM mg_meta WHERE store_id=%s AND key='generation' ORDER BY namespace"
        return [r[0] for r in _query(url, q, (store_id,))]

    # -- writes ----------------------------------------------------------------------------
    @contextmanager
    def write(self) -> Iterator[PgWriter]:
        """One atomic write; bumps the generation so every reader reloads."""
        self._writer.check_held()
        with self._conn() as c, c.transaction():
            yield PgWriter(c, self.scope)
            c.execute(
                f"UPDATE mg_meta SET value = (value::bigint + 1)::text WHERE {SCOPED} AND key='generation'", self.scope
            )

    def writer_lock(self) -> _AdvisoryLock:
        return self._writer

    def remote_ingest_lock(self) -> _AdvisoryLock:
        return _AdvisoryLock(self, "memgraph-ingest", "ingest")

    def set_meta(self, key: str, value: str) -> None:
        with self.write() as t:
            t.set_meta(key, value)

    def init_meta(self, key: str, value: str) -> str:
        with self.write() as t:
            return t.init_meta(key, value)

    def drop(self) -> None:
        """Every row of this namespace (``memgraph forget --namespace``), in one transaction."""
        with self._conn() as c, c.transaction():
            for table in TABLES:
                c.execute(f"DELETE FROM {table} WHERE {SCOPED}", self.scope)

    # -- reads -----------------------------------------------------------------------------
    def generation(self) -> int:
        r = self._q(f"SELECT value FROM mg_meta WHERE {SCOPED} AND key='generation'")
        return int(r[0][0]) if r else 0

    def get_meta(self, key: str) -> str | None:
        r = self._q(f"SELECT value FROM mg_meta WHERE {SCOPED} AND key=%s", (key,))
        return r[0][0] if r else None

    def read_graph(self) -> tuple[int, list[tuple], list[tuple], list[dict]]:
        """``(generation, node rows, edge rows, committed sessions)`` from one database snapshot."""
        with self._conn() as c, c.transaction():
            c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            gen = c.execute(f"SELECT value FROM mg_meta WHERE {SCOPED} AND key='generation'", self.scope).fetchone()
            nodes = c.execute(f"SELECT {NODE_COLS} FROM mg_nodes WHERE {SCOPED} ORDER BY rid", self.scope).fetchall()
            edges = c.execute(f"SELECT {EDGE_COLS} FROM mg_edges WHERE {SCOPED} ORDER BY rid", self.scope).fetchall()
            q = f"SELECT {', '.join(SESSION_KEYS)} FROM mg_sessions WHERE {SCOPED} AND status='committed' ORDER BY seq"
            sessions = _session_dicts(c.execute(q, self.scope).fetchall())
        return int(gen[0]) if gen else 0, nodes, edges, sessions

    def sessions(self, status: str | None = "committed") -> list[dict]:
        q = f"SELECT {', '.join(SESSION_KEYS)} FROM mg_sessions WHERE {SCOPED}"
        if status:
            return _session_dicts(self._q(q + " AND status=%s ORDER BY seq", (status,)))
        return _session_dicts(self._q(q + " ORDER BY seq"))

    def session(self, session_id: str, status: str | None = "committed") -> dict | None:
        q = f"SELECT {', '.join(SESSION_KEYS)} FROM mg_sessions WHERE {SCOPED} AND id=%s"
        rows = self._q(q + " AND status=%s", (session_id, status)) if status else self._q(q, (session_id,))
        out = _session_dicts(rows)
        return out[0] if out else None

    def node_ids(self, ids: Iterable[str]) -> set[str]:
        return {r[0] for r in self._q(f"SELECT id FROM mg_nodes WHERE {SCOPED} AND id = ANY(%s)", (list(ids),))}

    def node_kinds(self, ids: Iterable[str]) -> dict[str, str]:
        return dict(self._q(f"SELECT id, kind FROM mg_nodes WHERE {SCOPED} AND id = ANY(%s)", (list(ids),)))

    def node_texts(self, ids: Iterable[str]) -> dict[str, tuple[str, str, bool]]:
        rows = self._q(
            f"SELECT id, text, session_id, embed FROM mg_nodes WHERE {SCOPED} AND id = ANY(%s)", (list(ids),)
        )
        return {r[0]: (r[1], r[2], bool(r[3])) for r in rows}

    def raw_nodes(self) -> list[tuple]:
        return self._q(f"SELECT {NODE_COLS} FROM mg_nodes WHERE {SCOPED} ORDER BY rid")

    def raw_edges(self) -> list[tuple]:
        return self._q(f"SELECT {EDGE_COLS} FROM mg_edges WHERE {SCOPED} ORDER BY rid")

    def edges(self) -> list[Edge]:
        return [row_to_edge(r) for r in self.raw_edges()]

    def raw_owners(self) -> list[tuple[str, str]]:
        q = f"SELECT node_id, session_id FROM mg_node_owners WHERE {SCOPED} ORDER BY 1, 2"
        return [(r[0], r[1]) for r in self._q(q)]

    def all_meta(self) -> dict[str, str]:
        return dict(self._q(f"SELECT key, value FROM mg_meta WHERE {SCOPED}"))

    def session_turns(self, session_id: str) -> list[tuple[str, str, dict]]:
        q = f"SELECT turn_id, digest, data FROM mg_turns WHERE {SCOPED} AND session_id=%s ORDER BY idx"
        return [(r[0], r[1], json.loads(r[2])) for r in self._q(q, (session_id,))]

    def session_digests(self, session_id: str) -> list[str]:
        q = f"SELECT digest FROM mg_turns WHERE {SCOPED} AND session_id=%s ORDER BY idx"
        return [r[0] for r in self._q(q, (session_id,))]

    def note_versions(self, session_id: str) -> list[dict]:
        """A note's versions, oldest first (``version``, ``at``, ``text``, ``metadata``)."""
        q = f"SELECT version, at, text, metadata FROM mg_note_versions WHERE {SCOPED} AND session_id=%s ORDER BY version"
        return [version_dict(r) for r in self._q(q, (session_id,))]

    def pending_writes(self) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self._q(f"SELECT session_id, kind FROM mg_writes WHERE {SCOPED} ORDER BY 1")]

    def vector_garbage(self) -> list[str]:
        return [r[0] for r in self._q(f"SELECT id FROM mg_vector_garbage WHERE {SCOPED} ORDER BY id")]

    def node_vectors(self, ids: Iterable[str]) -> list[tuple[str, bytes, bytes]]:
        """``(id, text digest, encoded vector)`` of the stored vectors among ``ids``."""
        q = f"SELECT id, digest, vec FROM mg_node_vectors WHERE {SCOPED} AND id = ANY(%s)"
        return [(r[0], bytes(r[1]), bytes(r[2])) for r in self._q(q, (list(ids),))]

    def vectors_by_digest(self, digests: Iterable[bytes]) -> list[tuple[bytes, bytes]]:
        """``(text digest, encoded vector)`` of stored vectors whose text has one of ``digests``."""
        q = f"SELECT digest, vec FROM mg_node_vectors WHERE {SCOPED} AND digest = ANY(%s)"
        return [(bytes(r[0]), bytes(r[1])) for r in self._q(q, (list(digests),))]

    def owned_node_ids(self, session_id: str) -> list[str]:
        q = f"SELECT node_id FROM mg_node_owners WHERE {SCOPED} AND session_id=%s ORDER BY node_id"
        return [r[0] for r in self._q(q, (session_id,))]

    def counts(self) -> tuple[dict[str, int], dict[str, int]]:
        n = dict(self._q(f"SELECT kind, COUNT(*) FROM mg_nodes WHERE {SCOPED} GROUP BY kind"))
        e = dict(self._q(f"SELECT kind, COUNT(*) FROM mg_edges WHERE {SCOPED} GROUP BY kind"))
        return n, e

    def stored_bytes(self) -> int:
        """Bytes of the namespace's rows in the database (``pg_column_size``; indexes not counted)."""
        return sum(
            int(self._q(f"SELECT COALESCE(SUM(pg_column_size(t.*)), 0) FROM {table} t WHERE {SCOPED}")[0][0])
            for table in TABLES
        )

    def embedded_count(self) -> int:
        return int(self._q(f"SELECT COUNT(*) FROM mg_nodes WHERE {SCOPED} AND embed=1")[0][0])

    def embedded_bound(self) -> int:
        """An upper bound of ``embedded_count``: here the count itself."""
        return self.embedded_count()

    def close(self) -> None:
        """Nothing per namespace to close: connections belong to the process's pool."""


def _query(url: str, sql: str, params: tuple) -> list[tuple]:
    """A read outside any namespace's store (existence, listing), errors said as for a store."""
    try:
        with pool_for(url).connection() as c:
            return c.execute(sql, params).fetchall()
    except _psycopg_errors() as e:
        raise _server_error(url, e) from e


def _server_error(url: str, e: BaseException) -> GraphServerError:
    return GraphServerError(
        f"the PostgreSQL graph store at {redact(url)} failed ({type(e).__name__}: "
        f"{' '.join(str(e).split())[:300]}): is the server up? (MEMGRAPH_GRAPH_URL)"
    )


def _session_dicts(rows: list[tuple]) -> list[dict]:
    return [session_dict(r) for r in rows]
