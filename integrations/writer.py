"""The background writer: remembered notes and chat turns are written to memory on one daemon
thread, so a chat turn never waits for an ingest.

Each write is ``Memory.add`` with the run's settings (validation, the namespace's ingest lock,
the pipeline), in submission order. Jobs with the same key (a chat thread that grew) are
coalesced: only the newest transcript is written. ``flush`` waits for everything and raises
``MemoryWriteError`` for a write that failed; queued writes also finish at interpreter exit. A
failed write is also told once to the next tool call on its namespace (``take_failures``),
unless the tool that queued it already said so (``settle``: ``remember`` waits, bounded, for
its note's commit). A write that meets another writer holding the data dir or the namespace
longer than a lock wait is tried again (``TRANSIENT``) before it counts as failed.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from memgraph_agents.api import Memory
from memgraph_agents.errors import StorageError
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.storage.locks import DataDirInUseError, WriterBusyError

log = logging.getLogger(__name__)


class MemoryWriteError(StorageError):
    """A background write failed (raised by ``flush``; the chat turn itself never sees it)."""


def _at_exit(fn) -> None:
    """Run ``fn`` at interpreter exit *before* ``concurrent.futures`` stops accepting work
    (``threading._register_atexit`` hooks run before ``atexit`` ones and in reverse order),
    so writes still queued at exit can finish (an ingest uses thread pools)."""
    register = getattr(threading, "_register_atexit", None)
    try:
        if register is not None:
            register(fn)
            return
    except RuntimeError:  # already shutting down
        return
    atexit.register(fn)


@dataclass
class _Job:
    key: str
    namespace: str
    memory: Memory  # the run's settings: the write goes through ``Memory.add``
    conversation: Conversation
    done: threading.Event = field(default_factory=threading.Event)
    report: Any = None
    error: BaseException | None = None
    announce: bool = False  # a tool said "queued": its outcome is told by the next call


# Another writer held the data dir or the namespace for longer than a lock wait: tried again.
TRANSIENT = (DataDirInUseError, WriterBusyError)
RETRY_DELAYS = (0.5, 2.0, 5.0)


class BackgroundWriter:
    """One daemon thread that ingests queued conversations, in submission order.

    Jobs with the same ``key`` (a chat thread that grew) are coalesced: only the newest
    transcript is ingested. ``wait(namespace)`` blocks until that namespace has nothing
    queued; ``flush`` waits for everything and reports (and clears) failures.
    """

    def __init__(self, name: str = "memgraph-writer") -> None:
        self.name = name
        self._jobs: OrderedDict[str, _Job] = OrderedDict()
        self._running: _Job | None = None
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.reports: list[Any] = []
        self.errors: list[tuple[str, BaseException]] = []
        self._untold: list[tuple[str, str, BaseException]] = []  # (namespace, key, error) no tool call has said yet
        self._saved_untold: list[tuple[str, str]] = []  # (namespace, key) said "queued", saved since
        ref = weakref.ref(self)

        def close_at_exit() -> None:
            writer = ref()
            if writer is not None:
                writer.close(timeout=120)

        _at_exit(close_at_exit)

    # -- submit / wait -------------------------------------------------------------------
    def submit(self, key: str, namespace: str, memory: Memory, conversation: Conversation) -> _Job:
        with self._cond:
            if self._closed:
                raise MemoryWriteError("the memory writer is closed")
            self._jobs.pop(key, None)  # coalesce: the newest transcript of a thread wins
            job = self._jobs[key] = _Job(key, namespace, memory, conversation)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return job

    def settle(self, job: _Job, timeout: float) -> str:
        """Wait up to ``timeout`` seconds for ``job``: ``"saved"`` (committed), ``"failed"``
        (``job.error``; told now, so not again by ``take_failures``; ``flush`` still raises
        for it) or ``"queued"``: still running, its outcome then told by the next tool call on
        its namespace (``take_failures`` / ``take_saved``), never dropped."""
        job.done.wait(max(0.0, timeout))
        with self._cond:
            if not job.done.is_set():
                job.announce = True
                return "queued"
            if job.error is not None:
                self._untold = [f for f in self._untold if f[2] is not job.error]
                return "failed"
            return "saved"

    def pending(self, namespace: str | None = None) -> int:
        with self._cond:
            jobs = list(self._jobs.values()) + ([self._running] if self._running else [])
            return sum(1 for j in jobs if namespace is None or j.namespace == namespace)

    def wait(self, namespace: str | None = None, timeout: float | None = None) -> bool:
        """Block until nothing is queued (for ``namespace``, or at all); False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._busy(namespace):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def _busy(self, namespace: str | None) -> bool:
        jobs = list(self._jobs.values()) + ([self._running] if self._running else [])
        return any(namespace is None or j.namespace == namespace for j in jobs)

    def flush(self, timeout: float | None = None) -> list[Any]:
        """Wait for every queued write; return the ingest reports since the last flush.

        Raises ``TimeoutError`` when writes are still running after ``timeout`` seconds and
        ``MemoryWriteError`` when a write failed (the failure is then cleared).
        """
        if not self.wait(None, timeout):
            raise TimeoutError(f"memory writes still running after {timeout} s ({self.pending()} queued)")
        with self._cond:
            reports, errors = self.reports, self.errors
            self.reports, self.errors = [], []
        if errors:
            key, exc = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise MemoryWriteError(f"writing {key} to memory failed: {type(exc).__name__}: {exc}{more}") from exc
        return reports

    def take_failures(self, namespaces: list[str]) -> list[str]:
        """The failed writes to ``namespaces`` no tool call has reported yet, as sentences; each
        is returned once (``flush`` still raises for it)."""
        with self._cond:
            mine = [f for f in self._untold if f[0] in namespaces]
            self._untold = [f for f in self._untold if f[0] not in namespaces]
        return [f"saving {key.split('/', 1)[-1]} to memory failed ({exc}); it was not saved" for _, key, exc in mine]

    def take_saved(self, namespaces: list[str]) -> list[str]:
        """Writes a tool said were queued that have been saved since, as sentences (each once)."""
        with self._cond:
            mine = [f for f in self._saved_untold if f[0] in namespaces]
            self._saved_untold = [f for f in self._saved_untold if f[0] not in namespaces]
        return [f"{key.split('/', 1)[-1]} (queued earlier) is saved now" for _, key in mine]

    def close(self, timeout: float | None = 60) -> None:
        """Finish queued writes (bounded by ``timeout``) and stop accepting new ones."""
        self.wait(None, timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    # -- worker --------------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._closed:
                    self._cond.wait(1.0)
                if not self._jobs:
                    return
                _, job = self._jobs.popitem(last=False)
                self._running = job
            try:
                report = self._write(job)
                with self._cond:
                    job.report = report
                    self.reports.append(report)
                    if job.announce:
                        self._saved_untold.append((job.namespace, job.key))
            except BaseException as exc:  # noqa: BLE001 - reported by flush(), never lost
                log.warning("memgraph: background write %s failed: %s", job.key, exc)
                with self._cond:
                    job.error = exc
                    self.errors.append((job.key, exc))
                    self._untold.append((job.namespace, job.key, exc))
            finally:
                with self._cond:
                    self._running = None
                    job.done.set()
                    self._cond.notify_all()

    @staticmethod
    def _write(job: _Job) -> Any:
        """``Memory.add`` of the job, tried again while another writer holds the data dir or
        the namespace longer than a lock wait (``TRANSIENT``); any other error is final."""
        for delay in (*RETRY_DELAYS, None):
            try:
                return job.memory.add(job.conversation, namespace=job.namespace)
            except TRANSIENT as exc:
                if delay is None:
                    raise
                log.info("memgraph: write %s waits for another writer (%s); trying again", job.key, exc)
                time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover
