"""Input data model: Conversation -> Session -> Turn (docs/architecture.md, "Data model")."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from memgraph_agents.model.metadata import Metadata, check_metadata
from memgraph_agents.model.notes import NOTE_PREFIX, is_note_id

# \Z, not $: "$" also matches before a trailing newline ("D1:1\n" is not an id).
TURN_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}\Z")
# Control characters and line/paragraph separators: a name holding one could forge a line
# ("Bob\nSession date: ...") in an LLM prompt or a log.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def clean_name(name: str) -> str:
    """A speaker name on one line: control characters and every run of whitespace (newlines,
    tabs, Unicode separators) become one space; surrounding space goes."""
    return " ".join(_UNSAFE.sub(" ", name).split())


def _clean_names(names: list[str]) -> list[str]:
    return list(dict.fromkeys(n for n in map(clean_name, names) if n))


class Turn(BaseModel):
    """One utterance. ``id`` is unique within its conversation (LoCoMo style: ``D3:7``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    speaker: str
    text: str
    image_caption: str | None = None
    timestamp: datetime | None = None
    # Who spoke in a chat with an agent (``loaders.messages``): the user, or the agent itself;
    # ``None`` in a transcript between people. Ranking reads it: the agent's own words and the
    # user's questions to it are not evidence that answers (``retrieval.asking``).
    role: Literal["user", "assistant"] | None = None

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str) -> str:
        if not TURN_ID_RE.match(v):
            raise ValueError(f"turn id {v!r} must be 1-128 characters of letters, digits, '_.:-'")
        return v

    @field_validator("speaker")
    @classmethod
    def _speaker(cls, v: str) -> str:
        v = clean_name(v)
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
    metadata: Metadata = Field(default_factory=dict, description="the user's JSON metadata (model.metadata)")

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str) -> str:
        if not TURN_ID_RE.match(v):
            raise ValueError(f"session id {v!r} must be 1-128 characters of letters, digits, '_.:-'")
        return v

    @field_validator("participants")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        return _clean_names(v)

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, v: object) -> Metadata:
        return check_metadata(v)

    @model_validator(mode="after")
    def _check(self) -> Session:
        seen: set[str] = set()
        for t in self.turns:
            if t.id in seen:
                raise ValueError(f"session {self.id}: duplicate turn id {t.id!r}")
            seen.add(t.id)
        if is_note_id(self.id) and len(self.turns) != 1:  # a note's update keeps one turn: never lose the rest
            raise ValueError(
                f"session id {self.id!r}: ids starting with {NOTE_PREFIX!r} are reserved for notes, which hold "
                f"exactly one turn ({len(self.turns)} given); rename the session"
            )
        if not self.participants:
            object.__setattr__(self, "participants", sorted({t.speaker for t in self.turns}))
        return self


class Conversation(BaseModel):
    """A multi-session history, stored in one namespace."""

    model_config = ConfigDict(frozen=True)

    id: str
    sessions: list[Session] = Field(min_length=1)
    speakers: list[str] = Field(default_factory=list)
    metadata: Metadata = Field(
        default_factory=dict, description="metadata of every session (a session's own keys win over these)"
    )

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("conversation id is empty")
        if _UNSAFE.search(v) or v != v.strip():
            raise ValueError(f"conversation id {v!r} has control characters, line breaks or surrounding spaces")
        return v

    @field_validator("speakers")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        return _clean_names(v)

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, v: object) -> Metadata:
        return check_metadata(v)

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
        if self.metadata:  # stored per session: each session carries the conversation's keys
            sessions = [s.model_copy(update={"metadata": {**self.metadata, **s.metadata}}) for s in self.sessions]
            object.__setattr__(self, "sessions", sessions)
        return self

    def turn_index(self) -> dict[str, tuple[Session, Turn]]:
        return {t.id: (s, t) for s in self.sessions for t in s.turns}
