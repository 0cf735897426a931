"""The embedded store's write transaction: ``GraphWrite`` (``storage.graph_store``) over SQLite.

One object per ``GraphDB.write()`` block, bound to the writer connection inside its
``BEGIN IMMEDIATE`` transaction. Row-level helpers are ``GraphDB``'s static methods (``ops``:
the class, passed in, not imported: no cycle), looked up at call time (tests wrap them to
count what a commit writes).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from memgraph_agents.model.graph import Edge, Node
from memgraph_agents.storage.session_write import session_row, session_update, version_row


class SqliteWriter:
    def __init__(self, c: sqlite3.Connection, ops: Any) -> None:
        self.c, self.ops = c, ops

    def insert_nodes(self, nodes: Iterable[Node], replace: bool = False) -> None:
        self.ops.insert_nodes(self.c, nodes, replace)

    def add_owner(self, node_ids: Iterable[str], session_id: str) -> None:
        self.ops.add_owner(self.c, node_ids, session_id)

    def add_owner_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """``(node id, session id)`` ownership rows as they are (a copy of another store's)."""
        self.c.executemany("INSERT OR IGNORE INTO node_owners VALUES (?, ?)", list(pairs))

    def insert_edges(self, edges: Iterable[Edge], replace: bool = False) -> None:
        self.ops.insert_edges(self.c, edges, replace)

    def drop_rows(
        self, session_id: str, node_ids: list[str] | None = None, keep: set[str] | frozenset[str] = frozenset()
    ) -> tuple[list[str], list[str]]:
        return self.ops.drop_rows(self.c, session_id, node_ids, keep)

    def drop_derived(self, kind: str, owner: str) -> None:
        """Namespace-level rows of ``kind`` (topics) and their edges, before they are rewritten."""
        self.c.execute(
            "DELETE FROM edges WHERE src IN (SELECT id FROM nodes WHERE kind=? AND session_id=?)", (kind, owner)
        )
        self.c.execute("DELETE FROM nodes WHERE kind=? AND session_id=?", (kind, owner))

    def write_turns(self, session_id: str, start: int, turns: list[tuple[str, str, dict]], replace: bool) -> None:
        self.ops.write_turns(self.c, session_id, start, turns, replace)

    def node_texts(self, ids: Iterable[str]) -> dict[str, tuple[str, str, bool]]:
        """As this transaction sees them (its own rows included)."""
        return self.ops.node_texts_in(self.c, ids)

    def begin_write(self, session_id: str, mode: str, now: str) -> None:
        self.c.execute("INSERT OR REPLACE INTO writes VALUES (?,?,?)", (session_id, mode, now))

    def end_write(self, session_id: str) -> None:
        self.c.execute("DELETE FROM writes WHERE session_id=?", (session_id,))

    def add_pending_session(self, v: dict[str, Any]) -> None:
        # The next number, unless given (a copy keeps the original's).
        seq = v.get("seq") or int(self.c.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM sessions").fetchone()[0])
        self.c.execute("INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?)", session_row(v, "pending", seq))

    def commit_session_row(self, v: dict[str, Any]) -> None:
        self.c.execute(
            "UPDATE sessions SET date=?, status='committed', participants=?, n_turns=?, content_hash=?, "
            "builder=?, info=?, metadata=? WHERE id=?",
            (*session_update(v), v["id"]),
        )

    def set_session_status(self, session_id: str, status: str) -> None:
        self.c.execute("UPDATE sessions SET status=? WHERE id=?", (status, session_id))

    def remove_session(self, session_id: str) -> None:
        """The session's row, turns, versions and unfinished-write mark (its graph rows go by ``drop_rows``)."""
        self.c.execute("DELETE FROM turns WHERE session_id=?", (session_id,))
        self.c.execute("DELETE FROM note_versions WHERE session_id=?", (session_id,))
        self.c.execute("DELETE FROM writes WHERE session_id=?", (session_id,))
        self.c.execute("DELETE FROM sessions WHERE id=?", (session_id,))

    def add_version(self, session_id: str, text: str, metadata: dict[str, Any], at: str) -> None:
        """The next version of a note, unless it equals the latest (a rebuild changes nothing)."""
        row = self.c.execute(
            "SELECT version, text, metadata FROM note_versions WHERE session_id=? ORDER BY version DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        data = version_row(text, metadata)
        if row is None or (row[1], row[2]) != data:
            n = row[0] + 1 if row else 1
            self.c.execute("INSERT INTO note_versions VALUES (?,?,?,?,?)", (session_id, n, at, *data))

    def add_garbage(self, ids: Iterable[str]) -> None:
        self.c.executemany("INSERT OR IGNORE INTO vector_garbage VALUES (?)", [(g,) for g in ids])

    def remove_garbage(self, ids: Iterable[str]) -> None:
        self.c.executemany("DELETE FROM vector_garbage WHERE id=?", [(i,) for i in ids])

    def put_vectors(self, rows: Iterable[tuple[str, bytes, bytes]]) -> None:
        """``(node id, text digest, float32 bytes)`` rows (``storage.vector_rows``), upserted."""
        self.c.executemany("INSERT OR REPLACE INTO node_vectors VALUES (?, ?, ?)", list(rows))

    def drop_vectors(self, ids: Iterable[str]) -> None:
        self.c.executemany("DELETE FROM node_vectors WHERE id=?", [(i,) for i in ids])

    def set_meta(self, key: str, value: str) -> None:
        self.c.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
