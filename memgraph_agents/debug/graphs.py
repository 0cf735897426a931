"""The graphs ``langgraph.json`` exports, by name (``memgraph draw`` and the Studio test use it)."""

from __future__ import annotations

import importlib

EXPORTED: dict[str, str] = {
    "ingest": "memgraph_agents.graphs.ingest:graph",
    "navigator": "memgraph_agents.graphs.navigator:graph",
    "retrieval": "memgraph_agents.graphs.retrieval:graph",
    "chatbot": "memgraph_agents.graphs.chatbot:graph",
}


def load_graph(name: str):
    """The compiled graph exported as ``name`` (no checkpointer: ``langgraph dev`` adds one)."""
    try:
        spec = EXPORTED[name]
    except KeyError:
        raise ValueError(f"unknown graph {name!r}: choose from {', '.join(EXPORTED)}") from None
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)
