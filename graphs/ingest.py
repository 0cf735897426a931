"""The ingest graph exported to LangGraph Studio: one run adds one session to a namespace,
exactly as ``Memory.add`` does.

    START -> validate -> ingest -> END

``validate`` turns the JSON input into a one-session conversation and checks it before
anything is opened: its structure and dates, every relative time expression, the input
limits (``MEMGRAPH_MAX_TURN_CHARS``…) and the namespace name; a bad input fails the run with
one ``InputError`` line and nothing stored changes. ``ingest`` is ``Memory.aadd``: the
namespace's ingest lock held from the check of the session to its commit, the ingest pipeline
(``memgraph_agents.construct.pipeline``: check, normalise, segment, relate, fuse, topics,
sentences, the preset's layers, commit), a failed first write leaving no empty namespace.

State is plain JSON (the session in, the ``AddReport`` out), so a checkpointer stores and
restores it as is. The run context (``MemoryContext``: namespace, data dir, models, preset)
resolves to ``Settings`` through ``MemoryContext.settings`` like every other door.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from memgraph_agents.api import Memory
from memgraph_agents.errors import InputError
from memgraph_agents.ingest_plan import plan_ingest
from memgraph_agents.loaders.errors import build
from memgraph_agents.model.conversation import Conversation, Session
from memgraph_agents.runtime import MemoryContext


class IngestInput(TypedDict, total=False):
    session: dict[str, Any]  # {id, date, turns: [{id, speaker, text}], participants?}
    speakers: list[str]  # the conversation's participants (default: the session's, else its speakers)
    conversation_id: str  # the conversation the session belongs to (default: the namespace)
    replace: bool  # replace a stored version that differs (else SessionConflictError)
    rebuild: bool  # rebuild an unchanged session stored with another builder or preset


class IngestState(IngestInput, total=False):
    conversation: dict[str, Any]  # the validated one-session conversation (JSON)
    report: dict[str, Any]  # what was stored: ``AddReport`` as JSON


def validate(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    """The input as a validated one-session conversation (``InputError`` before anything opens)."""
    settings = (runtime.context or MemoryContext()).settings()
    raw = state.get("session")
    if not isinstance(raw, dict):
        raise InputError("the input needs a 'session': {id, date, turns: [{id, speaker, text}]}")
    session = build(Session, "session", **raw)
    speakers = (
        state.get("speakers") or list(session.participants) or list(dict.fromkeys(t.speaker for t in session.turns))
    )
    conversation = build(
        Conversation,
        "conversation",
        id=state.get("conversation_id") or settings.namespace,
        sessions=[session],
        speakers=speakers,
    )
    ((checked, _),) = plan_ingest([conversation], settings, settings.namespace)  # limits, dates, namespace
    return {"conversation": checked.model_dump(mode="json")}


async def ingest(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    """``Memory.aadd`` of the validated conversation (lock, pipeline, commit)."""
    memory = Memory(settings=(runtime.context or MemoryContext()).settings())
    try:
        report = await memory.aadd(
            Conversation.model_validate(state["conversation"]),
            replace=bool(state.get("replace")),
            rebuild=bool(state.get("rebuild")),
        )
    finally:  # its stores, when it opened its own (a run's settings may carry a Memory's: then a view)
        memory.close()
    return {"report": report.model_dump(mode="json")}


def build_ingest_graph(checkpointer: Any = None):
    g = StateGraph(IngestState, input_schema=IngestInput, context_schema=MemoryContext)
    g.add_node("validate", validate)
    g.add_node("ingest", ingest)
    g.add_edge(START, "validate")
    g.add_edge("validate", "ingest")
    g.add_edge("ingest", END)
    return g.compile(checkpointer=checkpointer, name="ingest")


graph = build_ingest_graph()
