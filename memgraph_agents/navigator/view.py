"""What the navigator sees of a snapshot: events, their turns, topics and typed neighbours.

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
from memgraph_agents.model.ranking import exact_dots
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


class Scorer:
    """Per-question similarity of events to subgoals, relative to what localisation found.

    ``sims``: cosine of each subgoal to the event, taken as the best of the event's own vector
    and its turns' vectors (an offline event is several turns; one matching turn is enough).
    ``os``: the one-shot ranking's turn scores, normalised by its best score, so an event's
    one-shot score is its best turn's. Both are made relative (``rel``) so one threshold
    means the same thing for every question and subgoal.
    """

    def __init__(
        self,
        snap: GraphSnapshot,
        view: EventView,
        subgoal_vectors: np.ndarray,
        one_shot: dict[int, float],
        refs: list[float] | None = None,
    ) -> None:
        self.snap, self.view = snap, view
        self.h = np.atleast_2d(subgoal_vectors).astype(np.float32)
        self.one_shot = one_shot
        self.refs = np.asarray(refs if refs else np.ones(len(self.h)), dtype=np.float32)
        self._cache: dict[int, np.ndarray] = {}

    def sims(self, nodes: list[int]) -> np.ndarray:
        """``(len(nodes), n_subgoals)`` cosines."""
        todo = [n for n in dict.fromkeys(nodes) if n not in self._cache]
        if todo:
            vecs = self.snap.vectors()
            rows, owners = [], []
            for n in todo:
                for r in [n, *self.view.turns.get(n, [])]:
                    rows.append(r)
                    owners.append(n)
            s = vecs[rows] @ self.h.T if vecs.shape[1] == self.h.shape[1] else np.zeros((len(rows), len(self.h)))
            owners_arr = np.asarray(owners)
            for n in todo:
                self._cache[n] = s[owners_arr == n].max(axis=0)
        if not nodes:
            return np.zeros((0, len(self.h)), dtype=np.float32)
        return np.stack([self._cache[n] for n in nodes])

    def os_score(self, node: int) -> float:
        return max((self.one_shot.get(t, 0.0) for t in self.view.turns.get(node, [])), default=0.0)

    def rel(self, nodes: list[int]) -> np.ndarray:
        """Cosines divided by each subgoal's best localisation cosine (``refs``)."""
        return self.sims(nodes) / np.maximum(self.refs, 1e-6)

    def turn_order(self, node: int, qv: np.ndarray) -> list[int]:
        """The event's turns, best first: one-shot score, then cosine to the question."""
        ts = self.view.turns.get(node, [])
        vecs = self.snap.vectors()
        # Exact cosines (model.ranking): two copies of a turn tie exactly and go by node id.
        fits = ts and vecs.shape[1] == qv.shape[0]
        dense = (
            exact_dots(vecs, qv.reshape(1, -1), ts, np.zeros(len(ts), dtype=np.int64)) if fits else np.zeros(len(ts))
        )
        rank = self.snap.id_rank
        return [
            t for *_, t in sorted(zip([-self.one_shot.get(t, 0.0) for t in ts], -dense, [int(rank[t]) for t in ts], ts))
        ]
