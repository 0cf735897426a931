"""The ingest pipeline as a LangGraph state machine: one run builds one session and commits it.

    check ─┬─> normalise -> segment -> relate -> fuse -> topics -> sentences
           │       -> premem -> memorai -> sgmem -> commit
           └─> END (the session is already stored unchanged)

``check`` plans the write (``construct.session_plan``): a new session, an unchanged one, an
append of new turns (only they are built, plus a bounded window: ``construct.append``), or a
replacement (the whole session is built while the old version stays readable, and ``commit``
swaps them in one transaction). A session that differs from the stored one is refused with
``SessionConflictError`` unless the run asks to ``replace`` it.

The graph validates nothing and takes no lock: ``run_session`` runs it under the namespace's
ingest lock, and its callers (``memgraph_agents.ingest``) validate the whole conversation
first. State is plain data (``pipeline.state``); the run context is a ``MemoryContext``.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from langgraph.graph import END, START, StateGraph

from memgraph_agents.construct.layers import LAYER_STEPS
from memgraph_agents.construct.pipeline.nodes import (
    check,
    commit,
    fuse_step,
    layer_node,
    normalise,
    relate_step,
    route_check,
    segment,
    sentences,
    topics,
)
from memgraph_agents.construct.pipeline.state import PipelineState
from memgraph_agents.model.conversation import Session
from memgraph_agents.runtime import MemoryContext

STEPS = ["normalise", "segment", "relate", "fuse", "topics", "sentences", *LAYER_STEPS, "commit"]


def build_pipeline(checkpointer: Any = None):
    g = StateGraph(PipelineState, context_schema=MemoryContext)
    g.add_node("check", check)
    g.add_node("normalise", normalise)
    g.add_node("segment", segment)
    g.add_node("relate", relate_step)
    g.add_node("fuse", fuse_step)
    g.add_node("topics", topics)
    g.add_node("sentences", sentences)
    for name in LAYER_STEPS:
        g.add_node(name, layer_node(name))
    g.add_node("commit", commit)
    g.add_edge(START, "check")
    g.add_conditional_edges("check", route_check, {"normalise": "normalise", END: END})
    for a, b in pairwise([*STEPS, END]):
        g.add_edge(a, b)
    return g.compile(checkpointer=checkpointer, name="ingest_session")


pipeline = build_pipeline()


async def run_session(
    store: Any,
    session: Session,
    speakers: list[str],
    context: MemoryContext,
    *,
    replace: bool,
    rebuild: bool,
    existing: bool = False,
) -> dict[str, Any]:
    """Build and commit ``session`` in ``store``'s namespace, holding its ingest lock from the
    check to the commit (one writer per namespace: every session is built on the graph it is
    committed to). ``existing``: the session must be stored already (an update never
    re-creates a deleted one; checked under the lock). Returns the pipeline's final state."""
    async with store.ingest_lock.hold_async():
        return await pipeline.ainvoke(
            {
                "session": session.model_dump(mode="json"),
                "speakers": list(speakers),
                "replace": replace,
                "rebuild": rebuild,
                "existing": existing,
            },
            context=context,
        )
