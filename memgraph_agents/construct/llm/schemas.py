"""Pydantic schemas of the LLM construction calls (docs/architecture.md, "The ingest pipeline"): events, relations, fusion.

Validators are deliberately forgiving about form (a string where a list was asked, a capped
list that runs long, ``"Temporal Before"`` for ``temporal_before``) and strict about substance
(an event needs text and at least one turn id): every failed validation costs a repair call.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from memgraph_agents.llm.coerce import NULLISH, first_int, normalise_label, str_list, stripped, time_value

MAX_PARTICIPANTS = 3


class RoleArgument(BaseModel):
    """One role-argument pair of an event (EMem): ``agent: Maya``, ``time: 2024-03-09``."""

    role: str = Field(description="role of the argument in the event, e.g. agent, patient, location, time, topic")
    value: str = Field(description="the argument itself: a normalised name, concept, value or date")

    @field_validator("role", mode="before")
    @classmethod
    def _role(cls, v: Any) -> Any:
        if v is None:
            return "entity"
        return (normalise_label(v) or "entity") if isinstance(v, str) else v

    @field_validator("value")
    @classmethod
    def _value(cls, v: str) -> str:
        return v.strip()


def _arguments(value: Any) -> Any:
    """Drop empty arguments; accept ``["Maya", ...]`` and ``{"agent": "Maya"}`` forms."""
    if value is None:
        return []
    if isinstance(value, dict):
        value = [{"role": k, "value": v} for k, v in value.items()]
    if not isinstance(value, list):
        return value
    out: list[Any] = []
    seen: set[tuple[str, str]] = set()
    for item in value:
        if isinstance(item, str):
            item = {"role": "entity", "value": item}
        if isinstance(item, dict):
            raw = item.get("value")
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                continue
            if isinstance(raw, (int, float)):
                item = {**item, "value": str(raw)}
            key = (normalise_label(str(item.get("role") or "entity")), str(item["value"]).strip().casefold())
            if key in seen:
                continue
            seen.add(key)
        out.append(item)
    return out


class ExtractedEvent(BaseModel):
    """One event of a session: a self-contained statement with its provenance."""

    text: str = Field(
        min_length=1,
        description="self-contained statement: full names instead of pronouns, absolute dates instead of relative ones",
    )
    turn_ids: list[str] = Field(min_length=1, description="ids of the turns this event comes from")
    time: str | None = Field(None, description="when it happened: YYYY-MM-DD, YYYY-MM or YYYY; null if unknown")
    participants: list[str] = Field(
        default_factory=list, max_length=MAX_PARTICIPANTS, description="people involved, most important first"
    )
    arguments: list[RoleArgument] = Field(default_factory=list, description="role-argument pairs")

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return stripped(v)

    @field_validator("turn_ids", mode="before")
    @classmethod
    def _turn_ids(cls, v: Any) -> Any:
        return str_list(v)

    @field_validator("time", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return time_value(v)

    @field_validator("participants", mode="before")
    @classmethod
    def _participants(cls, v: Any) -> Any:
        return str_list(v, limit=MAX_PARTICIPANTS)  # truncate: a 4th name is no reason to fail

    @field_validator("arguments", mode="before")
    @classmethod
    def _args(cls, v: Any) -> Any:
        return _arguments(v)


class SessionEvents(BaseModel):
    events: list[ExtractedEvent] = Field(description="the events of the session, in order")


class ExtractedRelation(BaseModel):
    """A typed edge between two events of one session, read as ``source --type--> target``."""

    source: int = Field(description="index of the source event in the list")
    target: int = Field(description="index of the target event in the list")
    type: str = Field(
        min_length=1,
        description="snake_case label, e.g. causal, motivation, enablement, follow_up, temporal_before, "
        "temporal_after, contrast, part_of, parallel, elaboration",
    )
    turn_ids: list[str] = Field(default_factory=list, description="turn ids that support the relation")
    description: str = Field("", description="one short sentence explaining the link")

    @field_validator("source", "target", mode="before")
    @classmethod
    def _index(cls, v: Any) -> Any:
        # "E3", "[3]" or "3" for 3: models echo the way the events were numbered
        return first_int(v, signed=True)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: Any) -> Any:
        return normalise_label(v) if isinstance(v, str) else v

    @field_validator("turn_ids", mode="before")
    @classmethod
    def _turn_ids(cls, v: Any) -> Any:
        return str_list(v)

    @field_validator("description", mode="before")
    @classmethod
    def _description(cls, v: Any) -> Any:
        if v is None:
            return ""
        return v.strip() if isinstance(v, str) else v


class EarlierStatement(BaseModel):
    turn_id: str
    date: str  # as the prompt shows it: "12 January 2024"
    text: str


class UpdateCandidate(BaseModel):
    """A statement of the session that marks a change, and earlier statements it may replace."""

    turn_id: str
    speaker: str
    text: str
    earlier: list[EarlierStatement]


class SupersedesLabel(BaseModel):
    """A statement of the session that replaces an earlier statement: ``new`` --supersedes--> ``old``."""

    new: int = Field(description="number of the statement of this session, N1 -> 1")
    old: int = Field(description="number of the earlier statement it replaces, P2 -> 2")
    attribute: str = Field("", description="snake_case name of what changed, e.g. job, home, phone_number")

    @field_validator("new", "old", mode="before")
    @classmethod
    def _number(cls, v: Any) -> Any:
        return first_int(v)  # "N1", "[P2]" or "2"

    @field_validator("attribute", mode="before")
    @classmethod
    def _attribute(cls, v: Any) -> Any:
        return normalise_label(v) if isinstance(v, str) else ("" if v is None else v)


class SessionRelations(BaseModel):
    # strict: with a default and extra keys allowed, any JSON object (another shape) would
    # validate as "no relations" and silently drop every edge
    model_config = ConfigDict(extra="forbid")

    relations: list[ExtractedRelation] = Field(description="typed relations between the listed events; may be empty")


class StatementUpdates(BaseModel):
    model_config = ConfigDict(extra="forbid")  # another shape must not pass for "no update"

    supersedes: list[SupersedesLabel] = Field(
        description="statements of this session that replace an earlier one; may be empty"
    )


class FusionVerdict(BaseModel):
    """How a new event relates to the most similar event already in memory."""

    same_event: bool = Field(description="true if both describe the same real-world occurrence")
    has_overlap: bool = Field(description="true if they concern the same situation, even if not identical")
    relation_type: str | None = Field(
        None, description="snake_case relation read as OLD --relation_type--> NEW, or null"
    )

    @field_validator("relation_type", mode="before")
    @classmethod
    def _relation_type(cls, v: Any) -> Any:
        if isinstance(v, str):
            label = normalise_label(v)
            return None if label in NULLISH or label == "no_relation" else label
        return v

    @model_validator(mode="after")
    def _consistent(self) -> FusionVerdict:
        # the same occurrence trivially overlaps; keep the flags coherent for the caller
        if self.same_event and not self.has_overlap:
            self.has_overlap = True
        return self
