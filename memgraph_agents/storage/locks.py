"""Locks behind the concurrency model (README "Concurrency model").

* ``namespace_ingest_lock(dir)``: one writer per namespace. An ingest holds it from the
  ``check`` of a session to its commit, so a session is always built on the graph it is
  committed to. It is a ``threading.Lock`` (threads and asyncio tasks on any event loop of
  this process) plus an ``flock`` on ``DIR/ingest.lock`` (other processes). Both are taken
  by polling, so an asyncio task waiting for it never blocks its event loop and can be
  cancelled at any time.
* ``hold_process_lock(dir)``: embedded Chroma (``PersistentClient``) is not safe for two
  processes on one directory: a second process's client does not see the first one's writes
  (its reads then fail with "Error finding id"). The first process to open an embedded
  Chroma directory locks it for its lifetime; another one gets ``DataDirInUseError``, which
  says to use the Chroma server mode instead.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import weakref
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Protocol

from memgraph_agents.datadir import ensure_private_dir
from memgraph_agents.errors import StorageError

try:  # POSIX; elsewhere the cross-process half of the locks is a no-op
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

PROCESS_LOCK_TIMEOUT_ENV = "MEMGRAPH_DATA_DIR_LOCK_TIMEOUT"
DEFAULT_PROCESS_LOCK_TIMEOUT = 10.0


class DataDirInUseError(StorageError):
    """Another process holds the embedded Chroma directory of this data dir."""


class WriterBusyError(StorageError):
    """A namespace's writer lock stayed taken for longer than the caller would wait."""


def _try_flock(fd: int) -> bool:
    if fcntl is None:  # pragma: no cover
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


class RemoteLock(Protocol):
    """A lock that workers on other machines take too (the PostgreSQL store's advisory lock)."""

    def try_acquire(self) -> bool: ...

    def release(self) -> None: ...


class NamespaceIngestLock:
    """Mutual exclusion of ingests into one namespace: threads, tasks, processes and, with a
    ``remote`` half (graph in PostgreSQL), workers on other machines that share no folder."""

    def __init__(self, path: Path, remote: RemoteLock | None = None) -> None:
        self.path = Path(path)
        self.remote = remote
        self._mutex = threading.Lock()
        self._fd: int | None = None

    @property
    def _max_delay(self) -> float:
        """Polling interval cap: a remote half costs a round trip to the server per try."""
        return 0.02 if self.remote is None else 0.1

    def _try(self) -> bool:
        if not self._mutex.acquire(blocking=False):
            return False
        try:
            ensure_private_dir(self.path.parent)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except BaseException:
            self._mutex.release()
            raise
        if _try_flock(fd):
            try:  # the remote half last: it is the slowest (a round trip to the server)
                remote_ok = self.remote is None or self.remote.try_acquire()
            except BaseException:
                os.close(fd)
                self._mutex.release()
                raise
            if remote_ok:
                self._fd = fd
                return True
        os.close(fd)
        self._mutex.release()
        return False

    def release(self) -> None:
        if self.remote is not None:
            self.remote.release()
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the flock
        self._mutex.release()

    @contextmanager
    def hold(self, timeout: float | None = None):
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.001
        while not self._try():
            if deadline is not None and time.monotonic() > deadline:
                raise WriterBusyError(f"another writer holds {self.path} (waited {timeout:g} s)")
            time.sleep(delay)
            delay = min(2 * delay, self._max_delay)
        try:
            yield self
        finally:
            self.release()

    async def _atry(self) -> bool:
        """``_try`` in a worker thread (it opens and flocks a file: never on the event loop).
        Cancelled while the thread runs: a lock it still took is released, not leaked."""
        task = asyncio.ensure_future(asyncio.to_thread(self._try))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(
                lambda t: self.release() if not t.cancelled() and t.exception() is None and t.result() else None
            )
            raise

    @asynccontextmanager
    async def hold_async(self):
        delay = 0.001
        while not await self._atry():
            await asyncio.sleep(delay)
            delay = min(2 * delay, self._max_delay)
        try:
            yield self
        finally:
            await asyncio.to_thread(self.release)


# Weak: a namespace's lock lives while a store (or a holder) uses it, then goes with it; a
# process touching ten thousand namespaces must not keep one each. Nobody can
# hold a lock nobody references, so a new object for the same directory is safe.
_INGEST_LOCKS: weakref.WeakValueDictionary[str, NamespaceIngestLock] = weakref.WeakValueDictionary()
_REGISTRY_LOCK = threading.Lock()


def namespace_ingest_lock(namespace_dir: Path, remote: RemoteLock | None = None) -> NamespaceIngestLock:
    """The process-wide ingest lock of a namespace directory (one object per directory);
    ``remote``: its cross-machine half (the same namespace in PostgreSQL)."""
    key = str(Path(namespace_dir).resolve())
    with _REGISTRY_LOCK:
        lock = _INGEST_LOCKS.get(key)
        if lock is None:
            lock = _INGEST_LOCKS[key] = NamespaceIngestLock(Path(key) / "ingest.lock", remote)
        elif remote is not None and lock.remote is None:
            lock.remote = remote
        return lock


_PROCESS_LOCKS: dict[str, int] = {}


def hold_process_lock(directory: Path) -> None:
    """Lock ``directory`` for this process until it exits (idempotent within the process).

    Waits up to ``MEMGRAPH_DATA_DIR_LOCK_TIMEOUT`` seconds (default 10) for another process
    to let go, then raises ``DataDirInUseError``.
    """
    _process_lock(directory, float(os.environ.get(PROCESS_LOCK_TIMEOUT_ENV, DEFAULT_PROCESS_LOCK_TIMEOUT)))


def try_process_lock(directory: Path) -> bool:
    """``hold_process_lock`` without waiting: whether this process holds ``directory`` now."""
    try:
        _process_lock(directory, 0.0)
    except DataDirInUseError:
        return False
    return True


def _process_lock(directory: Path, timeout: float) -> None:
    directory = Path(directory).resolve()
    key = str(directory)
    with _REGISTRY_LOCK:
        if key in _PROCESS_LOCKS:
            return
        ensure_private_dir(directory)
        lock_path = directory / "memgraph-process.lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + timeout
        while not _try_flock(fd):
            if time.monotonic() >= deadline:
                try:
                    holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
                finally:
                    os.close(fd)
                raise DataDirInUseError(
                    f"{directory} is in use by another process (pid {holder}): embedded Chroma allows one process "
                    "per data directory. Stop that process, or run a Chroma server (`chroma run --path DIR`) and set "
                    "MEMGRAPH_CHROMA_HOST / MEMGRAPH_CHROMA_PORT so that several processes can share the memory"
                )
            time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _PROCESS_LOCKS[key] = fd  # held (fd open) for the life of the process
