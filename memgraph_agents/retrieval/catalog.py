"""The retrieval layer's retrievers, loaded (each registers itself on import).

Import from here, not from ``registry``, when a lookup needs them: the navigator (one layer
up) does, for its seed retrievers. Everything above the navigator uses
``memgraph_agents.retrievers``, which adds the navigator itself.
"""

from __future__ import annotations

from typing import Any

from memgraph_agents.model.evidence import Evidence

# Import order is registration order: the order ``retriever_names()`` lists them in.
from memgraph_agents.retrieval import dense as _dense  # noqa: F401
from memgraph_agents.retrieval import dwpr_retriever as _dwpr  # noqa: F401
from memgraph_agents.retrieval import fusion_retriever as _fusion  # noqa: F401
from memgraph_agents.retrieval import lexical as _lexical  # noqa: F401
from memgraph_agents.retrieval import ppr_retriever as _ppr  # noqa: F401
from memgraph_agents.retrieval import sentence_hop_retriever as _sentence_hop  # noqa: F401
from memgraph_agents.retrieval.finish import finish
from memgraph_agents.retrieval.registry import (
    DEFAULT_RETRIEVER,
    RETRIEVERS,
    accepts,
    get_retriever,
    register_retriever,
    retriever_names,
)
from memgraph_agents.retrieval.registry import retrieve as _retrieve
from memgraph_agents.storage.protocols import StoreReader


def retrieve(name: str, query: str, store: StoreReader, *, k: int = 10, **params: Any) -> list[Evidence]:
    """``registry.retrieve`` (same arguments, same errors) with the ranking finished alike for
    every retriever (``retrieval.finish``): statements later ones replaced are marked and
    ordered by the question's time, and every item gets its ``relevance``."""
    return finish(query, store, _retrieve(name, query, store, k=k, **params))


__all__ = [
    "DEFAULT_RETRIEVER",
    "RETRIEVERS",
    "accepts",
    "get_retriever",
    "register_retriever",
    "retrieve",
    "retriever_names",
]
