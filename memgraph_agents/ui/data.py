"""What each page shows, read through ``Memory`` (never the stores: the app runs on whatever
``Memory`` runs on). Plain data in, plain data out; the views turn it into HTML."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memgraph_agents.api import Memory
from memgraph_agents.api.items import MemoryItem, Neighbour
from memgraph_agents.model.evidence import Evidence, superseded_note


def supersession_mark(on: str | None, by: list[str]) -> str:
    """ "superseded on DATE by TURN" for a replaced statement, "" for a current one: the words
    ``Evidence.cite`` ends such a statement with (one formatter for every door)."""
    return superseded_note(on, by).strip().removeprefix("(").removesuffix(")")


def evidence_mark(ev: Evidence) -> str:
    """ "superseded on DATE by TURN": ``Evidence.mark``'s wording, unbracketed as on the session page."""
    return supersession_mark(ev.superseded_on, list(ev.superseded_by))


def short_reply_context(ev: Evidence) -> str:
    """The question a short reply answers, as every door prints it (``Evidence.context_note``)."""
    return ev.context_note()


def turn_id(node_id: str) -> str:
    return node_id.removeprefix("turn:")


@dataclass
class TurnRow:
    id: str
    speaker: str
    text: str
    timestamp: str
    superseded_by: list[str] = field(default_factory=list)
    superseded_on: str = ""
    supersedes: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)

    @property
    def mark(self) -> str:
        return supersession_mark(self.superseded_on, self.superseded_by)


@dataclass
class EventRow:
    node_id: str
    text: str
    turn_ids: list[str]
    arguments: list[Neighbour]
    topics: list[Neighbour]


@dataclass
class SessionView:
    item: MemoryItem
    turns: list[TurnRow]
    events: list[EventRow]


def namespace_rows(memory: Memory, names: list[str]) -> list[dict[str, Any]]:
    return [memory.stats(ns) for ns in names]


def session_view(memory: Memory, namespace: str, session_id: str) -> SessionView:
    """A session's turns with the events built from them (their arguments and topics) and the
    supersession marks of each turn."""
    item = memory.get(session_id, namespace=namespace)
    dates: dict[str, str] = {}
    rows: list[TurnRow] = []
    event_ids: dict[str, None] = {}
    for t in item.turns:
        got = memory.get(t.id, namespace=namespace)
        row = TurnRow(t.id, t.speaker, t.text, t.timestamp or "")
        for n in got.neighbours:
            if n.edge == "supersedes" and n.kind == "turn":
                (row.superseded_by if n.direction == "in" else row.supersedes).append(turn_id(n.node_id))
            elif n.edge == "evidence" and n.kind == "event":
                row.events.append(n.node_id)
                event_ids.setdefault(n.node_id)
        if row.superseded_by:
            later = row.superseded_by[0]
            if later not in dates:
                dates[later] = memory.get(later, namespace=namespace).date
            row.superseded_on = dates[later][:10]
        rows.append(row)
    events = []
    for node_id in event_ids:
        ev = memory.get(node_id, namespace=namespace)
        events.append(
            EventRow(
                node_id,
                ev.text,
                ev.turn_ids,
                [n for n in ev.neighbours if n.kind == "argument"],
                [n for n in ev.neighbours if n.kind == "topic"],
            )
        )
    return SessionView(item, rows, events)
