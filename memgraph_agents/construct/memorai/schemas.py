"""Pydantic schemas of the two MemORAI LLM calls per session.

1. ``SegmentsReply`` (prompt ``memorai_segments``): topic segments with a title and a summary,
   and the selective gate (the turns carrying user-specific information, each with a reason).
2. ``EntitiesReply`` (prompt ``memorai_entities``): entities with a short description and the
   turns cited, and subject-predicate-object triples with their source turns.

Forgiving about form (a string where a list of ids was asked, a bare id where a gate item was
asked), strict about substance (a segment needs turns and a summary, an entity a description
and a citation): each failed validation costs a repair call.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from memgraph_agents.llm.coerce import collapse_spaces, str_list


class LLMSegment(BaseModel):
    turn_ids: list[str] = Field(min_length=1, description="ids of the turns of this segment, copied from the list")
    title: str = Field("", description="a few words naming the topic")
    summary: str = Field(
        min_length=1, description="2-3 sentences: the topic, key facts, decisions, with names and dates"
    )

    _ids = field_validator("turn_ids", mode="before")(lambda cls, v: str_list(v))
    _text = field_validator("title", "summary", mode="before")(lambda cls, v: "" if v is None else collapse_spaces(v))


class GateItem(BaseModel):
    turn_id: str = Field(min_length=1, description="id of a turn with user-specific information")
    reason: str = Field("", description="what it reveals, in a few words")

    _text = field_validator("turn_id", "reason", mode="before")(
        lambda cls, v: "" if v is None else collapse_spaces(str(v))
    )


class SegmentsReply(BaseModel):
    segments: list[LLMSegment] = Field(description="topic segments in conversation order, together covering every turn")
    user_specific: list[GateItem] = Field(
        default_factory=list, description="the turns worth remembering about the speakers; may be empty"
    )

    @field_validator("user_specific", mode="before")
    @classmethod
    def _gate(cls, v: Any) -> Any:
        if v is None:
            return []
        if isinstance(v, (str, int)):
            v = str_list(str(v))
        if isinstance(v, list):  # a bare id stands for an item without a reason
            return [{"turn_id": str(x)} if isinstance(x, (str, int)) else x for x in v]
        return v


class LLMEntity(BaseModel):
    name: str = Field(min_length=1, description="the entity's usual name")
    description: str = Field(min_length=1, description="1-2 sentences on what this session tells about it")
    turn_ids: list[str] = Field(min_length=1, description="ids of the turns the description draws on")

    _ids = field_validator("turn_ids", mode="before")(lambda cls, v: str_list(v))
    _text = field_validator("name", "description", mode="before")(
        lambda cls, v: "" if v is None else collapse_spaces(v)
    )


class LLMTriple(BaseModel):
    subject: str = Field(min_length=1, description="an entity name")
    predicate: str = Field(min_length=1, description="short relation, e.g. works at, likes, adopted, is planning to")
    object: str = Field(min_length=1, description="an entity name or a value (date, number, place...)")
    turn_ids: list[str] = Field(min_length=1, description="ids of the turns stating it")

    _ids = field_validator("turn_ids", mode="before")(lambda cls, v: str_list(v))
    _text = field_validator("subject", "predicate", "object", mode="before")(
        lambda cls, v: "" if v is None else collapse_spaces(str(v))
    )


class EntitiesReply(BaseModel):
    entities: list[LLMEntity] = Field(
        description="the people, pets, places, organisations, things and values mentioned"
    )
    triples: list[LLMTriple] = Field(default_factory=list, description="facts stated in the turns; may be empty")
