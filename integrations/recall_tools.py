"""The recall and remember tools over one ``AgentMemory`` (sync and async).

The tools take only what the model should decide (``query``, recall's optional ``min_score``,
``text``); whose memory is used comes from the run: the injected ``ToolRuntime``
(``create_agent``, ``ToolNode``) gives the runtime context and the config, and a direct
``tool.invoke(..., config)`` gives the config.

- ``recall(query, min_score=None)``: content = numbered evidence lines ``[2024-03-10 | S1:4]
  Jonas: …`` (dates and turn ids), or "Nothing relevant in memory …" when no item reaches the
  relevance floor (``min_score`` in [0, 1]; default the settings' floor; outside it the tool
  returns the error to the model); artifact = a dict with the evidence, the navigation path
  (step, node, SKIP/EXPAND/ANSWER, scores), subgoals and the raw trace.
- ``remember(text)``: checks the note (text, limits, namespace: a refused one is the error,
  to the model) and queues it, returning at once; the write happens on the memory's
  background thread (``flush`` waits for it; a later ``recall`` in the same namespace waits
  for it too). A background write that failed is told to the next tool call on the namespace.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from langchain.tools import ToolRuntime
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, ToolException

from memgraph_agents.api.overrides import check_min_score
from memgraph_agents.errors import ConfigError
from memgraph_agents.integrations.agent_memory import AgentMemory, MemoryWriteError, MissingUserError
from memgraph_agents.storage.namespaces import NamespaceError

RECALL_DESCRIPTION = (
    "Search your long-term memory of past conversations with this user. Use it whenever the "
    "answer may depend on something said before (names, dates, plans, preferences, events). "
    "Input: a self-contained question or keywords. Returns dated evidence lines "
    "'[date | turn ids] speaker: text'; cite the turn ids you rely on."
)
# The tool argument's description (LangChain reads the string of ``Annotated``).
MinScore = Annotated[
    float | None,
    "optional relevance floor in [0, 1]: leave it out for the default; raise it to get only close matches",
]
REMEMBER_DESCRIPTION = (
    "Save one fact to long-term memory so it can be recalled in later conversations. Input: a "
    "short, self-contained statement with names and dates (e.g. 'The user's sister Eva moved "
    "to Porto in May 2024'). Says 'Saved' once it is written; when memory is busy, that the note "
    "is queued (the next memory call then says whether it was saved)."
)


def _runtime_parts(runtime: Any, config: Any) -> tuple[Any, dict]:
    if runtime is not None:
        return getattr(runtime, "context", None), dict(getattr(runtime, "config", None) or config or {})
    return None, dict(config or {})


def _user_error(exc: Exception, mem: AgentMemory, context: Any, config: Any) -> ToolException:
    """The call's error for the model, with any earlier write that failed (said once)."""
    failed = mem.untold_failures(context, config)
    return ToolException(f"memory unavailable: {exc}" + ("; also: " + "; ".join(failed) if failed else ""))


def _floor(min_score: Any) -> float | None:
    """The call's relevance floor, checked before any memory is read (a bad one: the error, to the model)."""
    try:
        return check_min_score(min_score)
    except ConfigError as exc:
        raise ToolException(str(exc)) from exc


def recall_tool(mem: AgentMemory, *, name: str = "recall") -> StructuredTool:
    """``recall(query, min_score=None)`` over ``mem``: evidence lines for the model, the details
    as the artifact."""

    # ``runtime: ToolRuntime = None`` / ``config: RunnableConfig = None``, not ``X | None``: LangChain
    # injects these parameters only when the annotation is exactly the class (mypy: implicit_optional).
    def recall(
        query: str,
        min_score: MinScore = None,
        runtime: ToolRuntime[Any, Any] = None,
        config: RunnableConfig = None,
    ) -> tuple[str, dict]:
        floor = _floor(min_score)
        context, conf = _runtime_parts(runtime, config)
        try:
            result = mem.recall(query, context=context, config=conf, min_score=floor)
        except (MissingUserError, NamespaceError, ValueError) as exc:
            raise _user_error(exc, mem, context, conf) from exc
        return result.content(), result.artifact()

    async def arecall(
        query: str,
        min_score: MinScore = None,
        runtime: ToolRuntime[Any, Any] = None,
        config: RunnableConfig = None,
    ) -> tuple[str, dict]:
        floor = _floor(min_score)
        context, conf = _runtime_parts(runtime, config)
        try:
            result = await mem.arecall(query, context=context, config=conf, min_score=floor)
        except (MissingUserError, NamespaceError, ValueError) as exc:
            raise _user_error(exc, mem, context, conf) from exc
        return result.content(), result.artifact()

    return StructuredTool.from_function(
        func=recall,
        coroutine=arecall,
        name=name,
        description=RECALL_DESCRIPTION,
        response_format="content_and_artifact",
        handle_tool_error=True,
    )


def remember_reply(info: dict) -> str:
    """What ``remember`` tells the model: saved (committed), or plainly queued; then how
    earlier writes ended."""
    if info.get("saved"):
        said = "Saved to long-term memory."
    else:
        said = (
            "Not saved yet: the note is queued behind another writer; the next memory call says whether it was saved."
        )
    done = info.get("saved_writes") or []
    if done:
        said += " Also: " + "; ".join(done) + "."
    failed = info.get("failed_writes") or []
    return (f"{said} Warning: " + "; ".join(failed) + ".") if failed else said


def remember_tool(mem: AgentMemory, *, name: str = "remember", speaker: str = "user") -> StructuredTool:
    """``remember(text)`` over ``mem``: writes a dated note, saying "saved" only once it is committed."""

    def remember(text: str, runtime: ToolRuntime[Any, Any] = None, config: RunnableConfig = None) -> tuple[str, dict]:
        context, conf = _runtime_parts(runtime, config)
        try:
            info = mem.remember(text, context=context, config=conf, speaker=speaker)
        except (MissingUserError, NamespaceError, ValueError) as exc:
            raise _user_error(exc, mem, context, conf) from exc
        except MemoryWriteError as exc:  # the write itself failed: said, never "saved"
            raise ToolException(f"Not saved to long-term memory: {exc}") from exc
        return remember_reply(info), info

    async def aremember(
        text: str, runtime: ToolRuntime[Any, Any] = None, config: RunnableConfig = None
    ) -> tuple[str, dict]:
        return await asyncio.to_thread(remember, text, runtime, config)  # queues; may open the store

    return StructuredTool.from_function(
        func=remember,
        coroutine=aremember,
        name=name,
        description=REMEMBER_DESCRIPTION,
        response_format="content_and_artifact",
        handle_tool_error=True,
    )
