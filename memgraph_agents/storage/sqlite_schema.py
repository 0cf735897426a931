"""The embedded graph store's SQLite schema (one file per namespace), its version and migrations.

``GraphDB`` creates or migrates a file on open, in one ``BEGIN IMMEDIATE`` transaction (one
process migrates; the others then see it done). ``storage.pg_schema`` is the PostgreSQL twin.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memgraph_agents.errors import StorageError

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, date TEXT NOT NULL, status TEXT NOT NULL, seq INTEGER NOT NULL,
    participants TEXT NOT NULL, n_turns INTEGER NOT NULL, content_hash TEXT NOT NULL,
    builder TEXT NOT NULL, ingested_at TEXT NOT NULL, info TEXT NOT NULL DEFAULT '{}',
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS nodes (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, text TEXT NOT NULL, session_id TEXT NOT NULL,
    turn_ids TEXT NOT NULL, attrs TEXT NOT NULL, embed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS edges (
    src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL,
    session_id TEXT NOT NULL, weight REAL NOT NULL, turn_ids TEXT NOT NULL, attrs TEXT NOT NULL,
    PRIMARY KEY (src, dst, kind, label, session_id)
);
CREATE TABLE IF NOT EXISTS node_owners (
    node_id TEXT NOT NULL, session_id TEXT NOT NULL, PRIMARY KEY (node_id, session_id)
);
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL, idx INTEGER NOT NULL, turn_id TEXT NOT NULL, digest TEXT NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (session_id, idx)
);
CREATE TABLE IF NOT EXISTS writes (session_id TEXT PRIMARY KEY, kind TEXT NOT NULL, started_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vector_garbage (id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS node_vectors (id TEXT PRIMARY KEY, digest BLOB NOT NULL, vec BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS note_versions (
    session_id TEXT NOT NULL, version INTEGER NOT NULL, at TEXT NOT NULL, text TEXT NOT NULL,
    metadata TEXT NOT NULL, PRIMARY KEY (session_id, version)
);
CREATE INDEX IF NOT EXISTS owners_session ON node_owners(session_id);
CREATE INDEX IF NOT EXISTS nodes_session ON nodes(session_id);
CREATE INDEX IF NOT EXISTS nodes_kind ON nodes(kind);
CREATE INDEX IF NOT EXISTS edges_session ON edges(session_id);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst);
CREATE INDEX IF NOT EXISTS node_vectors_digest ON node_vectors(digest);
"""
# Version 3 adds ``node_vectors`` (``storage.vector_rows``); ``CREATE TABLE IF NOT EXISTS`` above
# adds it to a version 2 file, whose vectors ``MemoryStore`` then copies from Chroma once.
# Version 4 adds the user's ``metadata`` to sessions (``ADD_METADATA`` on an older file: an
# existing table keeps its columns under ``CREATE TABLE IF NOT EXISTS``) and ``note_versions``,
# a note's texts over time (written in the commit that stores each version).
# Version 5 indexes ``node_vectors`` by text digest: a build finds the vector of a text the
# namespace already stores (``EmbeddingModel``'s ``known_vectors``), as the embedding cache did.
# Its rows may be float16 (``storage.vector_rows``); float32 rows of older versions still read.
SCHEMA_VERSION = "5"
ADD_METADATA = "ALTER TABLE sessions ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}'"

# Version 1 (no ownership table, edge keys without the session): rebuild the edge table with
# the session in its key and derive owners as deletion used to (a node's owner, plus every
# session with an edge to an argument it shares).
MIGRATE_1_TO_2 = """
CREATE TABLE edges_v2 (
    src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL,
    session_id TEXT NOT NULL, weight REAL NOT NULL, turn_ids TEXT NOT NULL, attrs TEXT NOT NULL,
    PRIMARY KEY (src, dst, kind, label, session_id)
);
INSERT INTO edges_v2 SELECT src, dst, kind, label, session_id, weight, turn_ids, attrs FROM edges ORDER BY rowid;
DROP TABLE edges;
ALTER TABLE edges_v2 RENAME TO edges;
CREATE INDEX IF NOT EXISTS edges_session ON edges(session_id);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst);
INSERT OR IGNORE INTO node_owners SELECT id, session_id FROM nodes WHERE session_id != '';
INSERT OR IGNORE INTO node_owners
    SELECT n.id, e.session_id FROM nodes n JOIN edges e ON (e.src = n.id OR e.dst = n.id)
    WHERE n.kind = 'argument' AND e.session_id != '';
"""


def create_or_migrate(c: sqlite3.Connection, path: Path) -> None:
    """Create the file's tables or migrate them to ``SCHEMA_VERSION`` (a newer file is refused)."""
    if schema_is_current(c):  # nothing to write: opening to read works on a full disk
        return
    c.execute("BEGIN IMMEDIATE")  # one process creates or migrates; the others then see it done
    try:
        legacy = c.execute("SELECT 1 FROM sqlite_master WHERE name='sessions'").fetchone() is not None
        version = None
        if legacy:
            r = c.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            version = r[0] if r else "1"
            if version.isdigit() and int(version) > int(SCHEMA_VERSION):
                raise StorageError(
                    f"{path} has graph schema version {version}, newer than this memgraph-agents "
                    f"(version {SCHEMA_VERSION}): upgrade memgraph-agents"
                )
        for stmt in SCHEMA.split(";"):
            if stmt.strip():
                c.execute(stmt)
        if version == "1":
            for stmt in MIGRATE_1_TO_2.split(";"):
                if stmt.strip():
                    c.execute(stmt)
        if "metadata" not in {r[1] for r in c.execute("PRAGMA table_info(sessions)")}:
            c.execute(ADD_METADATA)
        c.execute("INSERT OR IGNORE INTO meta VALUES ('generation', '0')")
        c.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        c.execute("COMMIT")
    except BaseException:
        if c.in_transaction:  # SQLite already rolled back after SQLITE_FULL: keep the real error
            c.execute("ROLLBACK")
        raise


def schema_is_current(c: sqlite3.Connection) -> bool:
    if c.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone() is None:
        return False
    r = c.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    return r is not None and r[0] == SCHEMA_VERSION
