"""The retriever contract: ``(query, store, *, k, options) -> list[Evidence]``, best first.

A retriever's parameters are one typed options model (``RetrieverOptions``: frozen, unknown
fields refused), declared beside it and named in the registry (``memgraph_agents.registry``), so a
preset's ``retriever_params`` or a caller's keywords are validated before the retriever runs.
A retriever with optional LLM steps also takes ``llm``, ``usage``, ``llm_timeout`` and
``notes`` (the registry entry says which).
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.storage.protocols import StoreReader


class RetrieverOptions(BaseModel):
    """A retriever's parameters; every field has the retriever's default."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Retriever(Protocol):
    """A ranked list of evidence for ``query`` from ``store``; at most ``k`` items."""

    def __call__(self, query: str, store: StoreReader, *, k: int = ...) -> list[Evidence]: ...
