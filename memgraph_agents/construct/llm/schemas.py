"""Pydantic schemas of the LLM construction calls (DESIGN §5): events, relations, fusion.

Validators are deliberately forgiving about form (a string where a list was asked, a capped
list that runs long, ``"Temporal Before"`` for ``temporal_before``) and strict about substance
(an event needs text and at least one turn id): every failed validation costs a repair call.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

MAX_PARTICIPANTS = 3
_NULLISH = {"", "none", "null", "n/a", "na", "unknown", "unspecified"}
_LABEL_RE = re.compile(r"[^0-9a-z]+")
_ISO_PREFIX_RE = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")
_DATE_FORMATS = ("%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%Y/%m/%d")
_MONTH_FORMATS = ("%B %Y", "%b %Y")


def normalise_label(value: str) -> str:
    """Relation / role labels in snake_case: ``"Temporal Before"`` -> ``temporal_before``."""
    return _LABEL_RE.sub("_", value.strip().lower()).strip("_")


def normalise_time(value: str | None) -> str | None:
    """``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY``; common spelled-out dates are converted.

    Anything else becomes ``None`` instead of failing: the date also lives in the event text,
    so a repair call is not worth it.
    """
    if value is None:
        return None
    text = value.strip()
    if text.lower() in _NULLISH:
        return None
    m = _ISO_PREFIX_RE.match(text)
    if m:
        year, month, day = m.groups()
        try:
            if day:
                return datetime(int(year), int(month), int(day)).date().isoformat()
            if month and 1 <= int(month) <= 12:
                return f"{year}-{month}"
        except ValueError:
            return None
        return year if not month else None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            pass
    for fmt in _MONTH_FORMATS:
        try:
            return datetime.strptime(text, fmt).strftime("%Y-%m")
        except ValueError:
            pass
    return None


def _as_str_list(value: Any) -> Any:
    """Accept ``"D1:3"`` or ``"D1:3, D1:4"`` where a list of strings was asked."""
    if value is None:
        return []
    if isinstance(value, str):
        return [p for p in re.split(r"[,;]\s*", value)]
    if isinstance(value, (list, tuple)):
        return [str(v) if isinstance(v, (int, float)) else v for v in value]
    return value


def _unique_stripped(values: list[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for v in values:
        v = v.strip()
        if v and v.casefold() not in seen:
            seen.add(v.casefold())
            out.append(v)
    return out


class RoleArgument(BaseModel):
    """One role-argument pair of an event (EMem): ``agent: Caroline``, ``time: 2023-05-07``."""

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
    """Drop empty arguments; accept ``["Caroline", ...]`` and ``{"agent": "Caroline"}`` forms."""
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
        return v.strip() if isinstance(v, str) else v

    @field_validator("turn_ids", mode="before")
    @classmethod
    def _turn_ids(cls, v: Any) -> Any:
        v = _as_str_list(v)
        return _unique_stripped(v) if isinstance(v, list) and all(isinstance(x, str) for x in v) else v

    @field_validator("time", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        if isinstance(v, int) and 1000 <= v <= 9999:
            return str(v)
        return normalise_time(v) if isinstance(v, str) or v is None else v

    @field_validator("participants", mode="before")
    @classmethod
    def _participants(cls, v: Any) -> Any:
        v = _as_str_list(v)
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return _unique_stripped(v)[:MAX_PARTICIPANTS]  # truncate: a 4th name is no reason to fail
        return v

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
        if isinstance(v, str):
            m = re.search(r"-?\d+", v)
            return int(m.group()) if m else v
        return v

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: Any) -> Any:
        return normalise_label(v) if isinstance(v, str) else v

    @field_validator("turn_ids", mode="before")
    @classmethod
    def _turn_ids(cls, v: Any) -> Any:
        v = _as_str_list(v)
        return _unique_stripped(v) if isinstance(v, list) and all(isinstance(x, str) for x in v) else v

    @field_validator("description", mode="before")
    @classmethod
    def _description(cls, v: Any) -> Any:
        if v is None:
            return ""
        return v.strip() if isinstance(v, str) else v


class SessionRelations(BaseModel):
    relations: list[ExtractedRelation] = Field(
        default_factory=list, description="typed relations between the listed events; may be empty"
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
            return None if label in _NULLISH or label == "no_relation" else label
        return v

    @model_validator(mode="after")
    def _consistent(self) -> FusionVerdict:
        # the same occurrence trivially overlaps; keep the flags coherent for the caller
        if self.same_event and not self.has_overlap:
            self.has_overlap = True
        return self
