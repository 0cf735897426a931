"""The ``MemgraphStore`` item table: namespace tuple, key, the JSON value exactly as put, times.

The event graph holds what a value *says* (for ranking); this table holds the value itself,
so ``get`` returns it byte-for-byte and ``filter`` reads its fields. One SQLite file per data
dir; rows keep their ``rowid`` on overwrite, so listing order is insertion order like
LangGraph's ``InMemoryStore``.

A put changes two stores (this table and the graph, which may be PostgreSQL), so it is
written as an intent: ``begin`` records the new value (or a delete) in ``pending``; the caller
writes the graph (one commit: the note replaced, or forgotten); ``commit`` then moves the
pending value into ``items`` in one transaction, or ``abort`` drops it. After a crash the
pending row says what was under way and the graph says whether its commit happened
(``MemgraphStore`` settles it on open): value and note change together or not at all.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from langgraph.store.base import Item, MatchCondition

from memgraph_agents.sqlite_wal import enable_wal

SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (ns, key)
);
CREATE TABLE IF NOT EXISTS pending (
    ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT, updated_at TEXT NOT NULL, idx TEXT, PRIMARY KEY (ns, key)
);
"""


def graph_namespace(namespace: tuple[str, ...]) -> str:
    """The memgraph namespace of a store namespace tuple: injective in practice (a 120-bit hash
    of the tuple's JSON), so every distinct tuple is its own hard-isolated memory."""
    digest = hashlib.blake2b(json.dumps(list(namespace)).encode(), digest_size=15).hexdigest()
    return f"store-{digest}"


def namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """``list_namespaces``' rule (as ``InMemoryStore``): ``namespace`` starts (``prefix``) or ends
    (``suffix``) with ``condition.path``, where ``"*"`` stands for any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        part = namespace[: len(path)]
    elif condition.match_type == "suffix":
        part = namespace[len(namespace) - len(path) :]
    else:
        raise ValueError(f"unsupported match type: {condition.match_type!r}")
    return all(p == "*" or p == label for p, label in zip(path, part, strict=True))


def session_id(key: str) -> str:
    """The ingested session that holds one item (its note)."""
    return "item-" + hashlib.blake2b(key.encode(), digest_size=10).hexdigest()


@dataclass(frozen=True)
class Intent:
    """A put under way: the item it writes, or ``None`` for a delete, and its ``PutOp.index``
    (JSON; ``None``: the default fields)."""

    item: Item | None
    index: str | None = None


class ItemTable:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.conn = sqlite3.connect(str(path), check_same_thread=False, timeout=60, isolation_level=None)
        enable_wal(self.conn, timeout=60)
        self.conn.executescript(SCHEMA)
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(pending)")}
        if "idx" not in columns:  # a table from before PutOp.index was kept
            self.conn.execute("ALTER TABLE pending ADD COLUMN idx TEXT")

    @staticmethod
    def _item(row: tuple) -> Item:
        ns, key, value, created, updated = row
        return Item(
            value=json.loads(value),
            key=key,
            namespace=tuple(json.loads(ns)),
            created_at=datetime.fromisoformat(created),
            updated_at=datetime.fromisoformat(updated),
        )

    def get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        with self._lock:
            row = self.conn.execute(
                "SELECT ns, key, value, created_at, updated_at FROM items WHERE ns=? AND key=?",
                (json.dumps(list(namespace)), key),
            ).fetchone()
        return self._item(row) if row else None

    def begin(self, namespace: tuple[str, ...], key: str, value: dict | None, index: str | None = None) -> Item | None:
        """Record the intent to put ``value`` (``None``: to delete) under ``key``, indexed as
        ``index`` says (``PutOp.index`` as JSON); returns the item as it will read once
        committed (``None`` for a delete). Nothing visible changes yet."""
        now = datetime.now(UTC).isoformat()
        ns = json.dumps(list(namespace))
        with self._lock:
            self.conn.execute(
                "INSERT OR REPLACE INTO pending VALUES (?,?,?,?,?)",
                (ns, key, None if value is None else json.dumps(value), now, index),
            )
            old = self.conn.execute("SELECT created_at FROM items WHERE ns=? AND key=?", (ns, key)).fetchone()
        if value is None:
            return None
        return Item(
            value=json.loads(json.dumps(value)),
            key=key,
            namespace=tuple(namespace),
            created_at=datetime.fromisoformat(old[0] if old else now),
            updated_at=datetime.fromisoformat(now),
        )

    def pending(self, namespace: tuple[str, ...], key: str) -> Intent | None:
        """The recorded intent for ``key``, or ``None``."""
        ns = json.dumps(list(namespace))
        with self._lock:
            row = self.conn.execute(
                "SELECT value, updated_at, idx FROM pending WHERE ns=? AND key=?", (ns, key)
            ).fetchone()
            old = self.conn.execute("SELECT created_at FROM items WHERE ns=? AND key=?", (ns, key)).fetchone()
        if row is None:
            return None
        if row[0] is None:
            return Intent(None)
        created = old[0] if old else row[1]
        return Intent(self._item((ns, key, row[0], created, row[1])), row[2])

    def pendings(self) -> list[tuple[tuple[str, ...], str]]:
        """Every (namespace, key) with an intent recorded (a put cut short by a crash)."""
        with self._lock:
            rows = self.conn.execute("SELECT ns, key FROM pending ORDER BY rowid").fetchall()
        return [(tuple(json.loads(ns)), key) for ns, key in rows]

    def commit(self, namespace: tuple[str, ...], key: str) -> None:
        """Apply the recorded intent (insert, overwrite keeping ``created_at`` and the row's
        place, or delete) and forget it, in one transaction; nothing when none is recorded."""
        ns = json.dumps(list(namespace))
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                row = self.conn.execute(
                    "SELECT value, updated_at FROM pending WHERE ns=? AND key=?", (ns, key)
                ).fetchone()
                if row is not None and row[0] is None:
                    self.conn.execute("DELETE FROM items WHERE ns=? AND key=?", (ns, key))
                elif row is not None:
                    self.conn.execute(
                        "INSERT INTO items VALUES (?,?,?,?,?) ON CONFLICT(ns, key) DO UPDATE SET "
                        "value=excluded.value, updated_at=excluded.updated_at",
                        (ns, key, row[0], row[1], row[1]),
                    )
                self.conn.execute("DELETE FROM pending WHERE ns=? AND key=?", (ns, key))
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    def abort(self, namespace: tuple[str, ...], key: str) -> None:
        """Drop the recorded intent: the item stays as it was."""
        with self._lock:
            self.conn.execute("DELETE FROM pending WHERE ns=? AND key=?", (json.dumps(list(namespace)), key))

    def exists(self, namespace: tuple[str, ...], key: str) -> bool:
        with self._lock:
            row = self.conn.execute(
                "SELECT 1 FROM items WHERE ns=? AND key=?", (json.dumps(list(namespace)), key)
            ).fetchone()
        return row is not None

    def under(self, prefix: tuple[str, ...]) -> list[Item]:
        """Items whose namespace starts with ``prefix``, in insertion order."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT ns, key, value, created_at, updated_at FROM items ORDER BY rowid"
            ).fetchall()
        items = [self._item(r) for r in rows]
        return [i for i in items if i.namespace[: len(prefix)] == tuple(prefix)]

    def namespaces(self) -> list[tuple[str, ...]]:
        with self._lock:
            rows = self.conn.execute("SELECT DISTINCT ns FROM items").fetchall()
        return [tuple(json.loads(r[0])) for r in rows]

    def close(self) -> None:
        self.conn.close()
