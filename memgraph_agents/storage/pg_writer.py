"""The PostgreSQL store's write transaction: ``GraphWrite`` (``storage.graph_store``) over one
psycopg connection inside ``PgGraphDB.write()``.

Statement for statement the twin of the SQLite store's write helpers (``storage.sqlite_writer``), with
the scope ``(store_id, namespace)`` bound in every one. SQLite's ``INSERT OR REPLACE`` of an
edge (the row is deleted and inserted again, so it moves to the end of the insertion order)
is an upsert that also takes a new ``rid``; a node upsert keeps its ``rid`` (SQLite's keeps
the rowid); ``INSERT OR IGNORE`` is ``ON CONFLICT DO NOTHING``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from memgraph_agents.model.graph import Edge, Node
from memgraph_agents.storage.session_write import session_row, session_update, version_row
from memgraph_agents.storage.sqlite_rows import edge_row, node_row

S = "store_id=%s AND namespace=%s"
_NODE_INSERT = (
    "INSERT INTO mg_nodes (store_id, namespace, id, kind, text, session_id, turn_ids, attrs, embed) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (store_id, namespace, id) DO UPDATE SET "
    "kind=EXCLUDED.kind, text=EXCLUDED.text, turn_ids=EXCLUDED.turn_ids, attrs=EXCLUDED.attrs, embed=EXCLUDED.embed"
)
_EDGE_INSERT = (
    "INSERT INTO mg_edges (store_id, namespace, src, dst, kind, label, session_id, weight, turn_ids, attrs) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (store_id, namespace, src, dst, kind, label, session_id) "
)


class PgWriter:
    def __init__(self, c: Any, scope: tuple[str, str]) -> None:
        self.c, self.s = c, scope

    def _many(self, sql: str, rows: list[tuple]) -> None:
        if rows:
            with self.c.cursor() as cur:
                cur.executemany(sql, rows)

    def _ids(self, sql: str, params: tuple = ()) -> list[str]:
        return [r[0] for r in self.c.execute(sql, (*self.s, *params)).fetchall()]

    def insert_nodes(self, nodes: Iterable[Node], replace: bool = False) -> None:
        """As ``sqlite_writer.insert_nodes``: an existing node is updated only by its primary owner;
        ``replace`` overwrites it (in place: it keeps its ``rid``, as SQLite keeps the rowid)."""
        nodes = list(nodes)
        if replace:
            sql = _NODE_INSERT + ", session_id=EXCLUDED.session_id"
        else:
            sql = _NODE_INSERT + " WHERE mg_nodes.session_id = EXCLUDED.session_id"
        self._many(sql, [(*self.s, *node_row(n)) for n in nodes])
        self._many(
            "INSERT INTO mg_node_owners VALUES (%s,%s,%s,%s) ON CONFLICT DO NOTHING",
            [(*self.s, n.id, n.session_id) for n in nodes if n.session_id],
        )

    def add_owner(self, node_ids: Iterable[str], session_id: str) -> None:
        self.c.execute(
            "INSERT INTO mg_node_owners SELECT store_id, namespace, id, %s FROM mg_nodes "
            f"WHERE {S} AND id = ANY(%s) AND kind='argument' ON CONFLICT DO NOTHING",
            (session_id, *self.s, list(node_ids)),
        )

    def add_owner_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """``(node id, session id)`` ownership rows as they are (a copy of another store's)."""
        self._many(
            "INSERT INTO mg_node_owners VALUES (%s,%s,%s,%s) ON CONFLICT DO NOTHING",
            [(*self.s, n, s) for n, s in pairs],
        )

    def insert_edges(self, edges: Iterable[Edge], replace: bool = False) -> None:
        if replace:
            sql = _EDGE_INSERT + (
                "DO UPDATE SET weight=EXCLUDED.weight, turn_ids=EXCLUDED.turn_ids, attrs=EXCLUDED.attrs, "
                "rid=nextval(pg_get_serial_sequence('mg_edges', 'rid'))"
            )
        else:
            sql = _EDGE_INSERT + "DO NOTHING"
        self._many(sql, [(*self.s, *edge_row(e)) for e in edges])

    def drop_rows(
        self, session_id: str, node_ids: list[str] | None = None, keep: set[str] | frozenset[str] = frozenset()
    ) -> tuple[list[str], list[str]]:
        """As ``sqlite_writer.drop_rows`` (same rules, same results)."""
        if node_ids is None:
            candidates = self._ids(f"SELECT node_id FROM mg_node_owners WHERE {S} AND session_id=%s", (session_id,))
            self.c.execute(f"DELETE FROM mg_edges WHERE {S} AND session_id=%s", (*self.s, session_id))
            self.c.execute(f"DELETE FROM mg_node_owners WHERE {S} AND session_id=%s", (*self.s, session_id))
        else:
            candidates = list(node_ids)
            self.c.execute(
                f"DELETE FROM mg_node_owners WHERE {S} AND session_id=%s AND node_id = ANY(%s)",
                (*self.s, session_id, candidates),
            )
        alive = set(
            self._ids(f"SELECT DISTINCT node_id FROM mg_node_owners WHERE {S} AND node_id = ANY(%s)", (candidates,))
        )
        doomed = {n for n in candidates if n not in alive and n not in keep}
        self._generated_from(doomed)
        gone = sorted(doomed)
        embedded = self._ids(f"SELECT id FROM mg_nodes WHERE {S} AND embed=1 AND id = ANY(%s) ORDER BY id", (gone,))
        p = (*self.s, gone)
        self.c.execute(f"DELETE FROM mg_edges WHERE {S} AND (src = ANY(%s) OR dst = ANY(%s))", (*p, gone))
        self.c.execute(f"DELETE FROM mg_nodes WHERE {S} AND id = ANY(%s)", p)
        self.c.execute(f"DELETE FROM mg_node_owners WHERE {S} AND node_id = ANY(%s)", p)
        # A surviving node whose primary owner went passes to its first remaining owner (a node
        # the session still states keeps it: an append that drops one event re-owns nothing else).
        self.c.execute(
            "UPDATE mg_nodes n SET session_id = (SELECT MIN(o.session_id) FROM mg_node_owners o "
            "WHERE o.store_id = n.store_id AND o.namespace = n.namespace AND o.node_id = n.id) "
            "WHERE n.store_id=%s AND n.namespace=%s AND n.session_id=%s AND EXISTS (SELECT 1 FROM mg_node_owners o "
            "WHERE o.store_id = n.store_id AND o.namespace = n.namespace AND o.node_id = n.id) "
            "AND NOT EXISTS (SELECT 1 FROM mg_node_owners o WHERE o.store_id = n.store_id "
            "AND o.namespace = n.namespace AND o.node_id = n.id AND o.session_id = %s)",
            (*self.s, session_id, session_id),
        )
        # Topics whose every member went away go too.
        self.c.execute(
            f"DELETE FROM mg_nodes WHERE {S} AND kind='topic' AND session_id='' AND id NOT IN "
            f"(SELECT src FROM mg_edges WHERE {S} AND kind='member')",
            (*self.s, *self.s),
        )
        return gone, embedded

    def _generated_from(self, doomed: set[str]) -> None:
        """Adds to ``doomed`` the generated nodes (``derived`` edges) built from it, transitively."""
        frontier = sorted(doomed)
        while frontier:
            found = self._ids(
                f"SELECT DISTINCT src FROM mg_edges WHERE {S} AND kind='derived' AND dst = ANY(%s)", (frontier,)
            )
            frontier = [s for s in found if s not in doomed]
            doomed.update(frontier)

    def drop_derived(self, kind: str, owner: str) -> None:
        self.c.execute(
            f"DELETE FROM mg_edges WHERE {S} AND src IN (SELECT id FROM mg_nodes WHERE {S} AND kind=%s AND session_id=%s)",
            (*self.s, *self.s, kind, owner),
        )
        self.c.execute(f"DELETE FROM mg_nodes WHERE {S} AND kind=%s AND session_id=%s", (*self.s, kind, owner))

    def write_turns(self, session_id: str, start: int, turns: list[tuple[str, str, dict]], replace: bool) -> None:
        if replace:
            self.c.execute(f"DELETE FROM mg_turns WHERE {S} AND session_id=%s", (*self.s, session_id))
        self._many(
            "INSERT INTO mg_turns VALUES (%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (store_id, namespace, session_id, idx) "
            "DO UPDATE SET turn_id=EXCLUDED.turn_id, digest=EXCLUDED.digest, data=EXCLUDED.data",
            [(*self.s, session_id, start + i, t, d, json.dumps(data)) for i, (t, d, data) in enumerate(turns)],
        )

    def node_texts(self, ids: Iterable[str]) -> dict[str, tuple[str, str, bool]]:
        rows = self.c.execute(
            f"SELECT id, text, session_id, embed FROM mg_nodes WHERE {S} AND id = ANY(%s)", (*self.s, list(ids))
        ).fetchall()
        return {r[0]: (r[1], r[2], bool(r[3])) for r in rows}

    def begin_write(self, session_id: str, mode: str, now: str) -> None:
        self.c.execute(
            "INSERT INTO mg_writes VALUES (%s,%s,%s,%s,%s) ON CONFLICT (store_id, namespace, session_id) "
            "DO UPDATE SET kind=EXCLUDED.kind, started_at=EXCLUDED.started_at",
            (*self.s, session_id, mode, now),
        )

    def end_write(self, session_id: str) -> None:
        self.c.execute(f"DELETE FROM mg_writes WHERE {S} AND session_id=%s", (*self.s, session_id))

    def add_pending_session(self, v: dict[str, Any]) -> None:
        # The next number, unless given (a copy keeps the original's).
        seq = (
            v.get("seq")
            or self.c.execute(f"SELECT COALESCE(MAX(seq), 0) + 1 FROM mg_sessions WHERE {S}", self.s).fetchone()[0]
        )
        self.c.execute(
            "INSERT INTO mg_sessions VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
            (*self.s, *session_row(v, "pending", seq)),
        )

    def commit_session_row(self, v: dict[str, Any]) -> None:
        self.c.execute(
            "UPDATE mg_sessions SET date=%s, status='committed', participants=%s, n_turns=%s, content_hash=%s, "
            f"builder=%s, info=%s, metadata=%s WHERE {S} AND id=%s",
            (*session_update(v), *self.s, v["id"]),
        )

    def set_session_status(self, session_id: str, status: str) -> None:
        self.c.execute(f"UPDATE mg_sessions SET status=%s WHERE {S} AND id=%s", (status, *self.s, session_id))

    def remove_session(self, session_id: str) -> None:
        tables = (("mg_turns", "session_id"), ("mg_note_versions", "session_id"), ("mg_writes", "session_id"))
        for table, col in (*tables, ("mg_sessions", "id")):
            self.c.execute(f"DELETE FROM {table} WHERE {S} AND {col}=%s", (*self.s, session_id))

    def add_version(self, session_id: str, text: str, metadata: dict[str, Any], at: str) -> None:
        """The next version of a note, unless it equals the latest (a rebuild changes nothing)."""
        row = self.c.execute(
            f"SELECT version, text, metadata FROM mg_note_versions WHERE {S} AND session_id=%s "
            "ORDER BY version DESC LIMIT 1",
            (*self.s, session_id),
        ).fetchone()
        data = version_row(text, metadata)
        if row is None or (row[1], row[2]) != data:
            n = row[0] + 1 if row else 1
            self.c.execute(
                "INSERT INTO mg_note_versions VALUES (%s,%s,%s,%s,%s,%s,%s)", (*self.s, session_id, n, at, *data)
            )

    def add_garbage(self, ids: Iterable[str]) -> None:
        self._many(
            "INSERT INTO mg_vector_garbage VALUES (%s,%s,%s) ON CONFLICT DO NOTHING", [(*self.s, g) for g in ids]
        )

    def remove_garbage(self, ids: Iterable[str]) -> None:
        self.c.execute(f"DELETE FROM mg_vector_garbage WHERE {S} AND id = ANY(%s)", (*self.s, list(ids)))

    def put_vectors(self, rows: Iterable[tuple[str, bytes, bytes]]) -> None:
        """``(node id, text digest, float32 bytes)`` rows (``storage.vector_rows``), upserted."""
        self._many(
            "INSERT INTO mg_node_vectors VALUES (%s,%s,%s,%s,%s) ON CONFLICT (store_id, namespace, id) "
            "DO UPDATE SET digest=EXCLUDED.digest, vec=EXCLUDED.vec",
            [(*self.s, *r) for r in rows],
        )

    def drop_vectors(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        if ids:
            self.c.execute(f"DELETE FROM mg_node_vectors WHERE {S} AND id = ANY(%s)", (*self.s, ids))

    def set_meta(self, key: str, value: str) -> None:
        self.c.execute(
            "INSERT INTO mg_meta VALUES (%s,%s,%s,%s) ON CONFLICT (store_id, namespace, key) "
            "DO UPDATE SET value=EXCLUDED.value",
            (*self.s, key, value),
        )

    def init_meta(self, key: str, value: str) -> str:
        self.c.execute("INSERT INTO mg_meta VALUES (%s,%s,%s,%s) ON CONFLICT DO NOTHING", (*self.s, key, value))
        return str(self.c.execute(f"SELECT value FROM mg_meta WHERE {S} AND key=%s", (*self.s, key)).fetchone()[0])
