"""Step 4: fusion with existing memory (CompassMem).

A new event whose most similar existing event has cosine >= 0.9 is merged into it: the new
node is dropped and its edges are redirected to the old event, so the old event gains the
new turns as provenance (edges owned by the new session, removed if it is deleted).
With an LLM, a near miss (cosine in [0.8, 0.9)) is judged: same_event merges, overlap or a
relation type adds a typed edge. Judge calls are capped per session.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import Edge, EdgeKind, NodeKind

JUDGE_FLOOR = 0.8
MAX_JUDGE_CALLS = 5


def _merge(b: SessionBuild, new_id: str, old_id: str) -> None:
    b.nodes = [n for n in b.nodes if n.id != new_id]
    kept = []
    for e in b.edges:
        if e.src == new_id:
            e.src = old_id
        if e.dst == new_id:
            e.dst = old_id
        if e.src != e.dst:
            kept.append(e)
    b.edges = kept
    b.notes.append(f"fusion: {new_id} merged into {old_id}")


async def fuse(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    events = b.of_kind(NodeKind.EVENT)
    idx, old = ctx.existing(NodeKind.EVENT)
    if not events or not len(idx):
        return b
    sims = ctx.embedder.embed([e.text for e in events]) @ old.T
    judged = 0
    for r, ev in enumerate(events):
        j = int(np.argmax(sims[r]))
        best, old_id = float(sims[r, j]), ctx.snapshot.ids[idx[j]]
        if best >= ctx.params.fusion_threshold:
            _merge(b, ev.id, old_id)
        elif ctx.llm is not None and best >= JUDGE_FLOOR and judged < MAX_JUDGE_CALLS:
            judged += 1
            from memgraph_agents.construct.llm.extract import judge_fusion

            try:
                verdict = await judge_fusion(ctx.llm, ev.text, ctx.snapshot.text[idx[j]], usage=ctx.usage,
                                             timeout=ctx.llm_timeout, semaphore=ctx.semaphore)
            except Exception as exc:  # the judge is optional: keep both events unlinked
                b.notes.append(f"fusion judge failed ({type(exc).__name__})")
                continue
            if verdict.same_event:
                _merge(b, ev.id, old_id)
            elif verdict.has_overlap or verdict.relation_type:
                # The judge's relation reads OLD --type--> NEW (like follow_up).
                b.edges.append(Edge(src=old_id, dst=ev.id, kind=EdgeKind.RELATION,
                                    label=verdict.relation_type or "overlap", session_id=session.id,
                                    weight=best, turn_ids=list(ev.turn_ids)))
    return b
