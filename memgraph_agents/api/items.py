"""What ``Memory.get`` / ``list`` / ``update`` / ``history`` return: plain pydantic models."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from memgraph_agents.api import reprs

ItemKind = Literal["note", "session", "turn", "node"]


class TurnItem(BaseModel):
    """One stored turn, as it was given."""

    id: str
    speaker: str
    text: str
    image_caption: str | None = None
    timestamp: str | None = Field(None, description="ISO datetime of the turn itself, when it had one")


class Neighbour(BaseModel):
    """An edge of the item's graph node and the node at its other end."""

    direction: Literal["out", "in"]
    edge: str = Field(description="edge kind: contains, next, evidence, role, relation, …")
    label: str = ""
    node_id: str
    kind: str
    text: str


class MemoryItem(BaseModel):
    """A note, a session, a turn or a graph node of one namespace (``Memory.get``; ``list``
    returns notes and sessions without ``turns`` and ``neighbours``)."""

    id: str
    kind: ItemKind
    namespace: str
    node_kind: str = Field("", description="the graph node's kind (turn, event, argument, topic…)")
    node_id: str = Field("", description="the item's graph node (a session's session node, a note's turn)")
    text: str = Field(
        description="a note's or turn's text; a session's turns, one 'speaker: text' a line (``list``: its "
        "date and first turns); a node's text"
    )
    date: str = Field("", description="ISO date the session or note is dated")
    speaker: str = Field("", description="who said it (a note's author, a turn's speaker)")
    participants: list[str] = Field(default_factory=list)
    session_id: str = Field("", description="the session it belongs to (itself for a session or note)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="the user's metadata of its session")
    n_turns: int = 0
    ingested_at: str = Field("", description="when the session's current version was stored (UTC)")
    turns: list[TurnItem] = Field(default_factory=list, description="get: a session's or note's turns")
    turn_ids: list[str] = Field(default_factory=list, description="provenance: the turns it rests on")
    attrs: dict[str, Any] = Field(default_factory=dict, description="a node's attributes")
    neighbours: list[Neighbour] = Field(default_factory=list, description="get: the graph node's edges")
    n_neighbours: int = Field(0, description="all of its edges (``neighbours`` holds at most ``MAX_NEIGHBOURS``)")

    def __repr__(self) -> str:
        return reprs.item_repr(self)

    __str__ = __repr__


class ItemPage(BaseModel):
    """One page of ``Memory.list``: newest first; ``cursor`` asks for the next page (None: last page)."""

    namespace: str
    items: list[MemoryItem] = Field(default_factory=list)
    cursor: str | None = None

    def __repr__(self) -> str:
        return reprs.page_repr(self)

    __str__ = __repr__


class NoteVersion(BaseModel):
    version: int
    text: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    at: str = Field(description="when this version was stored (ISO, UTC)")


class NoteHistory(BaseModel):
    """``Memory.history``: a note's versions, oldest first (the last is the current one)."""

    note_id: str
    namespace: str
    versions: list[NoteVersion] = Field(default_factory=list)

    def __repr__(self) -> str:
        return reprs.history_repr(self)

    __str__ = __repr__
