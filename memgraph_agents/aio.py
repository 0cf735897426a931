"""Run a coroutine from sync code, whether or not an event loop is already running."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Inside a running loop (Jupyter, an async agent): run on a private loop in a worker thread.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


class _Loop:
    """One event loop for the process, on a daemon thread, started on first use."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.lock = threading.Lock()

    def get(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None or self.loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="memgraph-loop", daemon=True).start()
                self.loop = loop
            return self.loop


_shared = _Loop()


def run_on_shared_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the process's one background loop and wait for it.

    For calls made once per question (the navigator as a retriever): starting and closing an
    event loop per call costs more than the work. Safe from sync code and from inside a
    running loop (the caller's loop is not the one that runs ``coro``).
    """
    loop = _shared.get()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:  # called from a coroutine on that very loop: waiting on it would deadlock
        return run_sync(coro)
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
