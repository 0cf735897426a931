"""A process-wide bound on concurrent LLM calls.

``asyncio.Semaphore`` bounds the tasks of one event loop, but this process may run many
ingests at once: asyncio tasks on one loop, threads each running their own loop
(``ingest_conversation`` from worker threads), LangGraph runs. ``call_limiter(spec, n)``
returns the one ``CallLimiter`` of a chat model spec in this process: at most ``n`` of its
requests are in flight, whichever thread or loop sends them. It is an async context manager,
so it goes wherever ``ainvoke_json`` takes a ``semaphore``.

Waiting polls a ``threading.Semaphore`` with short sleeps: never blocks an event loop,
cancellable at any point, and the wait (not part of a call's timeout) is bounded by the
calls ahead of it.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import AbstractAsyncContextManager
from typing import Any

from memgraph_agents.config_process import process_settings

# What bounds a call: anything ``async with`` can hold, an ``asyncio.Semaphore`` (one event
# loop) or a ``CallLimiter`` (the whole process).
CallSlot = AbstractAsyncContextManager[Any]


class CallLimiter:
    """At most ``limit`` concurrent holders across threads and event loops."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        self.limit = limit
        self._sem = threading.Semaphore(limit)
        self._lock = threading.Lock()
        self.active = 0  # holders right now
        self.peak = 0  # most holders ever seen at once (for tests and diagnostics)

    async def __aenter__(self) -> CallLimiter:
        delay = 0.0005
        while not self._sem.acquire(blocking=False):
            await asyncio.sleep(delay)
            delay = min(2 * delay, 0.01)
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        return self

    async def __aexit__(self, *exc: object) -> None:
        with self._lock:
            self.active -= 1
        self._sem.release()


_LIMITERS: dict[tuple[str, int], CallLimiter] = {}
_LOCK = threading.Lock()


def call_limiter(spec: str, limit: int) -> CallLimiter:
    """The process-wide limiter of chat model ``spec`` (``MEMGRAPH_LLM``) with ``limit`` slots."""
    with _LOCK:
        key = (spec, int(limit))
        if key not in _LIMITERS:
            _LIMITERS[key] = CallLimiter(int(limit))
        return _LIMITERS[key]


DEFAULT_LIMIT = 4  # Settings.llm_max_concurrency's default


def default_limiter(key: str) -> CallLimiter:
    """The limiter of a model for calls that name none (navigator, retrieval, bench):
    ``llm_max_concurrency`` slots of the process settings (``MEMGRAPH_LLM_MAX_CONCURRENCY``),
    shared with an ingest that uses the same limit."""

    return call_limiter(key, process_settings().llm_max_concurrency)
