"""Step 2: event segmentation (CompassMem, EMem), offline or by LLM with per-session fallback.

Offline: boundaries where adjacent turns drift apart semantically (``segment_by_shift``);
event text = its turns; time = the session date plus any resolved dates in the turns.
LLM: one structured call per session; on any failure the offline segmenter takes over for
that session, so a misbehaving LLM never loses a session.
"""

from __future__ import annotations

from memgraph_agents.aio import off_loop
from memgraph_agents.construct.build import SessionBuild, fallback_note
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.llm.extract import extract_events
from memgraph_agents.construct.llm.prefetch import current_prefetch
from memgraph_agents.construct.segment import needs_vectors, segment_by_shift
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind, node_id


def _event(
    b: SessionBuild,
    session: Session,
    k: int,
    text: str,
    turn_ids: list[str],
    participants: list[str],
    time: str,
    dates: list[str],
    extra: dict | None = None,
) -> None:
    eid = node_id(NodeKind.EVENT, session.id, str(k))
    b.nodes.append(
        Node(
            id=eid,
            kind=NodeKind.EVENT,
            text=text,
            session_id=session.id,
            turn_ids=turn_ids,
            attrs={"time": time, "dates": dates, "participants": participants[:3], **(extra or {})},
        )
    )
    for t in turn_ids:
        b.edges.append(
            Edge(src=eid, dst=node_id(NodeKind.TURN, t), kind=EdgeKind.EVIDENCE, session_id=session.id, turn_ids=[t])
        )


def segment_offline(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    turns = b.of_kind(NodeKind.TURN)
    p = ctx.params
    if needs_vectors(len(turns), p.segment_min_turns, p.segment_max_turns):
        vecs = ctx.embedder.embed([t.text for t in turns])
        spans = segment_by_shift(
            vecs,
            min_size=p.segment_min_turns,
            max_size=p.segment_max_turns,
            window=p.segment_window,
            depth=p.segment_depth,
        )
    else:  # one possible segmentation: the turns are embedded later, with the rest of the build
        spans = [(0, len(turns))] if turns else []
    for k, (s, e) in enumerate(spans, start=ctx.first_event):
        group = turns[s:e]
        speakers = list(dict.fromkeys(t.attrs["speaker"] for t in group))
        dates = sorted({d for t in group for d in t.attrs.get("dates", [])})
        _event(
            b,
            session,
            k,
            "\n".join(t.text for t in group),
            [t.attrs["turn_id"] for t in group],
            speakers,
            session.date.date().isoformat(),
            dates,
            {"builder": "offline"},
        )
    return b


async def segment_llm(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    prefetch = current_prefetch()  # the ingest may have asked already (construct.llm.prefetch)
    try:
        events = await prefetch.events(session, ctx.context_turns, ctx.usage) if prefetch else None
        if events is None:
            events = await extract_events(
                ctx.llm,
                session,
                usage=ctx.usage,
                timeout=ctx.llm_timeout,
                semaphore=ctx.semaphore,
                context=ctx.context_turns,
            )
    except Exception as exc:  # any LLM failure: this session falls back, nothing is lost
        b.notes.append(fallback_note("events", exc))
        return await off_loop(segment_offline, b, session, ctx)
    for k, ev in enumerate(events, start=ctx.first_event):
        _event(
            b,
            session,
            k,
            ev.text,
            list(ev.turn_ids),
            list(ev.participants),
            ev.time or session.date.date().isoformat(),
            [ev.time] if ev.time else [],
            {"builder": "llm", "arguments": [[a.role, a.value] for a in ev.arguments]},
        )
    return b


async def segment_events(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    if ctx.llm is None:  # embedding work: off the event loop
        return await off_loop(segment_offline, b, session, ctx)
    return await segment_llm(b, session, ctx)
