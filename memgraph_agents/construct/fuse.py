"""Step 4: fusion with existing memory (CompassMem).

A new event whose most similar existing event has cosine >= 0.9 is merged into it: the old
event gains the new turns as provenance (edges owned by the new session, removed if it is
deleted) and the new event remains only as a non-embedded ``same_event`` link.
With an LLM, a near miss (cosine in [0.8, 0.9)) is judged: same_event merges, overlap or a
relation type adds a typed edge. Judge calls are capped per session.
"""

from __future__ import annotations

from memgraph_agents.aio import off_loop
from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.llm.extract import judge_fusion
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import Edge, EdgeKind, NodeKind
from memgraph_agents.model.ranking import exact_dots, top_k

JUDGE_FLOOR = 0.8
MAX_JUDGE_CALLS = 5


def _merge(b: SessionBuild, new_id: str, old_id: str, session_id: str) -> None:
    """Fuse ``new_id`` into ``old_id``: the old event gains the new turns as provenance.

    The new event stays as a non-embedded node linked ``same_event`` to the old one and keeps
    its own evidence and role edges: forgetting the *older* session then still leaves the
    newer turns with an event (each session owns exactly what it produced).
    """
    node = next(n for n in b.nodes if n.id == new_id)
    node.embed = False
    node.attrs["merged_into"] = old_id
    for e in [e for e in b.edges if e.src == new_id and e.kind == EdgeKind.EVIDENCE]:
        b.edges.append(Edge(src=old_id, dst=e.dst, kind=EdgeKind.EVIDENCE, session_id=session_id, turn_ids=e.turn_ids))
    b.edges.append(
        Edge(
            src=new_id,
            dst=old_id,
            kind=EdgeKind.RELATION,
            label="same_event",
            session_id=session_id,
            turn_ids=list(node.turn_ids),
        )
    )
    b.notes.append(f"fusion: {new_id} merged into {old_id}")


async def fuse(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    events = b.of_kind(NodeKind.EVENT)
    # store reads and embeddings: off the loop
    idx, old = await off_loop(ctx.existing, NodeKind.EVENT, other_sessions=True)
    if not events or not len(idx):
        return b
    new = await off_loop(ctx.embedder.embed, [e.text for e in events])
    sims = new @ old.T
    rank = ctx.snapshot.id_rank[idx]
    judged = 0
    for r, ev in enumerate(events):
        j = int(top_k(sims[r], 1, tiebreak=rank)[0])  # near-ties by event id, not row order
        # The thresholds judge the pair's exact cosine, not its BLAS rounding (model.ranking).
        best, old_id = float(exact_dots(new, old, [r], [j])[0]), ctx.snapshot.ids[idx[j]]
        if best >= ctx.cut(ctx.params.fusion_threshold):
            _merge(b, ev.id, old_id, session.id)
        elif ctx.llm is not None and best >= ctx.cut(JUDGE_FLOOR) and judged < MAX_JUDGE_CALLS:
            judged += 1

            try:
                verdict = await judge_fusion(
                    ctx.llm,
                    ev.text,
                    ctx.snapshot.text[idx[j]],
                    usage=ctx.usage,
                    timeout=ctx.llm_timeout,
                    semaphore=ctx.semaphore,
                )
            except Exception as exc:  # the judge is optional: keep both events unlinked
                b.notes.append(f"fusion judge: LLM failed ({type(exc).__name__}); events kept unfused")
                continue
            if verdict.same_event:
                _merge(b, ev.id, old_id, session.id)
            elif verdict.has_overlap or verdict.relation_type:
                # The judge's relation reads OLD --type--> NEW (like follow_up).
                b.edges.append(
                    Edge(
                        src=old_id,
                        dst=ev.id,
                        kind=EdgeKind.RELATION,
                        label=verdict.relation_type or "overlap",
                        session_id=session.id,
                        weight=ctx.scaled(best),
                        turn_ids=list(ev.turn_ids),
                    )
                )
    return b
