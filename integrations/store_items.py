"""The ``MemgraphStore`` item table: namespace tuple, key, the JSON value exactly as put, times.

The event graph holds what a value *says* (for ranking); this table holds the value itself,
so ``get`` returns it byte-for-byte and ``filter`` reads its fields. One SQLite file per data
dir; rows keep their ``rowid`` on overwrite, so listing order is insertion order like
LangGraph's ``InMemoryStore``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from langgraph.store.base import Item

from memgraph_agents.sqlite_wal import enable_wal

SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (ns, key)
);
"""


def graph_namespace(namespace: tuple[str, ...]) -> str:
    """The memgraph namespace of a store namespace tuple: injective in practice (a 120-bit hash
    of the tuple's JSON), so every distinct tuple is its own hard-isolated memory."""
    digest = hashlib.blake2b(json.dumps(list(namespace)).encode(), digest_size=15).hexdigest()
    return f"store-{digest}"


def session_id(key: str) -> str:
    """The ingested session that holds one item (its note)."""
    return "item-" + hashlib.blake2b(key.encode(), digest_size=10).hexdigest()


class ItemTable:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.conn = sqlite3.connect(str(path), check_same_thread=False, timeout=60, isolation_level=None)
        enable_wal(self.conn, timeout=60)
        self.conn.executescript(SCHEMA)

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

    def put(self, namespace: tuple[str, ...], key: str, value: dict) -> tuple[Item, bool]:
        """Insert or overwrite (keeping ``created_at`` and the row's place); (item, overwritten)."""
        now = datetime.now(UTC).isoformat()
        ns = json.dumps(list(namespace))
        with self._lock:
            old = self.conn.execute("SELECT 1 FROM items WHERE ns=? AND key=?", (ns, key)).fetchone()
            self.conn.execute(
                "INSERT INTO items VALUES (?,?,?,?,?) ON CONFLICT(ns, key) DO UPDATE SET value=excluded.value, "
                "updated_at=excluded.updated_at",
                (ns, key, json.dumps(value), now, now),
            )
        item = self.get(namespace, key)
        assert item is not None
        return item, old is not None

    def delete(self, namespace: tuple[str, ...], key: str) -> bool:
        with self._lock:
            cur = self.conn.execute("DELETE FROM items WHERE ns=? AND key=?", (json.dumps(list(namespace)), key))
        return cur.rowcount > 0

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
