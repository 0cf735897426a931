"""Every retriever, registered, and the functions that look them up by name.

Entry points (the public API, graphs, CLI, integrations, bench) import retrievers from here:
the registry (``retrieval.registry``) imports nothing above the retrieval layer, and each
retriever registers itself where it is defined, so this module, on top of both the retrieval
layer and the navigator, is the one place that loads them all.
"""

from __future__ import annotations

from memgraph_agents.navigator import oneshot as _oneshot  # noqa: F401  registers "oneshot"
from memgraph_agents.navigator import run as _navigator  # noqa: F401  registers "navigator"
from memgraph_agents.retrieval.catalog import (
    DEFAULT_RETRIEVER,
    RETRIEVERS,
    accepts,
    get_retriever,
    register_retriever,
    retrieve,
    retriever_names,
)
from memgraph_agents.retrieval.protocols import Retriever

__all__ = [
    "DEFAULT_RETRIEVER",
    "RETRIEVERS",
    "Retriever",
    "accepts",
    "get_retriever",
    "register_retriever",
    "retrieve",
    "retriever_names",
]
