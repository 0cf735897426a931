"""``Memory.astream``: the very ``ask`` request (its filters, gate, retriever, user), streamed.

The request runs on the public API's background loop as ``ask`` runs it; while it runs, a
stream sink (a context variable of that run) receives the navigator graph's chunks as they
come — ``("custom", {"navigator": event})`` for every decision, ``("updates", {node: update})``
after every node — and they are handed to the caller's loop. The last chunk is ``("result",
AskResult)``: the evidence after the relevance gate, the answer, the trace, and the navigator's
own result in ``.navigation``. A retriever that is not the navigator streams its result alone.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from typing import Any

from memgraph_agents.aio import background

Chunk = tuple[str, Any]
Sink = Callable[[Chunk], None]

_END = object()
_SINK: contextvars.ContextVar[Sink | None] = contextvars.ContextVar("memgraph_stream_sink", default=None)


def stream_sink() -> Sink | None:
    """Where this run's navigator chunks go (``None``: nobody streams it)."""
    return _SINK.get()


async def streamed_navigation(sink: Sink, question: str, store, context, llm, k: int, config: Mapping[str, Any] | None):
    """The navigator run ``anavigate`` makes, with its chunks handed to ``sink``; its result."""
    # lazy: the navigator is LangGraph's runtime: only when a search is streamed
    from memgraph_agents.navigator import astream_navigate

    result = None
    async for mode, chunk in astream_navigate(question, store, context=context, llm=llm, k=k, config=config):
        if mode == "result":
            result = chunk
        else:
            sink((mode, chunk))
    return result


async def astream_of(make: Callable[[], Coroutine[Any, Any, Any]]) -> AsyncIterator[Chunk]:
    """The chunks of ``make()`` run on the background loop with a sink, yielded on the caller's
    loop, then ``("result", what it returned)``; its error is raised here."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def put(item: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    async def produce() -> None:
        try:
            put(("result", await make()))
        except BaseException as exc:  # handed to the caller, raised there
            put(exc)
        finally:
            put(_END)

    context = contextvars.copy_context()
    context.run(_SINK.set, put)
    future = background.submit(produce(), context=context)
    try:
        while (item := await queue.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        future.cancel()
