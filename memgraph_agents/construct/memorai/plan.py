"""What the MemORAI layer decides for one session, before it becomes nodes and edges.

Both implementations (LLM and offline) produce the same plain records, and ``write`` turns
them into rows; keeping the decision apart from the storage keeps each side testable alone.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.model.graph import NodeKind


class TurnView(BaseModel):
    """A turn as the layer reads it from the build's TURN node."""

    id: str  # conversation turn id, ``D1:3``
    speaker: str
    text: str  # ``Speaker: body`` with relative dates resolved (what normalise stored)
    body: str  # the same without the speaker prefix
    date: str  # ISO day of the turn


class SegmentPlan(BaseModel):
    """One topic segment: its turns (in conversation order), summary and optional title."""

    turn_ids: list[str] = Field(min_length=1)
    summary: str
    title: str = ""


class GateVerdict(BaseModel):
    """The selective gate's verdict on one turn (MemORAI §3.1, "user-specific content")."""

    keep: bool
    reason: str = ""


class EntityPlan(BaseModel):
    """An entity with a short description and the turns it is cited from."""

    name: str
    description: str
    turn_ids: list[str] = Field(min_length=1)
    kind: str = "entity"  # the offline argument kind (person, proper, date...) or "entity"


class TriplePlan(BaseModel):
    """``subject --predicate--> object`` with its source turns."""

    subject: str
    predicate: str
    object: str
    turn_ids: list[str] = Field(min_length=1)


def turn_views(b: SessionBuild) -> list[TurnView]:
    """The session's turns in order, from the TURN nodes ``normalise`` created."""
    out = []
    for n in b.of_kind(NodeKind.TURN):
        speaker = str(n.attrs.get("speaker", ""))
        prefix = f"{speaker}: "
        body = n.text[len(prefix) :] if speaker and n.text.startswith(prefix) else n.text
        out.append(
            TurnView(
                id=n.attrs["turn_id"],
                speaker=speaker,
                text=n.text,
                body=body,
                date=str(n.attrs.get("timestamp", ""))[:10],
            )
        )
    return out
