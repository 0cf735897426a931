"""Write every finished chat turn of a LangGraph agent into memory.

- ``MemoryMiddleware``: for ``langchain.agents.create_agent``; its ``after_agent`` hook runs
  once per finished turn (after the last model reply). With ``tools=True`` it also gives
  the agent the recall / remember tools, so one line adds memory to an agent.
- ``memory_writer_node``: a plain node for hand-built ``StateGraph`` agents (``messages``
  state): put it before ``END``.

Both only queue the write (the background writer ingests it), so the reply is not delayed.
The namespace comes from the run exactly as for the tools (user id in the runtime context
or ``config["configurable"]``); the chat thread (``configurable.thread_id``) becomes
sessions ``<thread>-s1``, ``-s2`` …
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import AgentState
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.runtime import Runtime

from memgraph_agents.integrations.agent_memory import AgentMemory, MissingUserError
from memgraph_agents.integrations.recall_tools import recall_tool, remember_tool

log = logging.getLogger(__name__)


def _config() -> dict:
    try:
        return dict(get_config() or {})
    except RuntimeError:
        return {}


def _write(memory: AgentMemory, state: Any, context: Any, config: dict, speaker_names: dict | None) -> None:
    messages = (state or {}).get("messages") or []
    try:
        memory.write_messages(messages, context=context, config=config, speaker_names=speaker_names)
    except MissingUserError as exc:  # no user: nothing to write to, the chat itself goes on
        log.warning("memgraph: chat turn not written to memory: %s", exc)


class MemoryMiddleware(AgentMiddleware):
    """``create_agent`` middleware: write each finished turn; optionally provide the tools."""

    state_schema = AgentState

    def __init__(
        self,
        memory: AgentMemory | None = None,
        *,
        tools: bool = False,
        speaker_names: dict[str, str] | None = None,
    ) -> None:
        """``memory``: default an ``AgentMemory`` on ``MEMGRAPH_*`` settings. ``tools``: also give
        the agent ``recall`` and ``remember`` over the same memory."""
        super().__init__()
        self.memory = memory or AgentMemory()
        self.speaker_names = speaker_names
        self.tools = [recall_tool(self.memory), remember_tool(self.memory)] if tools else []

    @property
    def name(self) -> str:  # the graph node is "memory.after_agent"
        return "memory"

    def names_for(self, runtime: Any) -> dict[str, str] | None:
        """How this run's speakers appear in memory (a subclass may read them from the run;
        never stored on the middleware, which concurrent runs share)."""
        return self.speaker_names

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        _write(self.memory, state, getattr(runtime, "context", None), _config(), self.names_for(runtime))
        return None

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        # resolving the namespace may open its store (SQLite): off the event loop
        await asyncio.to_thread(
            _write, self.memory, state, getattr(runtime, "context", None), _config(), self.names_for(runtime)
        )
        return None

    def flush(self, timeout: float | None = None) -> list[Any]:
        return self.memory.flush(timeout)


def memory_writer_node(memory: AgentMemory, *, speaker_names: dict[str, str] | None = None):
    """A ``StateGraph`` node ``(state, config, runtime) -> {}`` that writes the chat so far."""

    def write_turn(state: dict, config: RunnableConfig, runtime: Runtime) -> dict:
        _write(memory, state, getattr(runtime, "context", None), dict(config or {}), speaker_names)
        return {}

    write_turn.__name__ = "write_memory"
    return write_turn
