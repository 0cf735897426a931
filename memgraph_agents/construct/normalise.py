"""Step 1: a session's turns -> session and turn nodes, ``contains`` and ``next`` edges.

Relative time expressions in each turn are resolved against the session date and written
into the stored text ("yesterday (13 March 2027)"), so both retrieval and the answering LLM
see absolute dates (PREMem's temporal normalisation, done without an LLM).
"""

from __future__ import annotations

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.timeparse import annotate_times, find_time_mentions
from memgraph_agents.model.conversation import Session, Turn
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind, node_id


def turn_text(turn: Turn, session: Session) -> str:
    ref = turn.timestamp or session.date
    body = annotate_times(turn.text.strip(), ref)
    if turn.image_caption:
        body = f"{body} [image: {turn.image_caption.strip()}]".strip()
    return f"{turn.speaker}: {body}"


def session_node(session: Session) -> Node:
    date = session.date.date().isoformat()
    head = " / ".join(t.content for t in session.turns[:3])
    return Node(
        id=node_id(NodeKind.SESSION, session.id),
        kind=NodeKind.SESSION,
        text=f"Session on {date}: {head}"[:1000],
        session_id=session.id,
        turn_ids=[t.id for t in session.turns],
        attrs={"date": session.date.isoformat(), "participants": session.participants},
    )


def normalise_session(session: Session, first_index: int = 0, whole: Session | None = None) -> SessionBuild:
    """Rows of ``session``'s turns; an append passes the turns it builds (their index in the
    session starts at ``first_index``) and the ``whole`` session (for the session node)."""
    b = SessionBuild(session_id=session.id)
    node = session_node(whole or session)
    sid = node.id
    b.nodes.append(node)
    prev: str | None = None
    for i, t in enumerate(session.turns, start=first_index):
        tid = node_id(NodeKind.TURN, t.id)
        ref = t.timestamp or session.date
        dates = sorted({m.date.isoformat() for m in find_time_mentions(t.text, ref)})
        attrs = {"turn_id": t.id, "index": i, "speaker": t.speaker, "timestamp": ref.isoformat(), "dates": dates}
        if t.role is not None:  # a chat with an agent: who spoke (``retrieval.asking`` reads it)
            attrs["role"] = t.role
        b.nodes.append(
            Node(
                id=tid,
                kind=NodeKind.TURN,
                text=turn_text(t, session),
                session_id=session.id,
                turn_ids=[t.id],
                attrs=attrs,
            )
        )
        b.edges.append(Edge(src=sid, dst=tid, kind=EdgeKind.CONTAINS, session_id=session.id, turn_ids=[t.id]))
        if prev is not None:
            b.edges.append(Edge(src=prev, dst=tid, kind=EdgeKind.NEXT, session_id=session.id, turn_ids=[t.id]))
        prev = tid
    return b
