"""The ingest pipeline as a LangGraph state machine: one run builds one session and commits it.

    check ─┬─> normalise -> segment -> relate -> fuse -> topics -> sentences
           │       -> premem -> memorai -> sgmem -> commit
           └─> END (the session is already stored unchanged)

``check`` plans the write (``construct.session_plan``): a new session, an unchanged one, an
append of new turns (only they are built, plus a bounded window: ``construct.append``), or a
replacement (the whole session is built while the old version stays readable, and ``commit``
swaps them in one transaction). A session that differs from the stored one is refused with
``SessionConflictError`` unless the run asks to ``replace`` it.

The graph is built from the pipeline's own step table (``pipeline.sequence``: ``NODES``,
``STEPS``): ingest is a straight line of functions, and the library's writes
(``memgraph_agents.ingest``) run that sequence (``run_session``); this graph is how Studio and
``langgraph dev`` see and run the very same steps. It validates nothing and takes no lock:
``run_graph_session`` runs it under the namespace's ingest lock, and its callers validate the
whole conversation first. State is plain data (``pipeline.state``); the run context is a
``MemoryContext``.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from langgraph.graph import END, START, StateGraph

from memgraph_agents.construct.pipeline.nodes import route_check
from memgraph_agents.construct.pipeline.sequence import NODES, STEPS, run_session, session_inputs
from memgraph_agents.construct.pipeline.state import PipelineState
from memgraph_agents.model.conversation import Session
from memgraph_agents.runtime import MemoryContext

__all__ = ["STEPS", "build_pipeline", "pipeline", "run_graph_session", "run_session"]


def build_pipeline(checkpointer: Any = None):
    g = StateGraph(PipelineState, context_schema=MemoryContext)
    for name, fn in NODES.items():  # the functions ``run_session`` runs in process
        g.add_node(name, fn)
    g.add_edge(START, "check")
    g.add_conditional_edges("check", route_check, {"normalise": "normalise", END: END})
    for a, b in pairwise([*STEPS, END]):
        g.add_edge(a, b)
    return g.compile(checkpointer=checkpointer, name="ingest_session")


pipeline = build_pipeline()


async def run_graph_session(
    store: Any,
    session: Session,
    speakers: list[str],
    context: MemoryContext,
    *,
    replace: bool,
    rebuild: bool,
    existing: bool = False,
    keep_metadata: bool = False,
) -> dict[str, Any]:
    """``run_session`` through the compiled graph (the in-process sequence's reference)."""
    inputs = session_inputs(session, speakers, replace, rebuild, existing, keep_metadata)
    async with store.ingest_lock.hold_async():
        return await pipeline.ainvoke(inputs, context=context)
