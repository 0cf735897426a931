"""Structured outputs of the navigator's LLM roles (planner, start selector, explorer,
refiner, responder). Parsing is forgiving where the intent is unambiguous (action case,
a fourth next node, blank subgoals) and strict where a guess would change the search
(an unknown action is an error: the model gets one repair turn, then the offline policy
decides that frontier)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

Action = Literal["SKIP", "EXPAND", "ANSWER"]
MAX_NEXT = 3


class Plan(BaseModel):
    subgoals: list[str] = Field(
        min_length=2, max_length=5, description="2 to 5 distinct things the evidence must establish, short phrases"
    )

    @field_validator("subgoals", mode="before")
    @classmethod
    def _clean(cls, v: Any) -> Any:
        if isinstance(v, list):
            v = [" ".join(str(s).split()) for s in v if str(s).strip()]
            return list(dict.fromkeys(v))
        return v


class StartSelection(BaseModel):
    node_ids: list[str] = Field(max_length=5, description="ids of the events to start from, best first")
    reason: str = Field("", description="one short sentence")


class NodeDecision(BaseModel):
    node_id: str = Field(description="id of a node from the frontier")
    action: Action = Field(description="SKIP (not useful), EXPAND (keep it, continue) or ANSWER (keep it, done)")
    next_nodes: list[str] = Field(default_factory=list, description=f"up to {MAX_NEXT} neighbour ids worth visiting")
    satisfied_subgoals: list[int] = Field(default_factory=list, description="numbers of subgoals this node establishes")
    reason: str = Field("", description="one short sentence")

    @field_validator("action", mode="before")
    @classmethod
    def _upper(cls, v: Any) -> Any:
        return v.strip().upper() if isinstance(v, str) else v

    @field_validator("next_nodes", mode="before")
    @classmethod
    def _cap(cls, v: Any) -> Any:
        return v[:MAX_NEXT] if isinstance(v, list) else v

    @field_validator("satisfied_subgoals", mode="before")
    @classmethod
    def _ints(cls, v: Any) -> Any:
        if isinstance(v, list):  # "S2" / "2" -> 2
            return [int(str(x).strip().lstrip("Ss")) for x in v if str(x).strip().lstrip("Ss").isdigit()]
        return v


class ExplorerStep(BaseModel):
    decisions: list[NodeDecision] = Field(description="one decision per frontier node")


class RefinedQuery(BaseModel):
    query: str = Field(min_length=1, description="one search question aimed at the unsatisfied subgoals")
    target_subgoals: list[int] = Field(default_factory=list, description="numbers of the subgoals it targets")


class NavAnswer(BaseModel):
    answer: str = Field(description="the answer, as the task asks for it")
    turn_ids: list[str] = Field(default_factory=list, description="ids of the excerpts the answer rests on")
