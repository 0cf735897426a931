"""Pydantic schema of the SGMem generation call: a session summary, facts and insights.

One structured reply per session carries all three kinds of SGMem's generated memory
(Wu et al., "SGMem", §3.3: summaries M, facts F, insights I). Like the event schemas, the
validators forgive form (a bare string for the summary, ``"F2"`` / ``2`` / ``"[2]"`` for a
fact reference, ``"D1:3, D1:4"`` for a list of turn ids) and are strict about substance
(a summary and every fact / insight need text). Turn ids are *not* checked here: that needs
the session, and happens in ``generate.py``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, field_validator

# The forgiving coercions of the event schemas (same call style, same model quirks).
from memgraph_agents.llm.coerce import str_list, stripped, time_value


def _optional_name(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        value = value.strip()
        return value if value.casefold() not in ("", "none", "null", "unknown", "n/a") else None
    return value


Text = Annotated[str, BeforeValidator(stripped)]
IdList = Annotated[list[str], BeforeValidator(str_list)]
Name = Annotated[str | None, BeforeValidator(_optional_name)]


class GeneratedSummary(BaseModel):
    text: Text = Field(min_length=1, description="a concise summary of the session's main topics and key details")
    turn_ids: IdList = Field(
        default_factory=list, description="ids of the turns the summary covers; empty means the whole session"
    )


class GeneratedFact(BaseModel):
    id: str = Field("", description='"F1", "F2", ... numbered in order')
    text: Text = Field(min_length=1, description="one standalone sentence: full names, absolute dates, all details")
    turn_ids: IdList = Field(default_factory=list, description="ids of the turns that state it")
    subject: Name = Field(None, description="the person the fact is about")
    time: str | None = Field(None, description="when it happened: YYYY-MM-DD, YYYY-MM or YYYY; null if unknown")

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, v: Any) -> Any:
        if v is None:
            return ""
        return str(v).strip() if isinstance(v, (str, int)) else v

    @field_validator("time", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return time_value(v)


class GeneratedInsight(BaseModel):
    text: Text = Field(min_length=1, description="a higher-level observation: a preference, habit, goal, plan or trait")
    facts: IdList = Field(default_factory=list, description='ids of the facts it is drawn from, e.g. ["F1", "F3"]')
    subject: Name = Field(None, description="the person the insight is about")


class SessionMemory(BaseModel):
    summary: GeneratedSummary
    facts: list[GeneratedFact] = Field(default_factory=list, description="every explicit fact of the session")
    insights: list[GeneratedInsight] = Field(default_factory=list, description="may be empty")

    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, v: Any) -> Any:
        return {"text": v} if isinstance(v, str) else v
