"""The PostgreSQL graph schema, its version, and the process's connection pools.

Every table holds every namespace of every store; the first two columns of every key are
``(store_id, namespace)``, so every statement of ``storage.pg_graph`` is scoped by them and
served by an index. Text columns use the ``"C"`` collation: ids compare and sort byte-wise,
as in SQLite, so both stores order rows (and pick "the first owner") the same way.

``mg_schema`` records the version. ``migrate`` brings an older database up, one version at a
time under a transaction-level advisory lock (workers starting together migrate once); a
database written by a newer memgraph-agents is refused with a clear error. To change the
schema: add ``MIGRATIONS[SCHEMA_VERSION + 1]`` (statements from the previous version) and
bump ``SCHEMA_VERSION``.
"""

from __future__ import annotations

import logging
import threading
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from memgraph_agents.errors import StorageError

_T = 'TEXT COLLATE "C" NOT NULL'
_SCOPE = f"store_id {_T}, namespace {_T}"

SCHEMA_VERSION = 4
MIGRATIONS: dict[int, list[str]] = {
    1: [
        f"CREATE TABLE mg_meta ({_SCOPE}, key {_T}, value TEXT NOT NULL, PRIMARY KEY (store_id, namespace, key))",
        f"""CREATE TABLE mg_sessions ({_SCOPE}, id {_T}, date {_T}, status {_T}, seq INTEGER NOT NULL,
            participants TEXT NOT NULL, n_turns INTEGER NOT NULL, content_hash {_T}, builder {_T},
            ingested_at {_T}, info TEXT NOT NULL DEFAULT '{{}}', PRIMARY KEY (store_id, namespace, id))""",
        # ``rid``: insertion order, as SQLite's rowid (snapshots read rows in that order).
        f"""CREATE TABLE mg_nodes ({_SCOPE}, id {_T}, kind {_T}, text TEXT NOT NULL, session_id {_T},
            turn_ids TEXT NOT NULL, attrs TEXT NOT NULL, embed INTEGER NOT NULL, rid BIGSERIAL,
            PRIMARY KEY (store_id, namespace, id))""",
        f"""CREATE TABLE mg_edges ({_SCOPE}, src {_T}, dst {_T}, kind {_T}, label {_T}, session_id {_T},
            weight DOUBLE PRECISION NOT NULL, turn_ids TEXT NOT NULL, attrs TEXT NOT NULL, rid BIGSERIAL,
            PRIMARY KEY (store_id, namespace, src, dst, kind, label, session_id))""",
        f"""CREATE TABLE mg_node_owners ({_SCOPE}, node_id {_T}, session_id {_T},
            PRIMARY KEY (store_id, namespace, node_id, session_id))""",
        f"""CREATE TABLE mg_turns ({_SCOPE}, session_id {_T}, idx INTEGER NOT NULL, turn_id {_T}, digest {_T},
            data TEXT NOT NULL, PRIMARY KEY (store_id, namespace, session_id, idx))""",
        f"""CREATE TABLE mg_writes ({_SCOPE}, session_id {_T}, kind {_T}, started_at {_T},
            PRIMARY KEY (store_id, namespace, session_id))""",
        f"CREATE TABLE mg_vector_garbage ({_SCOPE}, id {_T}, PRIMARY KEY (store_id, namespace, id))",
        "CREATE INDEX mg_nodes_order ON mg_nodes (store_id, namespace, rid)",
        "CREATE INDEX mg_nodes_session ON mg_nodes (store_id, namespace, session_id)",
        "CREATE INDEX mg_edges_order ON mg_edges (store_id, namespace, rid)",
        "CREATE INDEX mg_edges_session ON mg_edges (store_id, namespace, session_id)",
        "CREATE INDEX mg_edges_src ON mg_edges (store_id, namespace, src)",
        "CREATE INDEX mg_edges_dst ON mg_edges (store_id, namespace, dst)",
        "CREATE INDEX mg_owners_session ON mg_node_owners (store_id, namespace, session_id)",
    ],
    # Each embedded node's vector beside its row (``storage.vector_rows``); a namespace written
    # before it gets its vectors copied from Chroma once, by ``MemoryStore``.
    2: [
        f"""CREATE TABLE mg_node_vectors ({_SCOPE}, id {_T}, digest BYTEA NOT NULL, vec BYTEA NOT NULL,
            PRIMARY KEY (store_id, namespace, id))""",
    ],
    # The user's metadata of a session (apart from the builder's ``info``), and a note's texts
    # over time (``note_versions``: written in the commit that stores each version).
    3: [
        "ALTER TABLE mg_sessions ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}'",
        f"""CREATE TABLE mg_note_versions ({_SCOPE}, session_id {_T}, version INTEGER NOT NULL, at {_T},
            text TEXT NOT NULL, metadata TEXT NOT NULL, PRIMARY KEY (store_id, namespace, session_id, version))""",
    ],
    # Vectors found by the digest of their text: a build reuses the vector of a text the
    # namespace already stores (``EmbeddingModel``'s ``known_vectors``).
    4: ["CREATE INDEX mg_node_vectors_digest ON mg_node_vectors (store_id, namespace, digest)"],
}
TABLES = (
    "mg_edges",
    "mg_nodes",
    "mg_node_owners",
    "mg_turns",
    "mg_writes",
    "mg_vector_garbage",
    "mg_node_vectors",
    "mg_note_versions",
    "mg_sessions",
    "mg_meta",
)

# The pool logs each failed reconnection as a warning. An application that configures logging
# still gets them; without a handler they would reach stderr through logging's last resort and
# bury the one clear error of a server that is down (CLI: ``error: …``).
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())

_POOLS: dict[tuple[str, str], Any] = {}
_POOLS_LOCK = threading.Lock()
# Per process and database, shared by every namespace (ten thousand tenants, few connections).
POOL_MAX = {"query": 10, "writer": 16, "ingest": 16}
POOL_WAIT = 30.0  # seconds a call waits for a connection: rides out a server restart, then fails clearly


class SchemaVersionError(StorageError):
    """The database was written by a newer memgraph-agents."""


class GraphServerError(StorageError):
    """The PostgreSQL server cannot be reached, or a statement failed on it."""


def pool_for(url: str, purpose: str = "query") -> Any:
    """The process's connection pool for ``url`` (schema migrated on first use).

    Three pools per database, so that holding a lock never starves what the holder needs
    next: ``query`` (reads and write transactions), ``writer`` (connections that hold a
    writer lock) and ``ingest`` (ingest locks: an ingest holds one, then takes a writer lock,
    then a query connection). Lock pools keep no idle connection.
    ``check``: a connection is tested on checkout and replaced if the server dropped it (a
    restart), so the first query after a restart does not fail on a stale connection."""
    try:
        # lazy: psycopg, the [postgres] extra: a missing one is a ConfigError
        from psycopg_pool import ConnectionPool
    except ImportError as e:  # the optional dependency (README "Running on servers")
        raise StorageError(
            f"MEMGRAPH_GRAPH_URL is a PostgreSQL URL but psycopg is not installed ({e}): "
            'pip install "memgraph-agents[postgres]"'
        ) from e

    if purpose != "query":
        pool_for(url)  # the query pool first: it migrates the schema
    with _POOLS_LOCK:
        pool = _POOLS.get((url, purpose))
        if pool is None:
            if purpose == "query":
                _probe(url)
            pool = ConnectionPool(
                url,
                min_size=1 if purpose == "query" else 0,
                max_size=POOL_MAX[purpose],
                open=False,
                timeout=POOL_WAIT,
                check=ConnectionPool.check_connection,
                name=f"memgraph-{purpose}",
            )
            try:
                pool.open(wait=purpose == "query", timeout=15)
                if purpose == "query":
                    migrate(pool)
            except Exception as e:
                pool.close()
                if isinstance(e, StorageError):
                    raise
                raise GraphServerError(f"cannot use the PostgreSQL graph store at {redact(url)}: {e}") from e
            _POOLS[(url, purpose)] = pool
        return pool


def _probe(url: str) -> None:
    """One direct connection first: a pool that cannot connect only says it timed out, this
    says why (refused, unknown host or database, authentication), at once."""
    # lazy: psycopg, the [postgres] extra
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=10).close()
    except psycopg.Error as e:
        reason = " ".join(str(e).split())[:300]
        raise GraphServerError(
            f"cannot connect to the PostgreSQL graph store at {redact(url)}: {reason} "
            "(is the server up, and MEMGRAPH_GRAPH_URL right?)"
        ) from e


def redact(url: str) -> str:
    """``url`` without its password (error messages end up in logs)."""

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def migrate(pool: Any) -> int:
    """Bring the schema to ``SCHEMA_VERSION``; returns the version found before."""
    with pool.connection() as c, c.transaction():
        c.execute("SELECT pg_advisory_xact_lock(hashtext('memgraph-schema'))")
        c.execute("CREATE TABLE IF NOT EXISTS mg_schema (version INTEGER NOT NULL)")
        row = c.execute("SELECT MAX(version) FROM mg_schema").fetchone()
        found = int(row[0]) if row and row[0] is not None else 0
        if found > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"the PostgreSQL graph schema is version {found}, newer than this memgraph-agents "
                f"(version {SCHEMA_VERSION}): upgrade memgraph-agents"
            )
        for v in range(found + 1, SCHEMA_VERSION + 1):
            for stmt in MIGRATIONS[v]:
                c.execute(stmt)
            c.execute("INSERT INTO mg_schema VALUES (%s)", (v,))
        return found


def close_pools(url: str | None = None) -> None:
    """Close this process's pools (of ``url`` only, if given): a server taken down for good
    (tests), whose pools would otherwise keep trying to reconnect."""
    with _POOLS_LOCK:
        keys = [k for k in _POOLS if url is None or k[0] == url]
        pools = [_POOLS.pop(k) for k in keys]
    for p in pools:
        p.close()
