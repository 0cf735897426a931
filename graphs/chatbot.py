"""The example chatbot: a ``create_agent`` agent with long-term memory (recall / remember tools,
every finished turn written to memory in the background).

    START → model ⇄ tools → (turn writer) → END

The chat model is chosen per run from the context (``llm``, else ``MEMGRAPH_LLM``): any
``provider:model`` that ``init_chat_model`` knows with its LangChain package installed
(``openai:``: the ``[openai]`` extra), including OpenAI-compatible servers through ``OPENAI_BASE_URL``. Without one the chatbot runs **offline**: an
``OfflineRecallModel`` recalls evidence for each message and shows it instead of chatting.

Compiled without a checkpointer (``langgraph dev`` brings its own); the run context
(``ChatbotContext``: ``user_id`` plus the ``MemoryContext`` fields) is editable in Studio and
reaches every part of the run through ``runtime.settings_for``: the chat model, ``recall``
(``preset``, ``retriever``, ``top_k``) and the turn writer (``preset``, ``llm``, ``data_dir``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from pydantic import Field

from memgraph_agents.integrations import AgentMemory, MemoryMiddleware, OfflineRecallModel, create_memory_tools
from memgraph_agents.runtime import MemoryContext, get_chat_model

SYSTEM_PROMPT = (
    "You are a friendly assistant with long-term memory of your past conversations with this user. "
    "Before answering anything that may depend on earlier conversations (names, dates, plans, "
    "preferences), call `recall` and ground your answer in the evidence, mentioning dates when useful. "
    "When the user tells you something worth keeping, you may call `remember` with a short, "
    "self-contained statement. Be concise."
)


@dataclass
class ChatbotContext(MemoryContext):
    """Whose memory (``user_id``) and the memory / model settings (empty = from env)."""

    user_id: Annotated[
        str | None,
        Field(
            description="Whose memory: the namespace is derived from this id (unset or empty: the context's namespace)"
        ),
    ] = None
    user_name: Annotated[str, Field(description="How the user appears in memory ('user' when empty)")] = ""

    def __post_init__(self) -> None:
        # Studio's form sends an empty box as "": here that is "no user" (the context's namespace),
        # as its description says; elsewhere an empty id is refused (``run_user_id``).
        if isinstance(self.user_id, str) and not self.user_id.strip():
            self.user_id = None


def _without_empty_id(values: Any, key: str) -> Any:
    """``values`` (a mapping) without an empty ``key``: a form's empty box is "not given"."""
    if isinstance(values, Mapping) and isinstance(values.get(key), str) and not values[key].strip():
        return {k: v for k, v in values.items() if k != key}
    return values


class ChatbotMemory(AgentMemory):
    """The chatbot's memory: a run whose user id is an empty string (Studio's form, whose
    context a server passes as a dict and copies into ``configurable``) has no user: the
    context's namespace is used, as ``ChatbotContext.user_id`` says."""

    def run_inputs(self, context: Any, config: dict | None) -> tuple[Any, dict | None]:
        if config is not None:
            config = {**config, "configurable": _without_empty_id(config.get("configurable"), self.user_key)}
        return _without_empty_id(context, self.user_key), config


class ModelFromContext(AgentMiddleware):
    """Use the run's chat model (context ``llm``, else ``MEMGRAPH_LLM``); offline: keep the stand-in."""

    def __init__(self, memory: AgentMemory) -> None:
        super().__init__()
        self.memory = memory

    def _model(self, request: Any):
        settings = self.memory.settings_for(getattr(request.runtime, "context", None))
        return None if settings.offline else get_chat_model(settings)

    def wrap_model_call(self, request, handler):
        model = self._model(request)
        return handler(request if model is None else request.override(model=model))

    async def awrap_model_call(self, request, handler):
        model = self._model(request)
        return await handler(request if model is None else request.override(model=model))


class ChatTurnWriter(MemoryMiddleware):
    """The turn writer, naming the user by the run context's ``user_name``."""

    def names_for(self, runtime: Any) -> dict[str, str] | None:
        name = getattr(getattr(runtime, "context", None), "user_name", "")
        return {"user": name} if name else None


def build_chatbot_graph(memory: AgentMemory | None = None, *, model: Any = None, checkpointer: Any = None):
    """The chatbot over ``memory`` (default: settings from ``MEMGRAPH_*``); ``model`` fixes the
    chat model (tests), otherwise it is chosen per run (see the module docstring)."""
    memory = memory or ChatbotMemory()
    tools = create_memory_tools(memory=memory)
    middleware: list[AgentMiddleware] = [] if model is not None else [ModelFromContext(memory)]
    middleware.append(ChatTurnWriter(memory))
    return create_agent(
        model or OfflineRecallModel(),
        tools=list(tools),
        middleware=middleware,
        system_prompt=SYSTEM_PROMPT,
        context_schema=ChatbotContext,
        checkpointer=checkpointer,
        name="chatbot",
    )


memory = ChatbotMemory()
graph = build_chatbot_graph(memory)
