"""Open SQLite databases in WAL mode safely when several processes open them at once.

Switching a database to WAL takes a brief exclusive lock, and SQLite reports a concurrent
switch as ``database is locked`` at once instead of waiting for the busy timeout. The graph
databases go through ``enable_wal``, which retries until the
connection's timeout.
"""

from __future__ import annotations

import sqlite3
import time


def enable_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """``PRAGMA journal_mode=WAL`` on ``conn``, retried while another process holds the lock."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
