"""A ``MemoryDraft`` as graph rows, every one owned by the session being ingested.

==========  ======================================  ========================================
node        id / text                               edges (all ``session_id`` = the session)
==========  ======================================  ========================================
summary     ``summary:sgmem:<session>``             derived -> the session node;
            the summary                             evidence -> each turn it covers
fact        ``fact:<session>:<n>``                  evidence -> each source turn
            the fact
insight     ``insight:<session>:<n>``               derived -> each fact it is drawn from
            the insight
==========  ======================================  ========================================

``turn_ids``: the summary's covered turns, a fact's source turns, the union of an insight's
facts' turns (in turn order): retrieval flattens evidence to these. Attributes: ``layer =
"sgmem"``, ``builder`` (llm | offline), ``date`` (the session's); summaries ``scope =
"session"``; facts ``subject``, ``time``; insights ``subject``, ``time`` (the latest of its
facts' times, as SGMem dates an insight by the latest fact it merges), ``facts`` (their ids).
The summary id names the layer because MemORAI writes summaries too.
"""

from __future__ import annotations

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.sgmem.draft import MemoryDraft
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind, node_id

LAYER = "sgmem"


def summary_id(session_id: str) -> str:
    return node_id(NodeKind.SUMMARY, LAYER, session_id)


def write_draft(b: SessionBuild, session: Session, draft: MemoryDraft) -> SessionBuild:
    """Append the draft's nodes and edges to ``b`` (see the module docstring)."""
    sid = session.id
    order = {t.id: i for i, t in enumerate(session.turns)}
    base = {"layer": LAYER, "builder": draft.builder, "date": session.date.date().isoformat()}

    def evidence(src: str, turn_ids: list[str]) -> None:
        for t in turn_ids:
            b.edges.append(
                Edge(src=src, dst=node_id(NodeKind.TURN, t), kind=EdgeKind.EVIDENCE, session_id=sid, turn_ids=[t])
            )

    summ = summary_id(sid)
    b.nodes.append(
        Node(
            id=summ,
            kind=NodeKind.SUMMARY,
            text=draft.summary,
            session_id=sid,
            turn_ids=list(draft.summary_turns),
            attrs={**base, "scope": "session"},
        )
    )
    b.edges.append(
        Edge(
            src=summ,
            dst=node_id(NodeKind.SESSION, sid),
            kind=EdgeKind.DERIVED,
            session_id=sid,
            turn_ids=list(draft.summary_turns),
        )
    )
    evidence(summ, draft.summary_turns)

    fact_ids = [node_id(NodeKind.FACT, sid, str(k)) for k in range(1, len(draft.facts) + 1)]
    for fid, fact in zip(fact_ids, draft.facts):
        b.nodes.append(
            Node(
                id=fid,
                kind=NodeKind.FACT,
                text=fact.text,
                session_id=sid,
                turn_ids=list(fact.turn_ids),
                attrs={**base, "subject": fact.subject, "time": fact.time},
            )
        )
        evidence(fid, fact.turn_ids)

    for k, insight in enumerate(draft.insights, start=1):
        iid = node_id(NodeKind.INSIGHT, sid, str(k))
        sources = [draft.facts[j] for j in insight.facts]
        turns = sorted({t for f in sources for t in f.turn_ids}, key=lambda t: order.get(t, len(order)))
        times = [f.time for f in sources if f.time]
        b.nodes.append(
            Node(
                id=iid,
                kind=NodeKind.INSIGHT,
                text=insight.text,
                session_id=sid,
                turn_ids=turns,
                attrs={
                    **base,
                    "subject": insight.subject,
                    "time": max(times) if times else None,
                    "facts": [fact_ids[j] for j in insight.facts],
                },
            )
        )
        for j in insight.facts:
            b.edges.append(
                Edge(
                    src=iid,
                    dst=fact_ids[j],
                    kind=EdgeKind.DERIVED,
                    session_id=sid,
                    turn_ids=list(draft.facts[j].turn_ids),
                )
            )
    return b
