"""``create_memory_tools``: recall and remember as LangChain tools, plus the memory behind them.

    memory = create_memory_tools()                  # settings from MEMGRAPH_* variables
    agent = create_agent(model, tools=memory, middleware=[memory.turn_writer()])
    agent.invoke({"messages": [...]}, {"configurable": {"user_id": "alice"}})
    memory.flush()                                  # tests / shutdown: wait for background writes

The tools themselves are built in ``integrations.recall_tools``; what they read and write is
``AgentMemory`` over ``Memory`` (same settings, same retriever rule and k as every door).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.tools import StructuredTool

from memgraph_agents.config import Settings
from memgraph_agents.integrations.agent_memory import AgentMemory
from memgraph_agents.integrations.hooks import MemoryMiddleware
from memgraph_agents.integrations.recall_tools import recall_tool, remember_tool
from memgraph_agents.integrations.retriever import MemoryRetriever
from memgraph_agents.integrations.turn_rule import TurnRule
from memgraph_agents.resources import bind, model_overrides
from memgraph_agents.retrieval.protocols import Retriever
from memgraph_agents.runtime import memory_resources


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

    def turn_writer(self, **kwargs: Any) -> MemoryMiddleware:
        """A ``create_agent`` middleware that writes every finished chat turn to memory."""
        return MemoryMiddleware(self.memory, **kwargs)

    def retriever(self, namespace: str | None = None, *, user_id: str | None = None, **kwargs: Any):
        """A LangChain ``BaseRetriever`` over the same memory (``user_id``: that user's memory,
        mapped as the tools map it)."""

        return MemoryRetriever(memory=self.memory, namespace=namespace, user_id=user_id, **kwargs)


def create_memory_tools(
    settings: Settings | None = None,
    *,
    retriever: str | Retriever | None = None,
    k: int | None = None,
    user_key: str = "user_id",
    default_namespace: str | None = "",
    namespace_prefix: str = "",
    include_remember: bool = True,
    memory: AgentMemory | None = None,
    recall_name: str = "recall",
    remember_name: str = "remember",
    remember_speaker: str = "user",
    embeddings: Any = None,
    llm: Any = None,
    agent_id: str | None = None,
    shared_namespaces: Sequence[str] = (),
    turn_rule: TurnRule | None = None,
) -> MemoryTools:
    """Recall and remember tools over one ``AgentMemory`` (see the module docstring).

    ``settings``: where memory lives (default: ``MEMGRAPH_*`` variables). ``retriever``: any
    retriever or preset name (``oneshot``, ``navigator``, ``ppr``, ``hybrid``…) or a callable
    ``(query, store, *, k)``; default: the preset's retriever, else ``settings.retriever``
    (``navigator``), as at every door. ``k``: evidence items (default
    ``settings.top_k``, 10). A run's context (``MemoryContext`` fields) overrides both.
    ``user_key``: the context attribute / configurable key holding the user id.
    ``default_namespace``: used when a run names no user (``""`` = ``settings.namespace``;
    ``None`` = refuse such runs). ``embeddings`` / ``llm``: a spec or a LangChain model object,
    over ``settings`` (the chat model is also the one recall's LLM steps use).
    ``agent_id`` / ``shared_namespaces``: scopes ``recall`` also reads (a run's ``agent_id`` /
    ``shared_namespace`` replace them; ``integrations.run_scopes``). ``turn_rule``: which chat
    messages the turn writer stores (``integrations.turn_rule``; default ``TurnRule()``).
    """
    if memory is not None:  # its own settings, retriever, k and scopes: another value here would be ignored
        given = {
            name: value
            for name, value, default in (
                ("settings", None if settings == memory._settings else settings, None),  # its own: fine
                ("retriever", retriever, None),
                ("k", k, None),
                ("user_key", user_key, "user_id"),
                ("default_namespace", default_namespace, ""),
                ("namespace_prefix", namespace_prefix, ""),
                ("embeddings", embeddings, None),
                ("llm", llm, None),
                ("agent_id", agent_id, None),
                ("shared_namespaces", tuple(shared_namespaces), ()),
                ("turn_rule", turn_rule, None),
            )
            if value != default
        }
        if given:
            raise TypeError(
                f"create_memory_tools(memory=...) takes the AgentMemory's own {', '.join(given)}: "
                "pass them to AgentMemory(...) instead"
            )
    if embeddings is not None or llm is not None:  # model objects: held by the tools' memory (resources)
        res, _ = memory_resources(settings, embeddings, llm)
        settings = bind((settings or Settings.load()).override(**model_overrides(embeddings, llm, res)), res)
    mem = memory or AgentMemory(
        settings,
        retriever=retriever,
        k=k,
        user_key=user_key,
        default_namespace=default_namespace,
        namespace_prefix=namespace_prefix,
        agent_id=agent_id,
        shared_namespaces=shared_namespaces,
        turn_rule=turn_rule,
        remember_tools=(remember_name,) if include_remember else (),
    )
    remember = remember_tool(mem, name=remember_name, speaker=remember_speaker) if include_remember else None
    return MemoryTools(mem, recall_tool(mem, name=recall_name), remember)
