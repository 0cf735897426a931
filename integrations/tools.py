"""``create_memory_tools``: recall and remember as LangChain tools (sync and async).

    memory = create_memory_tools()                  # settings from MEMGRAPH_* variables
    agent = create_agent(model, tools=memory, middleware=[memory.turn_writer()])
    agent.invoke({"messages": [...]}, {"configurable": {"user_id": "alice"}})
    memory.flush()                                  # tests / shutdown: wait for background writes

The tools take only what the model should decide (``query``, ``text``); whose memory is used
comes from the run: the injected ``ToolRuntime`` (``create_agent``, ``ToolNode``) gives the
runtime context and the config, and a direct ``tool.invoke(..., config)`` gives the config.

- ``recall(query)``: content = numbered evidence lines ``[2024-03-10 | S1:4] Jonas: …`` (dates
  and turn ids); artifact = a dict with the evidence, the navigation path (step, node,
  SKIP/EXPAND/ANSWER, scores), subgoals and the raw trace.
- ``remember(text)``: queues a dated note and returns at once; the write happens on the
  memory's background thread (``flush`` waits for it; a later ``recall`` in the same
  namespace waits for it too).
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain.tools import ToolRuntime
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, ToolException

from memgraph_agents.config import Settings
from memgraph_agents.integrations.agent_memory import AgentMemory, MissingUserError
from memgraph_agents.retrieval.protocols import Retriever
from memgraph_agents.storage.namespaces import NamespaceError

RECALL_DESCRIPTION = (
    "Search your long-term memory of past conversations with this user. Use it whenever the "
    "answer may depend on something said before (names, dates, plans, preferences, events). "
    "Input: a self-contained question or keywords. Returns dated evidence lines "
    "'[date | turn ids] speaker: text'; cite the turn ids you rely on."
)
REMEMBER_DESCRIPTION = (
    "Save one fact to long-term memory so it can be recalled in later conversations. Input: a "
    "short, self-contained statement with names and dates (e.g. 'The user's sister Eva moved "
    "to Porto in May 2024'). Returns immediately; the memory is written in the background."
)


class MemoryTools(list):
    """``[recall, remember]`` (pass it as ``tools=``), plus the memory behind them.

    Attributes: ``recall``, ``remember`` (the tools), ``memory`` (``AgentMemory``).
    """

    def __init__(self, memory: AgentMemory, recall: StructuredTool, remember: StructuredTool | None) -> None:
        super().__init__([t for t in (recall, remember) if t is not None])
        self.memory = memory
        self.recall = recall
        self.remember = remember

    def flush(self, timeout: float | None = None) -> list[Any]:
        """Wait for background writes (tests, shutdown); raises ``MemoryWriteError`` on failure."""
        return self.memory.flush(timeout)

    async def aflush(self, timeout: float | None = None) -> list[Any]:
        return await self.memory.aflush(timeout)

    def turn_writer(self, **kwargs: Any):
        """A ``create_agent`` middleware that writes every finished chat turn to memory."""
        from memgraph_agents.integrations.hooks import MemoryMiddleware

        return MemoryMiddleware(self.memory, **kwargs)

    def retriever(self, namespace: str | None = None, **kwargs: Any):
        """A LangChain ``BaseRetriever`` over the same memory."""
        from memgraph_agents.integrations.retriever import MemoryRetriever

        return MemoryRetriever(memory=self.memory, namespace=namespace, **kwargs)


def _runtime_parts(runtime: Any, config: Any) -> tuple[Any, dict]:
    if runtime is not None:
        return getattr(runtime, "context", None), dict(getattr(runtime, "config", None) or config or {})
    return None, dict(config or {})


def _user_error(exc: Exception) -> ToolException:
    return ToolException(f"memory unavailable: {exc}")


def create_memory_tools(
    settings: Settings | None = None,
    *,
    retriever: str | Retriever = "navigator",
    k: int = 5,
    user_key: str = "user_id",
    default_namespace: str | None = "",
    namespace_prefix: str = "",
    include_remember: bool = True,
    memory: AgentMemory | None = None,
    recall_name: str = "recall",
    remember_name: str = "remember",
    remember_speaker: str = "user",
    navigator_llm: Any = None,
) -> MemoryTools:
    """Recall and remember tools over one ``AgentMemory`` (see the module docstring).

    ``settings``: where memory lives (default: ``MEMGRAPH_*`` variables). ``retriever``: any
    registered name (``navigator``, ``ppr``, ``hybrid``, ``dense``, ``bm25``, …) or a callable
    ``(query, store, *, k)``. ``user_key``: the context attribute / configurable key holding
    the user id. ``default_namespace``: used when a run names no user (``""`` =
    ``settings.namespace``; ``None`` = refuse such runs).
    """
    mem = memory or AgentMemory(
        settings,
        retriever=retriever,
        k=k,
        user_key=user_key,
        default_namespace=default_namespace,
        namespace_prefix=namespace_prefix,
        navigator_llm=navigator_llm,
    )

    # ``runtime: ToolRuntime = None`` / ``config: RunnableConfig = None``, not ``X | None``: LangChain
    # injects these parameters only when the annotation is exactly the class (mypy: implicit_optional).
    def recall(query: str, runtime: ToolRuntime[Any, Any] = None, config: RunnableConfig = None) -> tuple[str, dict]:
        context, conf = _runtime_parts(runtime, config)
        try:
            result = mem.recall(query, context=context, config=conf)
        except (MissingUserError, NamespaceError, ValueError) as exc:
            raise _user_error(exc) from exc
        return result.content(), result.artifact()

    async def arecall(
        query: str, runtime: ToolRuntime[Any, Any] = None, config: RunnableConfig = None
    ) -> tuple[str, dict]:
        context, conf = _runtime_parts(runtime, config)
        try:
            result = await mem.arecall(query, context=context, config=conf)
        except (MissingUserError, NamespaceError, ValueError) as exc:
            raise _user_error(exc) from exc
        return result.content(), result.artifact()

    def remember(text: str, runtime: ToolRuntime[Any, Any] = None, config: RunnableConfig = None) -> tuple[str, dict]:
        context, conf = _runtime_parts(runtime, config)
        try:
            info = mem.remember(text, context=context, config=conf, speaker=remember_speaker)
        except (MissingUserError, NamespaceError, ValueError) as exc:
            raise _user_error(exc) from exc
        return "Saved to long-term memory.", info

    async def aremember(
        text: str, runtime: ToolRuntime[Any, Any] = None, config: RunnableConfig = None
    ) -> tuple[str, dict]:
        return await asyncio.to_thread(remember, text, runtime, config)  # queues; may open the store

    recall_tool = StructuredTool.from_function(
        func=recall,
        coroutine=arecall,
        name=recall_name,
        description=RECALL_DESCRIPTION,
        response_format="content_and_artifact",
        handle_tool_error=True,
    )
    remember_tool = None
    if include_remember:
        remember_tool = StructuredTool.from_function(
            func=remember,
            coroutine=aremember,
            name=remember_name,
            description=REMEMBER_DESCRIPTION,
            response_format="content_and_artifact",
            handle_tool_error=True,
        )
    return MemoryTools(mem, recall_tool, remember_tool)
