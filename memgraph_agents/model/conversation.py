"""Input data model: Conversation -> Session -> Turn (DESIGN §3)."""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

TURN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}$")


class Turn(BaseModel):
    """One utterance. ``id`` is unique within its conversation (LoCoMo style: ``D3:7``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    speaker: str
    text: str
    image_caption: str | None = None
    timestamp: datetime | None = None

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str) -> str:
        if not TURN_ID_RE.match(v):
            raise ValueError(f"turn id {v!r} must be 1-128 characters of letters, digits, '_.:-'")
        return v

    @field_validator("speaker")
    @classmethod
    def _speaker(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("turn has an empty speaker")
        return v

    @model_validator(mode="after")
    def _has_content(self) -> Turn:
        if not self.text.strip() and not (self.image_caption or "").strip():
            raise ValueError(f"turn {self.id} has neither text nor an image caption")
        return self

    @property
    def content(self) -> str:
        """The text that represents the turn: ``speaker: text [image: caption]``."""
        body = self.text.strip()
        if self.image_caption:
            body = f"{body} [image: {self.image_caption.strip()}]".strip()
        return f"{self.speaker}: {body}"


class Session(BaseModel):
    """A dated run of turns between participants."""

    model_config = ConfigDict(frozen=True)

    id: str
    date: datetime
    turns: list[Turn] = Field(min_length=1)
    participants: list[str] = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str) -> str:
        if not TURN_ID_RE.match(v):
            raise ValueError(f"session id {v!r} must be 1-128 characters of letters, digits, '_.:-'")
        return v

    @model_validator(mode="after")
    def _check(self) -> Session:
        seen: set[str] = set()
        for t in self.turns:
            if t.id in seen:
                raise ValueError(f"session {self.id}: duplicate turn id {t.id!r}")
            seen.add(t.id)
        if not self.participants:
            object.__setattr__(self, "participants", sorted({t.speaker for t in self.turns}))
        return self


class Conversation(BaseModel):
    """A multi-session history, stored in one namespace."""

    model_config = ConfigDict(frozen=True)

    id: str
    sessions: list[Session] = Field(min_length=1)
    speakers: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> Conversation:
        sids: set[str] = set()
        tids: set[str] = set()
        for s in self.sessions:
            if s.id in sids:
                raise ValueError(f"conversation {self.id}: duplicate session id {s.id!r}")
            sids.add(s.id)
            for t in s.turns:
                if t.id in tids:
                    raise ValueError(f"conversation {self.id}: turn id {t.id!r} appears in two sessions")
                tids.add(t.id)
        if not self.speakers:
            names: list[str] = []
            for s in self.sessions:
                for p in s.participants:
                    if p not in names:
                        names.append(p)
            object.__setattr__(self, "speakers", names)
        return self

    def turn_index(self) -> dict[str, tuple[Session, Turn]]:
        return {t.id: (s, t) for s in self.sessions for t in s.turns}
