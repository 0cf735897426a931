"""``SearchRequest``: one search as every door hands it to the engine (``api.ops``).

The door (``Memory.search`` / ``ask``, the agent tools, the CLI, the retrieval graph) resolves
its defaults (namespace, k, retriever) and checks its arguments with the messages a user reads
(``api.overrides``); the request is then built once, typed and frozen, and the engine's
coroutines take it whole instead of a long positional list. ``config`` is the caller's
LangChain run config (its tracing keys reach the navigator graph).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memgraph_agents.errors import InputError
from memgraph_agents.model.filters import MemoryFilter


class SearchRequest(BaseModel):
    """What to search for, where and how: validated when built, read-only after."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    query: str = Field(description="the question; not empty")
    namespaces: tuple[str, ...] = Field(min_length=1, description="one, or several ranked in one list")
    k: int = Field(ge=1, le=200, description="ranked items wanted (per namespace)")
    retriever: Any = Field(description="a retriever name, or a callable (query, store, *, k)")
    filter: MemoryFilter | None = Field(None, description="what the search may see (dates, speakers, metadata, as_of)")
    min_score: float | None = Field(None, ge=0.0, le=1.0, description="relevance floor; None: the engine's default")
    config: Mapping[str, Any] | None = Field(None, description="the caller's run config (callbacks, tags…)")

    @field_validator("query")
    @classmethod
    def _query(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the question is empty")
        return v

    @field_validator("retriever")
    @classmethod
    def _retriever(cls, v: Any) -> Any:
        if not (isinstance(v, str) and v.strip()) and not callable(v):
            raise ValueError(f"a retriever name or a callable (query, store, *, k), not {v!r}")
        return v

    @property
    def retriever_name(self) -> str:
        r = self.retriever
        return r if isinstance(r, str) else getattr(r, "__name__", "custom")

    @property
    def namespace(self) -> str:
        """The first (for a one-namespace search: the only) namespace."""
        return self.namespaces[0]

    def at(self, namespace: str) -> SearchRequest:
        """The same request on one namespace."""
        return self.model_copy(update={"namespaces": (namespace,)})


def search_request(**fields: Any) -> SearchRequest:
    """A ``SearchRequest``; what is wrong in it is an ``InputError`` naming each field."""
    try:
        return SearchRequest(**fields)
    except ValidationError as exc:
        detail = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}" for e in exc.errors())
        raise InputError(f"invalid search request ({detail})") from None
