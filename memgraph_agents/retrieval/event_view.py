"""What the graph searches see of a snapshot: events, their turns, topics and typed neighbours.

Built once per snapshot (``GraphSnapshot.derived``) so a question pays only for scoring.
Neighbours of an event, in the order an explorer is shown them:

1. ``relation`` edges (typed: follow_up, causal, temporal_before…), both directions;
2. ``similar`` event–event edges (cross-session, offline construction);
3. events sharing a specific argument (an entity, keyphrase, date or number used by at most
   ``MAX_ARG_EVENTS`` events; participants connect everything and are left out).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.evidence import provenance
from memgraph_agents.storage.snapshot import EDGE_CODE, KIND_CODE, GraphSnapshot

MAX_ARG_EVENTS = 6  # an argument shared by more events is too generic to be a path
MAX_NEIGHBOURS = 12  # per event, shown to explorers and scored for the queue


@dataclass(frozen=True)
class Neighbour:
    node: int
    relation: str  # edge label (follow_up, similar, shares "Pixel", ...)
    outgoing: bool  # False: the edge points at the event we came from


@dataclass
class EventView:
    events: np.ndarray
    turns: dict[int, list[int]]  # event -> its provenance turns (conversation order)
    events_of_turn: dict[int, list[int]]
    topic: dict[int, int]  # event -> topic node (absent: no topic layer)
    neighbours: dict[int, list[Neighbour]] = field(default_factory=dict)

    def turn_ids(self, snap: GraphSnapshot, e: int) -> list[str]:
        return [snap.attrs[t]["turn_id"] for t in self.turns.get(e, [])]


def event_view(snap: GraphSnapshot) -> EventView:
    return snap.derived("navigator_view", lambda: _build(snap))


def _build(snap: GraphSnapshot) -> EventView:
    events = snap.indices_of(NodeKind.EVENT)
    turn_index = {snap.attrs[i]["turn_id"]: int(i) for i in snap.indices_of(NodeKind.TURN)}
    turns = {int(e): [turn_index[t] for t in provenance(snap, int(e)) if t in turn_index] for e in events}
    events_of_turn: dict[int, list[int]] = {}
    for e, ts in turns.items():
        for t in ts:
            events_of_turn.setdefault(t, []).append(e)
    view = EventView(events=events, turns=turns, events_of_turn=events_of_turn, topic=snap.event_topic)
    is_event = snap.kind == KIND_CODE["event"]
    nb: dict[int, dict[int, Neighbour]] = {int(e): {} for e in events}

    def add(a: int, b: int, label: str, out: bool) -> None:
        if a != b and b not in nb[a]:
            nb[a][b] = Neighbour(b, label, out)

    for code in ("relation", "similar"):
        m = (snap.ekind == EDGE_CODE[code]) & is_event[snap.src] & is_event[snap.dst]
        for j in np.flatnonzero(m):
            s, d = int(snap.src[j]), int(snap.dst[j])
            label = snap.elabel[j] if code == "relation" and snap.elabel[j] else code
            add(s, d, label, True)
            add(d, s, label, code == "similar")
    specific = np.array([lbl != "participant" for lbl in snap.elabel], dtype=bool)
    role = (snap.ekind == EDGE_CODE["role"]) & specific if len(specific) else np.zeros(0, dtype=bool)
    users: dict[int, list[int]] = {}
    for s, d in zip(snap.src[role], snap.dst[role]):
        if is_event[s]:
            users.setdefault(int(d), []).append(int(s))
    for arg, evs in users.items():
        evs = list(dict.fromkeys(evs))
        if 1 < len(evs) <= MAX_ARG_EVENTS:
            label = f'shares "{snap.text[arg][:40]}"'
            for a in evs:
                for b in evs:
                    add(a, b, label, True)
    view.neighbours = {e: list(d.values())[:MAX_NEIGHBOURS] for e, d in nb.items()}
    return view
