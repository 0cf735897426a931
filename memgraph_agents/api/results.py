"""What ``Memory``'s methods return: plain pydantic models (JSON-able with ``model_dump``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from memgraph_agents.api import reprs
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.outcome import EmptyReason, SessionOutcome


class AddReport(BaseModel):
    """What ``Memory.add`` stored."""

    namespace: str
    conversations: list[str] = Field(default_factory=list, description="conversation ids added")
    sessions_added: int = Field(0, description="sessions new to the namespace")
    sessions_replaced: int = Field(0, description="stored sessions replaced by a different version")
    sessions_appended: int = Field(0, description="stored sessions that got new turns (only those were built)")
    sessions_unchanged: int = Field(0, description="sessions already stored as they are (skipped)")
    turns: int = 0
    note_ids: list[str] = Field(default_factory=list, description="ids of added notes: forget(note=id)")
    warnings: list[str] = Field(default_factory=list, description="e.g. an LLM step that fell back to offline")
    sessions: list[SessionOutcome] = Field(
        default_factory=list, description="per session: stored or unchanged, LLM-built or fallen back"
    )
    seconds: float = 0.0

    def __repr__(self) -> str:
        return reprs.add_repr(self)

    __str__ = __repr__


class ForgetReport(BaseModel):
    """What ``Memory.forget`` deleted."""

    namespace: str
    sessions: list[str] = Field(default_factory=list, description="sessions deleted (all: the namespace went)")
    namespace_deleted: bool = False
    nodes_removed: int = 0


class AskResult(BaseModel):
    """``Memory.ask``: the answer (with an LLM configured), the evidence and how it was found."""

    question: str
    namespace: str
    retriever: str
    answer: str | None = Field(None, description="None in offline mode: reason over the evidence yourself")
    cited_turns: list[str] = Field(default_factory=list, description="turn ids the answer rests on")
    evidence: list[Evidence] = Field(default_factory=list)
    outcome: str = Field(
        "found",
        description="found | nothing_relevant (the question's best match in the namespace is below the "
        "relevance gate, or every item "
        "below min_score) | no_memory (the namespace holds nothing yet, or nothing the filter admits)",
    )
    reason: EmptyReason | None = Field(
        None,
        description="why the evidence is empty: nothing_stored | filtered_out | below_gate | below_floor | no_match",
    )
    best_relevance: float | None = Field(None, description="the best relevance among the ranked items")
    min_score: float | None = Field(None, description="the per-item relevance floor applied")
    gate: float | None = Field(None, description="the question-level relevance gate applied")
    question_relevance: float | None = Field(
        None,
        description="what the gate judges: the relevance of the namespace's best-matching statement "
        "(whatever k; the agent's own turns and the question itself left out)",
    )
    trace: list[str] = Field(default_factory=list, description="how the evidence was reached, one line a step")
    counters: dict[str, float] = Field(default_factory=dict)
    navigation: Any = Field(
        None,
        exclude=True,
        repr=False,
        description="the navigator's full result (a NavigationResult) when it ran: the path `memgraph "
        "trace` and `memgraph ui` draw, from this very run",
    )

    def __repr__(self) -> str:
        return reprs.ask_repr(self)

    __str__ = __repr__


class Found(list):  # list[Evidence]; a plain list subclass so every caller of ``search`` keeps working
    """``Memory.search``'s evidence, a list, that also says why it is empty: ``reason`` (an
    ``EmptyReason``, ``None`` when it is not empty) and ``why`` (one sentence for a person)."""

    def __init__(self, evidence=(), reason: EmptyReason | None = None, why: str = "") -> None:
        super().__init__(evidence)
        self.reason = reason if not self else None
        self.why = why if not self else ""

    def __repr__(self) -> str:
        return reprs.found_repr(self)

    __str__ = __repr__
