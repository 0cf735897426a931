"""Appending turns to a stored session (a chat thread that grew): build only what is new.

A write of new turns costs the new turns plus a bounded window of earlier ones, never the
whole session:

* offline, the new turns are segmented among themselves (semantic shift, as at once); the
  session's last event is reopened only while it is shorter than ``segment_min_turns`` (a
  lone turn written on its own): its turns are segmented again with the new ones and the
  event is replaced in the same commit. A chat written a turn at a time so gets events of
  whole exchanges, and each event text is embedded about once: reopening every last event
  would embed a growing text on every write (measured: 3x the text of an ingest at once);
* with an LLM, events are extracted from the new turns only, in one call that shows the last
  ``LLM_CONTEXT_TURNS`` stored turns as context; stored events are kept as they are.

The new events continue the session's event numbering and follow the last kept event
(``follow_up``). Turn, sentence and argument nodes of earlier turns are never rebuilt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.model.conversation import Session, Turn
from memgraph_agents.model.graph import Edge, EdgeKind, NodeKind, node_id
from memgraph_agents.storage.snapshot import GraphSnapshot

LLM_CONTEXT_TURNS = 4


@dataclass
class AppendPlan:
    n_stored: int  # turns already stored
    window: list[Turn] = field(default_factory=list)  # stored turns built again (offline: the reopened event)
    context: list[Turn] = field(default_factory=list)  # stored turns shown to the LLM only
    drop_nodes: list[str] = field(default_factory=list)  # the session's nodes this append replaces
    first_event: int = 1
    prev_event: str | None = None  # the last kept event: follows_up to the first new one
    prev_turn: str | None = None  # the last stored turn (``next`` edge to the first new one)

    def work_session(self, session: Session) -> Session:
        """The part of ``session`` the build steps see: the window and the new turns."""
        return Session(
            id=session.id,
            date=session.date,
            participants=session.participants,
            turns=self.window + list(session.turns[self.n_stored :]),
        )

    @property
    def first_index(self) -> int:
        return self.n_stored - len(self.window)


def _event_number(event_id: str) -> int:
    m = re.search(r":(\d+)$", event_id)
    return int(m.group(1)) if m else 0


def plan_append(
    session: Session, n_stored: int, snapshot: GraphSnapshot, *, llm: bool, reopen_below: int = 2
) -> AppendPlan:
    """What an append of ``session.turns[n_stored:]`` rebuilds (see the module docstring)."""
    stored_turns = list(session.turns[:n_stored])
    prefix = f"event:{session.id}:"
    events = sorted(
        (
            i
            for i in snapshot.indices_of(NodeKind.EVENT)
            if snapshot.owner[i] == session.id and snapshot.ids[i].startswith(prefix)
        ),
        key=lambda i: _event_number(str(snapshot.ids[i])),
    )
    plan = AppendPlan(n_stored=n_stored, prev_turn=node_id(NodeKind.TURN, stored_turns[-1].id))
    last = _event_number(str(snapshot.ids[events[-1]])) if events else 0
    if llm or not events:
        plan.context = stored_turns[-LLM_CONTEXT_TURNS:] if llm else []
        plan.first_event = last + 1
        plan.prev_event = snapshot.ids[events[-1]] if events else None
        return plan
    # Offline: reopen the last event when it is short and its turns are the last stored ones.
    tail = snapshot.ids[events[-1]]
    tail_turns = set(snapshot.turn_ids[events[-1]])
    k = n_stored
    while k > 0 and stored_turns[k - 1].id in tail_turns:
        k -= 1
    if k == n_stored or n_stored - k >= reopen_below:  # keep the last event, start anew
        plan.first_event, plan.prev_event = last + 1, tail
        return plan
    plan.window = stored_turns[k:]
    plan.drop_nodes = [tail]
    plan.first_event = last
    plan.prev_event = snapshot.ids[events[-2]] if len(events) > 1 else None
    return plan


def strip_window(b: SessionBuild, plan: AppendPlan) -> SessionBuild:
    """Drop the window's turn rows (stored already) from a build, once events are segmented;
    keep what is new about them (the events citing them, the ``next`` edge to a new turn)."""
    old = {node_id(NodeKind.TURN, t.id) for t in plan.window}
    b.nodes = [n for n in b.nodes if n.id not in old]
    b.edges = [e for e in b.edges if not (e.dst in old and e.kind in (EdgeKind.CONTAINS, EdgeKind.NEXT))]
    return b


def link_to_stored(b: SessionBuild, session: Session, plan: AppendPlan) -> SessionBuild:
    """The edges from stored rows to the new ones: ``next`` turn, ``follow_up`` event."""
    new_turns = [n for n in b.of_kind(NodeKind.TURN)]
    if not plan.window and plan.prev_turn and new_turns:
        first = new_turns[0]
        b.edges.append(
            Edge(
                src=plan.prev_turn,
                dst=first.id,
                kind=EdgeKind.NEXT,
                session_id=session.id,
                turn_ids=list(first.turn_ids),
            )
        )
    events = b.of_kind(NodeKind.EVENT)
    if plan.prev_event and events:
        a, c = plan.prev_event, events[0]
        if not any(e.src == a and e.dst == c.id and e.kind == EdgeKind.RELATION for e in b.edges):
            b.edges.append(
                Edge(
                    src=a,
                    dst=c.id,
                    kind=EdgeKind.RELATION,
                    label="follow_up",
                    session_id=session.id,
                    turn_ids=c.turn_ids[:1],
                )
            )
    return b
