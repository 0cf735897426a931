"""Graphs as ``langgraph.json`` exports them for ``langgraph dev`` / LangGraph Studio.

Studio and the HTTP API send plain JSON. The ingest graph's nodes expect a ``Session``
object, so its export puts a ``parse`` step in front (JSON session → ``Session``, speakers
defaulting to the session's participants) and runs the ingest graph unchanged as a
subgraph. The navigator, retrieval and chatbot graphs take JSON as they are. ``make_store``
is the server's store (``MemgraphStore``).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from memgraph_agents.model.conversation import Session
from memgraph_agents.runtime import MemoryContext


def parse(state: dict[str, Any]) -> dict[str, Any]:
    """JSON input → the ingest graph's input (a ``Session`` and its speakers)."""
    raw = state.get("session")
    if raw is None:
        raise ValueError("input needs a 'session': {id, date, turns: [{id, speaker, text}]}")
    session = raw if isinstance(raw, Session) else Session.model_validate(raw)
    speakers = (
        state.get("speakers") or list(session.participants) or list(dict.fromkeys(t.speaker for t in session.turns))
    )
    return {"session": session, "speakers": speakers}


def build_ingest_studio_graph():
    from memgraph_agents.graphs.ingest import IngestState
    from memgraph_agents.graphs.ingest import graph as ingest

    g = StateGraph(IngestState, context_schema=MemoryContext)
    g.add_node("parse", parse)
    g.add_node("ingest", ingest)
    g.add_edge(START, "parse")
    g.add_edge("parse", "ingest")
    g.add_edge("ingest", END)
    return g.compile(name="ingest")


ingest = build_ingest_studio_graph()


def make_store():
    """The server's long-term memory store (``langgraph.json`` ``store.path``): ``MemgraphStore``
    on ``MEMGRAPH_*`` settings, so Studio's memory view and ``get_store()`` in any graph read
    and write graph memory."""
    from memgraph_agents.integrations.store import MemgraphStore

    return MemgraphStore()
