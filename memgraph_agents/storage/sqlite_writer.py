"""The embedded store's write transaction: ``GraphWrite`` (``storage.graph_store``) over SQLite.

One object per ``GraphDB.write()`` block, bound to the writer connection inside its
``BEGIN IMMEDIATE`` transaction. The row-level statements below it (``insert_nodes``,
``drop_rows``…) are module functions, looked up at call time (tests wrap them to count what a
commit writes); ``storage.pg_writer`` is their PostgreSQL twin.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from memgraph_agents.model.graph import Edge, Node
from memgraph_agents.storage.session_write import session_row, session_update, version_row
from memgraph_agents.storage.sqlite_rows import chunks, edge_row, node_row, node_texts_in


class SqliteWriter:
    def __init__(self, c: sqlite3.Connection) -> None:
        self.c = c

    def insert_nodes(self, nodes: Iterable[Node], replace: bool = False) -> None:
        insert_nodes(self.c, nodes, replace)

    def add_owner(self, node_ids: Iterable[str], session_id: str) -> None:
        add_owner(self.c, node_ids, session_id)

    def add_owner_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """``(node id, session id)`` ownership rows as they are (a copy of another store's)."""
        self.c.executemany("INSERT OR IGNORE INTO node_owners VALUES (?, ?)", list(pairs))

    def insert_edges(self, edges: Iterable[Edge], replace: bool = False) -> None:
        insert_edges(self.c, edges, replace)

    def drop_rows(
        self, session_id: str, node_ids: list[str] | None = None, keep: set[str] | frozenset[str] = frozenset()
    ) -> tuple[list[str], list[str]]:
        return drop_rows(self.c, session_id, node_ids, keep)

    def drop_derived(self, kind: str, owner: str) -> None:
        """Namespace-level rows of ``kind`` (topics) and their edges, before they are rewritten."""
        self.c.execute(
            "DELETE FROM edges WHERE src IN (SELECT id FROM nodes WHERE kind=? AND session_id=?)", (kind, owner)
        )
        self.c.execute("DELETE FROM nodes WHERE kind=? AND session_id=?", (kind, owner))

    def write_turns(self, session_id: str, start: int, turns: list[tuple[str, str, dict]], replace: bool) -> None:
        write_turns(self.c, session_id, start, turns, replace)

    def node_texts(self, ids: Iterable[str]) -> dict[str, tuple[str, str, bool]]:
        """As this transaction sees them (its own rows included)."""
        return node_texts_in(self.c, ids)

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


def insert_nodes(c: sqlite3.Connection, nodes: Iterable[Node], replace: bool = False) -> None:
    """Add nodes and their (node, session) ownership. An existing node keeps its row unless
    its primary owner restates it (an append updating its session node); ``replace``
    overwrites it (namespace-level derived rows). Either way a rewritten row keeps its
    rowid, so its place in the snapshot: a commit that updates a few topics leaves every
    other row where it was (the snapshot delta then mostly appends)."""
    nodes = list(nodes)
    if replace:
        c.executemany(
            "INSERT INTO nodes VALUES (?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET "
            "kind=excluded.kind, text=excluded.text, session_id=excluded.session_id, "
            "turn_ids=excluded.turn_ids, attrs=excluded.attrs, embed=excluded.embed",
            [node_row(n) for n in nodes],
        )
    else:
        c.executemany(
            "INSERT INTO nodes VALUES (?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET "
            "kind=excluded.kind, text=excluded.text, turn_ids=excluded.turn_ids, "
            "attrs=excluded.attrs, embed=excluded.embed WHERE nodes.session_id = excluded.session_id",
            [node_row(n) for n in nodes],
        )
    c.executemany(
        "INSERT OR IGNORE INTO node_owners VALUES (?, ?)", [(n.id, n.session_id) for n in nodes if n.session_id]
    )


def add_owner(c: sqlite3.Connection, node_ids: Iterable[str], session_id: str) -> None:
    """``session_id`` states these existing arguments too (shared entities it links to)."""
    c.executemany(
        "INSERT OR IGNORE INTO node_owners SELECT id, ? FROM nodes WHERE id=? AND kind='argument'",
        [(session_id, i) for i in node_ids],
    )


def drop_rows(
    c: sqlite3.Connection,
    session_id: str,
    node_ids: list[str] | None = None,
    keep: set[str] | frozenset[str] = frozenset(),
) -> tuple[list[str], list[str]]:
    """Remove what ``session_id`` states: everything (``node_ids`` None) or these of its
    nodes. A node goes when no session states it any more (unless in ``keep``: the new
    version of the session states it again), with the generated nodes other sessions built
    from it (``derived`` edges, the provenance rule). Returns (removed nodes, those of them
    that had vectors)."""
    if node_ids is None:
        candidates = [r[0] for r in c.execute("SELECT node_id FROM node_owners WHERE session_id=?", (session_id,))]
        c.execute("DELETE FROM edges WHERE session_id=?", (session_id,))
        c.execute("DELETE FROM node_owners WHERE session_id=?", (session_id,))
    else:
        candidates = list(node_ids)
        c.executemany("DELETE FROM node_owners WHERE node_id=? AND session_id=?", [(n, session_id) for n in candidates])
    doomed: set[str] = set()
    for chunk in chunks(candidates):
        marks = ",".join("?" * len(chunk))
        alive = {r[0] for r in c.execute(f"SELECT DISTINCT node_id FROM node_owners WHERE node_id IN ({marks})", chunk)}
        doomed.update(n for n in chunk if n not in alive and n not in keep)
    doomed.update(_generated_from(c, set(doomed)))
    embedded: list[str] = []
    for chunk in chunks(sorted(doomed)):
        marks = ",".join("?" * len(chunk))
        embedded += [r[0] for r in c.execute(f"SELECT id FROM nodes WHERE embed=1 AND id IN ({marks})", chunk)]
        c.execute(f"DELETE FROM edges WHERE src IN ({marks}) OR dst IN ({marks})", chunk + chunk)
        c.execute(f"DELETE FROM nodes WHERE id IN ({marks})", chunk)
        c.execute(f"DELETE FROM node_owners WHERE node_id IN ({marks})", chunk)
    # A surviving node whose primary owner went passes to its first remaining owner (a node
    # the session still states keeps it: an append that drops one event re-owns nothing else).
    c.execute(
        "UPDATE nodes SET session_id = (SELECT MIN(o.session_id) FROM node_owners o WHERE o.node_id = nodes.id) "
        "WHERE session_id=? AND EXISTS (SELECT 1 FROM node_owners o WHERE o.node_id = nodes.id) "
        "AND NOT EXISTS (SELECT 1 FROM node_owners o WHERE o.node_id = nodes.id AND o.session_id = ?)",
        (session_id, session_id),
    )
    # Topics whose every member went away go too.
    c.execute(
        "DELETE FROM nodes WHERE kind='topic' AND session_id='' AND id NOT IN "
        "(SELECT src FROM edges WHERE kind='member')"
    )
    return sorted(doomed), embedded


def write_turns(
    c: sqlite3.Connection, session_id: str, start: int, turns: list[tuple[str, str, dict]], replace: bool
) -> None:
    if replace:
        c.execute("DELETE FROM turns WHERE session_id=?", (session_id,))
    c.executemany(
        "INSERT OR REPLACE INTO turns VALUES (?,?,?,?,?)",
        [(session_id, start + i, t, d, json.dumps(data)) for i, (t, d, data) in enumerate(turns)],
    )


def insert_edges(c: sqlite3.Connection, edges: Iterable[Edge], replace: bool = False) -> None:
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    c.executemany(f"{verb} INTO edges VALUES (?,?,?,?,?,?,?,?)", [edge_row(e) for e in edges])


def _generated_from(c: sqlite3.Connection, doomed: set[str]) -> list[str]:
    """Other sessions' generated nodes (``derived`` edges) built from ``doomed`` nodes: a
    reasoning fragment over a deleted cluster goes with it (the provenance rule)."""
    out: list[str] = []
    frontier = list(doomed)
    while frontier:
        chunk, frontier = frontier[:900], frontier[900:]
        marks = ",".join("?" * len(chunk))
        for (src,) in c.execute(f"SELECT DISTINCT src FROM edges WHERE kind='derived' AND dst IN ({marks})", chunk):
            if src not in doomed:
                doomed.add(src)
                out.append(src)
                frontier.append(src)
    return out
