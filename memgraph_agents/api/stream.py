"""``Memory.astream``: the navigator graph's run on a namespace, streamed as it happens.

The run is the one every door makes (``api.ops.navigation``'s parameters: the settings', the
settings' chat model, the caller's run config); it runs on the public API's background loop
(where its store and chat model live) and its chunks are handed to the caller's loop as they
come: ``("custom", {"navigator": event})`` for every decision, ``("updates", {node: update})``
after every node, then ``("result", NavigationResult)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

from memgraph_agents.aio import background
from memgraph_agents.config import Settings
from memgraph_agents.errors import InputError

_END = object()


async def _run(settings: Settings, namespace: str, question: str, k: int, config: Mapping[str, Any] | None):
    from memgraph_agents.api.ops import open_store
    from memgraph_agents.navigator import NavigatorContext, astream_navigate
    from memgraph_agents.registry import is_navigator, resolve
    from memgraph_agents.runtime import get_chat_model

    if not isinstance(question, str) or not question.strip():
        raise InputError("the question is empty")
    settings.limits.check_query(question)
    store = await asyncio.to_thread(open_store, settings, namespace)
    llm = get_chat_model(settings)
    preset = resolve(settings.default_retriever)[1] if is_navigator(settings.default_retriever) else {}
    policy = "llm" if llm is not None else "offline"
    ctx = NavigatorContext.from_settings(settings.override(namespace=namespace), policy=policy, **preset)
    async for chunk in astream_navigate(question, store, context=ctx, llm=llm, k=k, config=config):
        yield chunk


async def astream_navigation(
    settings: Settings, namespace: str, question: str, k: int, config: Mapping[str, Any] | None = None
) -> AsyncIterator[tuple[str, Any]]:
    """The chunks of one navigator run, produced on the background loop, yielded on the caller's."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()

    async def produce() -> None:
        try:
            async for chunk in _run(settings, namespace, question, k, config):
                loop.call_soon_threadsafe(queue.put_nowait, chunk)
        except BaseException as exc:  # handed to the caller, raised there
            loop.call_soon_threadsafe(queue.put_nowait, exc)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, _END)

    future = background.submit(produce())
    try:
        while (item := await queue.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        future.cancel()
