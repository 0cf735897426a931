"""Retrievers by name. Every retriever: ``(query, store, *, k, **params) -> list[Evidence]``."""

from __future__ import annotations

from collections.abc import Callable

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.navigator.run import navigator
from memgraph_agents.retrieval.dense import dense
from memgraph_agents.retrieval.dwpr_retriever import dwpr
from memgraph_agents.retrieval.lexical import bm25, hybrid
from memgraph_agents.retrieval.ppr_retriever import ppr
from memgraph_agents.retrieval.sentence_hop_retriever import sentence_hop

Retriever = Callable[..., list[Evidence]]

RETRIEVERS: dict[str, Retriever] = {
    "dense": dense, "bm25": bm25, "hybrid": hybrid, "ppr": ppr, "sentence_hop": sentence_hop, "dwpr": dwpr,
    "navigator": navigator,
}
DEFAULT_RETRIEVER = "ppr"


def get_retriever(name: str) -> Retriever:
    """The retriever called ``name``; ``ValueError`` listing the registered names otherwise."""
    try:
        return RETRIEVERS[name]
    except KeyError:
        raise ValueError(f"unknown retriever {name!r}: choose from {', '.join(RETRIEVERS)}") from None


def retrieve(name: str, query: str, store, *, k: int = 10, **params) -> list[Evidence]:
    """Run retriever ``name`` on ``store`` (``ValueError`` for an empty question or an unknown name)."""
    if not query or not query.strip():
        raise ValueError("the question is empty")
    return get_retriever(name)(query, store, k=k, **params)
