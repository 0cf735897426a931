"""Telling "the disk is full" from other storage failures.

A full disk surfaces in many disguises: ``OSError`` ENOSPC from a file write, SQLite's
``SQLITE_FULL`` ("database or disk is full"), Chroma's own SQLite error carrying the same
words, or an I/O error from a journal that could not grow, and SQLite's automatic rollback on
``SQLITE_FULL`` used to hide it behind "cannot rollback - no transaction is active". Callers
that catch a storage failure ask ``is_disk_full`` and raise ``disk_full_error`` instead: one
message that says the disk is full and where.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

from memgraph_agents.errors import StorageError

# Below this many free bytes a storage failure is taken to be the full disk: SQLite needs a
# few pages for its journal and WAL, Chroma more.
LOW_SPACE = 256 * 1024
_FULL_WORDS = ("database or disk is full", "no space left on device", "disk quota exceeded")
_FULL_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


class DiskFullError(StorageError):
    """The filesystem holding the data dir has no space left; nothing half-written was kept."""


def free_bytes(path: Path) -> int | None:
    """Free bytes on the filesystem of ``path`` (its nearest existing parent), ``None`` if unknown."""
    probe = Path(path)
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free
    except OSError:
        return None


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in seen:
        seen.append(e)
        e = e.__cause__ or e.__context__
    return seen


def is_disk_full(exc: BaseException, path: Path) -> bool:
    """Whether ``exc`` (or an error it was raised from) is the disk holding ``path`` running
    out of space: ENOSPC / EDQUOT, SQLite's full-disk code or words, or any storage failure
    while that filesystem has under ``LOW_SPACE`` bytes free."""
    for e in _chain(exc):
        if isinstance(e, OSError) and e.errno in _FULL_ERRNOS:
            return True
        if isinstance(e, sqlite3.Error) and getattr(e, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
            return True
        if any(w in str(e).lower() for w in _FULL_WORDS):
            return True
    free = free_bytes(path)
    storage = any(isinstance(e, OSError | sqlite3.Error | StorageError) for e in _chain(exc))
    return storage and free is not None and free < LOW_SPACE


def disk_full_error(path: Path, what: str) -> DiskFullError:
    """The one-line error: the disk is full, where, and what ``what`` (was not) done."""
    free = free_bytes(path)
    left = f", {free} bytes free" if free is not None else ""
    return DiskFullError(f"the disk holding {path} is full{left}: {what}; free some space and try again")
