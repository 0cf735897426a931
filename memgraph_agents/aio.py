"""Sync/async bridges: run a coroutine from sync code; run blocking work off the event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Inside a running loop (Jupyter, an async agent): run on a private loop in a worker thread.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


P = ParamSpec("P")


async def off_loop(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run blocking ``fn`` (SQLite, Chroma, embeddings) in the loop's default executor.

    An async node must never block its event loop: a server such as ``langgraph dev`` runs
    every other request on it. ``asyncio.to_thread`` copies the context variables, so
    LangGraph's run config and stream writer stay visible in the worker thread.
    """
    return await asyncio.to_thread(fn, *args, **kwargs)
