"""The retriever contract: ``(query, store, *, k, **params) -> list[Evidence]``, best first.

A retriever may declare more keyword parameters (with defaults): a preset's
``retriever_params`` and the ``llm`` / ``usage`` / ``llm_timeout`` of ``retrieve`` reach only
the retrievers that declare them by name (``registry.accepts``).
"""

from __future__ import annotations

from typing import Protocol

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.storage.protocols import StoreReader


class Retriever(Protocol):
    """A ranked list of evidence for ``query`` from ``store``; at most ``k`` items."""

    def __call__(self, query: str, store: StoreReader, *, k: int = ...) -> list[Evidence]: ...
