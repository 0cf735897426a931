"""Sync/async bridges: run a coroutine from sync code, whether or not an event loop is already
running; run blocking work off the event loop (``off_loop``); the shared background loop of
the public API (``background``)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code, with the caller's context variables.

    Without a running loop in this thread it runs on the shared background loop: a new event
    loop per call (and its executor threads) cost more than a chat-turn write's own work, and
    LLM clients are bound to the loop that made them. Inside a running loop (Jupyter, an async
    agent) it runs on a private loop in a worker thread instead (the caller's loop is busy)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return background.run(coro, context=contextvars.copy_context())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(contextvars.copy_context().run, asyncio.run, coro).result()


P = ParamSpec("P")


# Set while ``run_off_loop`` drives a coroutine on a worker thread: blocking work runs right
# there, with no further hand-off.
_OFF_LOOP: contextvars.ContextVar[bool] = contextvars.ContextVar("memgraph_off_loop", default=False)


async def off_loop(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run blocking ``fn`` (SQLite, Chroma, embeddings) in the loop's default executor.

    An async node must never block its event loop: a server such as ``langgraph dev`` runs
    every other request on it. ``asyncio.to_thread`` copies the context variables, so
    LangGraph's run config and stream writer stay visible in the worker thread. Inside
    ``run_off_loop`` there is no event loop to keep free: ``fn`` runs right there.
    """
    if _OFF_LOOP.get():
        return fn(*args, **kwargs)
    return await asyncio.to_thread(fn, *args, **kwargs)


class NeedsLoopError(RuntimeError):
    """A coroutine given to ``run_off_loop`` waited for something (it needs an event loop)."""


async def run_off_loop(coro_fn: Callable[P, Coroutine[Any, Any, T]], *args: P.args, **kwargs: P.kwargs) -> T:
    """Await ``coro_fn(*args)`` driven to its end on a worker thread, in one hand-off, with no
    event loop there: its blocking steps (``off_loop``) run inline (a chat write's dozen small
    steps cost more in hand-offs than in work), and no loop runs in that thread (a server's
    blocking-call detector, such as ``langgraph dev``'s, sees plain worker-thread work). Only
    for coroutines that never wait (offline construction: no LLM call, no I/O awaited); one
    that does raises ``NeedsLoopError`` (or asyncio's "no running event loop") there."""

    def run() -> T:
        _OFF_LOOP.set(True)  # this thread's copy of the context only
        coro = coro_fn(*args, **kwargs)
        try:
            coro.send(None)
        except StopIteration as done:
            return done.value
        coro.close()
        raise NeedsLoopError(f"{getattr(coro_fn, '__name__', coro_fn)!s} waited for something: it needs an event loop")

    return await asyncio.to_thread(run)


class BackgroundLoop:
    """One event loop on a daemon thread, shared by the process (the public API's async work).

    ``run`` blocks the calling thread until a coroutine finished there; ``arun`` awaits it
    from another event loop without blocking that loop. One loop for every call: no event
    loop is created per call, and CPU-bound steps of a graph run there, not in the caller's
    loop.
    """

    def __init__(self, name: str = "memgraph-loop") -> None:
        self.name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                self._thread = threading.Thread(target=serve, name=self.name, daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    def submit(
        self, coro: Coroutine[Any, Any, T], *, context: contextvars.Context | None = None
    ) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the loop; with ``context``, its task runs in that context."""
        loop = self.loop()
        if context is None:
            return asyncio.run_coroutine_threadsafe(coro, loop)

        async def in_context() -> T:
            return await loop.create_task(coro, context=context)

        return asyncio.run_coroutine_threadsafe(in_context(), loop)

    def run(self, coro: Coroutine[Any, Any, T], *, context: contextvars.Context | None = None) -> T:
        if threading.current_thread() is self._thread:
            # Called from a coroutine on this very loop: waiting here would deadlock.
            coro.close()
            raise RuntimeError("blocking memgraph call inside its own event loop: use the async method")
        future = self.submit(coro, context=context)
        try:
            return future.result()
        except BaseException:
            future.cancel()  # Ctrl-C in the caller stops the work too (a write is crash-safe)
            raise

    async def arun(self, coro: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(self.submit(coro))


background = BackgroundLoop()
