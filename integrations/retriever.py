"""``MemoryRetriever``: a LangChain ``BaseRetriever`` over any memgraph retriever.

    retriever = MemoryRetriever(settings=Settings(), user_id="alice", retriever="hybrid", k=5)
    docs = retriever.invoke("Where did Jonas travel?")

``user_id`` reads what the agent tools and the turn writer wrote for that user: the same
mapping (``AgentMemory.user_scope``, i.e. ``Memory.namespace_for_user`` with the memory's
``namespace_prefix``). ``namespace`` names a namespace as stored (``memgraph ingest``'s).

Each ``Document`` holds the evidence text; its metadata has the node id, kind, score, turn
ids, session ids and dates, the path and a one-line ``citation``. Without ``user_id`` or
``namespace`` the namespace comes from the run (user id in the LangGraph runtime context or in
``config["configurable"]``), as for the memory tools. It recalls through the same
``AgentMemory`` as the tools, so the defaults are every door's: the preset's retriever, else
``settings.retriever``; ``k`` = ``settings.top_k``; ``min_score`` (a relevance floor in [0, 1],
checked when the retriever is made) = the settings' floor. Nothing at or above the floor: no
documents (the tools' "nothing relevant in memory").
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, field_validator, model_validator

from memgraph_agents.api.overrides import check_min_score
from memgraph_agents.config import Settings
from memgraph_agents.errors import InputError
from memgraph_agents.integrations.agent_memory import AgentMemory, current_config, current_context
from memgraph_agents.model.evidence import Evidence


def evidence_document(ev: Evidence) -> Document:
    return Document(
        id=ev.node_id,
        page_content=ev.text,
        metadata={
            "node_id": ev.node_id,
            "kind": ev.kind,
            "score": ev.score,
            "relevance": ev.relevance,  # the question's cosine to the item's best sentence: what min_score cuts
            "turn_ids": list(ev.turn_ids),
            "session_ids": list(ev.session_ids),
            "session_dates": list(ev.session_dates),
            "path": list(ev.path),
            "retriever": ev.retriever,
            "citation": ev.cite(),
        },
    )


class MemoryRetriever(BaseRetriever):
    """Documents from a namespace's memory with any retriever (name or callable)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")  # a typo is an error, not ignored

    settings: Settings | None = None
    namespace: str | None = None
    user_id: str | None = None  # a user of the agent tools: their namespace (AgentMemory.user_scope)
    # A pydantic field: a typing.Protocol cannot be validated, so the contract of
    # ``retrieval.protocols.Retriever`` is spelled as the callable it is.
    retriever: str | Callable[..., list[Evidence]] | None = None  # None: the preset's, else settings.retriever
    k: int | None = None  # None: settings.top_k
    min_score: float | None = None  # None: the settings' relevance floor
    memory: AgentMemory | None = Field(default=None, exclude=True)

    @field_validator("min_score", mode="before")
    @classmethod
    def _check_min_score(cls, value: object) -> float | None:
        return check_min_score(value)  # a ConfigError (a ValueError): pydantic reports it naming the field

    @model_validator(mode="after")
    def _memory_owns_its_settings(self) -> MemoryRetriever:
        if self.memory is not None and (self.settings is not None or self.retriever is not None):
            raise ValueError("with memory=, settings and retriever are the AgentMemory's own: pass them to it")
        return self

    def _memory(self) -> AgentMemory:
        if self.memory is None:
            self.memory = AgentMemory(self.settings, retriever=self.retriever, k=self.k)
        return self.memory

    def _namespace(self, mem: AgentMemory) -> str | None:
        if self.user_id is not None and self.namespace is not None:
            raise InputError("MemoryRetriever takes user_id= or namespace=, not both")
        return mem.user_scope(self.user_id) if self.user_id is not None else self.namespace

    def _call(self, query: str) -> list[Document]:
        mem = self._memory()
        ns = self._namespace(mem)
        res = mem.recall(
            query, context=current_context(), config=current_config(), k=self.k, namespace=ns, min_score=self.min_score
        )
        return [evidence_document(ev) for ev in res.evidence]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return self._call(query)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        mem = self._memory()
        ns = self._namespace(mem)
        res = await mem.arecall(
            query, context=current_context(), config=current_config(), k=self.k, namespace=ns, min_score=self.min_score
        )
        return [evidence_document(ev) for ev in res.evidence]


__all__ = ["MemoryRetriever", "evidence_document"]
