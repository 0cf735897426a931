"""The long-term memory store ``langgraph.json`` gives ``langgraph dev`` / LangGraph Studio."""

from __future__ import annotations

from memgraph_agents.integrations.store import MemgraphStore


def make_store():
    """The server's long-term memory store (``langgraph.json`` ``store.path``): ``MemgraphStore``
    on ``MEMGRAPH_*`` settings, so Studio's memory view and ``get_store()`` in any graph read
    and write graph memory."""

    return MemgraphStore()
