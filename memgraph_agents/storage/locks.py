"""Locks behind the concurrency model (README "Concurrency model").

* ``namespace_ingest_lock(dir)``: one writer per namespace. An ingest holds it from the
  ``check`` of a session to its commit, so a session is always built on the graph it is
  committed to. It is a ``threading.Lock`` (threads and asyncio tasks on any event loop of
  this process) plus an ``flock`` on ``DIR/ingest.lock`` (other processes). Both are taken
  by polling, so an asyncio task waiting for it never blocks its event loop and can be
  cancelled at any time.
* ``process_lock(dir)``: a data dir's writers take turns across processes. Every write holds
  it for the write only, so an agent, ``memgraph ui``, the CLI and an MCP server share one data
  dir: a second writer waits (``MEMGRAPH_DATA_DIR_LOCK_TIMEOUT``, default 10 s) and then writes.
  Embedded Chroma (``PersistentClient``) is not safe for two processes on one directory (a
  second process's client does not see the first one's writes: "Error finding id"), so an
  open embedded client holds the lock too (``hold_process_lock``) until it is closed;
  another process then gets ``DataDirInUseError``, which says to use the Chroma server mode.
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

from memgraph_agents.config_process import process_settings
from memgraph_agents.datadir import ensure_private_dir
from memgraph_agents.errors import StorageError

try:  # POSIX; elsewhere the cross-process half of the locks is a no-op
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

PROCESS_LOCK_TIMEOUT_ENV = "MEMGRAPH_DATA_DIR_LOCK_TIMEOUT"
DEFAULT_PROCESS_LOCK_TIMEOUT = 10.0


class DataDirInUseError(StorageError):
    """Another process kept this data dir's lock longer than the wait: its write, or its open
    embedded Chroma index (the message says which)."""


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


class _Held:
    """This process's hold on a data dir: the locked descriptor and how many hold it now."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.holders = 0
        self.chroma = 0  # of them, open embedded Chroma clients (said in another process's error)


_PROCESS_LOCKS: dict[str, _Held] = {}
# Guards ``_PROCESS_LOCKS`` and serialises taking a data dir's flock; held while waiting for
# another process, never while this process does anything else (so never re-entered).
_PROCESS_MUTEX = threading.Lock()


def lock_timeout() -> float:
    """``MEMGRAPH_DATA_DIR_LOCK_TIMEOUT`` seconds (process-wide: ``ProcessSettings``)."""
    return process_settings().data_dir_lock_timeout


@contextmanager
def process_lock(directory: Path, timeout: float | None = None):
    """Hold ``directory``'s process lock for the ``with`` block: one write, then another
    process's writer may have it. Threads of this process share one hold (counted), so the
    lock only orders processes. Waits up to ``timeout`` (default ``MEMGRAPH_DATA_DIR_LOCK_TIMEOUT``,
    10 s) for another process to let go, then raises ``DataDirInUseError``."""
    key = _acquire(directory, lock_timeout() if timeout is None else timeout, chroma=False)
    try:
        yield
    finally:
        release_process_lock(key)


def hold_process_lock(directory: Path) -> str:
    """Take ``directory``'s process lock for an embedded Chroma client (kept until
    ``release_process_lock`` of the returned key, when the client is closed)."""
    return _acquire(directory, lock_timeout(), chroma=True)


def release_process_lock(key: str, chroma: bool = False) -> None:
    """One holder of ``key`` is done; the last one closes the descriptor (the flock goes with it)."""
    with _PROCESS_MUTEX:
        held = _PROCESS_LOCKS.get(key)
        if held is None:
            return
        held.holders -= 1
        held.chroma -= 1 if chroma else 0
        if held.holders > 0:
            return
        del _PROCESS_LOCKS[key]
        os.close(held.fd)


def held_process_locks() -> int:
    """How many data dirs this process holds now (tests)."""
    with _PROCESS_MUTEX:
        return len(_PROCESS_LOCKS)


def _acquire(directory: Path, timeout: float, chroma: bool) -> str:
    directory = Path(directory).resolve()
    key = str(directory)
    deadline = time.monotonic() + timeout
    if not _PROCESS_MUTEX.acquire(timeout=max(0.0, timeout)):
        raise DataDirInUseError(f"{directory}: this process could not take its own data dir lock in {timeout:g} s")
    try:
        held = _PROCESS_LOCKS.get(key)
        if held is None:
            ensure_private_dir(directory)
            lock_path = directory / "memgraph-process.lock"
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            while not _try_flock(fd):
                if time.monotonic() >= deadline:
                    try:
                        holder = os.pread(fd, 64, 0).decode(errors="replace").split()
                    finally:
                        os.close(fd)
                    raise _in_use(directory, holder, timeout)
                time.sleep(0.02)
            held = _PROCESS_LOCKS[key] = _Held(fd)
        held.holders += 1
        held.chroma += 1 if chroma else 0
        # Who holds it and why, for another process's error message.
        os.ftruncate(held.fd, 0)
        os.pwrite(held.fd, f"{os.getpid()} {'chroma' if held.chroma else 'write'}\n".encode(), 0)
        return key
    finally:
        _PROCESS_MUTEX.release()


def _in_use(directory: Path, holder: list[str], timeout: float) -> DataDirInUseError:
    pid = holder[0] if holder else "unknown"
    if holder[1:2] == ["write"]:
        return DataDirInUseError(
            f"{directory} stayed locked by another process's write (pid {pid}) for {timeout:g} s: try again, "
            f"or raise {PROCESS_LOCK_TIMEOUT_ENV}"
        )
    return DataDirInUseError(
        f"{directory} is in use by another process (pid {pid}) with an embedded Chroma index open: embedded "
        "Chroma allows one process per data directory once a namespace is indexed (past "
        "MEMGRAPH_CHROMA_INDEX_NODES). Stop that process, or run a Chroma server (`chroma run --path DIR`) and set "
        "MEMGRAPH_CHROMA_HOST / MEMGRAPH_CHROMA_PORT so that several processes can share the memory"
    )
