"""The ingest graph (DESIGN §5): one run adds one session to a namespace's memory.

    check ─┬─> normalise -> segment -> relate -> fuse -> topics -> sentences
           │       -> premem -> memorai -> sgmem -> commit
           └─> END (the session is already stored unchanged)

Each step has an offline and an LLM implementation, chosen by the run context's ``llm``;
LLM failures fall back to offline for that session (recorded in ``notes``). The generated-
memory layers (premem, memorai, sgmem) run only when the context's preset asks for them
(``memgraph_agents.presets``); otherwise they pass the build through unchanged.
"""

from __future__ import annotations

import operator
from itertools import pairwise
from typing import Annotated, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from memgraph_agents.aio import off_loop
from memgraph_agents.config import Settings
from memgraph_agents.construct.build import SessionBuild, session_hash
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.events import segment_events
from memgraph_agents.construct.fuse import fuse
from memgraph_agents.construct.layers import LAYER_STEPS
from memgraph_agents.construct.normalise import normalise_session
from memgraph_agents.construct.relate import relate
from memgraph_agents.construct.sentence_layer import add_sentences
from memgraph_agents.construct.topic_layer import update_topics
from memgraph_agents.llm.limits import call_limiter
from memgraph_agents.llm.loops import model_key
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.presets import get_preset
from memgraph_agents.runtime import MemoryContext, get_chat_model, get_store
from memgraph_agents.storage import SessionRecord, SessionWrite


def add_counts(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """Reducer: sum LLM usage counters from every step."""
    out = dict(a or {})
    for k, v in (b or {}).items():
        if isinstance(v, (int, float)):
            out[k] = out.get(k, 0) + v
    return out


def run_settings(runtime: Runtime[MemoryContext]) -> Settings:
    """The run's settings: the context over the environment, validated (``MemoryContext.settings``)."""
    return (runtime.context or MemoryContext()).settings()


class IngestState(TypedDict, total=False):
    builder: str  # how the committed session was built: "llm" or "offline"
    session: Session
    speakers: list[str]
    build: SessionBuild
    status: str  # new | replaced | unchanged | committed
    replace: bool  # the caller allows replacing a stored session that differs (ingest_conversation)
    replaced: bool  # an older version of this session was deleted by ``check``
    notes: Annotated[list[str], operator.add]
    usage: Annotated[dict[str, float], add_counts]


def _context(state: IngestState, runtime: Runtime[MemoryContext]) -> BuildContext:
    from memgraph_agents.llm.usage import LLMUsage

    settings = run_settings(runtime)
    store = get_store(settings)
    llm = get_chat_model(settings)
    return BuildContext(snapshot=store.snapshot(), embedder=store.embedder, params=settings.ingest,
                        speakers=state.get("speakers") or list(state["session"].participants),
                        seq=len(store.sessions()) + 1, llm=llm, usage=LLMUsage() if llm else None,
                        llm_timeout=settings.llm_timeout,
                        # one bound per chat model for the whole process, not per step or session
                        semaphore=call_limiter(model_key(llm), settings.llm_max_concurrency) if llm else None)


def _layers(settings: Settings) -> tuple[str, ...]:
    return get_preset(settings.preset).layers


def _usage(ctx: BuildContext) -> dict:
    return ctx.usage.snapshot() if ctx.usage is not None else {}


def check(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    settings = run_settings(runtime)
    store = get_store(settings)
    session = state["session"]
    old = store.session_hash(session.id)
    layers = _layers(settings)
    # an LLM ingest wants an LLM-built session; an offline one takes either build as it is
    accepted = {session_hash(session, layers, llm_built=True)}
    if settings.offline:
        accepted.add(session_hash(session, layers))
    if old in accepted:
        return {"status": "unchanged"}
    if old is not None:  # same id, new content (e.g. a chat session that grew): replace it
        store.delete_session(session.id)
        return {"status": "replaced", "replaced": True}
    return {"status": "new"}


def route_check(state: IngestState) -> Literal["normalise", "__end__"]:
    return "__end__" if state["status"] == "unchanged" else "normalise"  # "__end__" is END, as a Literal


def normalise(state: IngestState) -> dict:
    return {"build": normalise_session(state["session"])}


async def segment(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    ctx = await off_loop(_context, state, runtime)
    b = await segment_events(state["build"].model_copy(deep=True), state["session"], ctx)
    return {"build": b, "usage": _usage(ctx)}


async def relate_step(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    ctx = await off_loop(_context, state, runtime)
    b = await relate(state["build"].model_copy(deep=True), state["session"], ctx)
    return {"build": b, "usage": _usage(ctx)}


async def fuse_step(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    ctx = await off_loop(_context, state, runtime)
    b = await fuse(state["build"].model_copy(deep=True), state["session"], ctx)
    return {"build": b, "usage": _usage(ctx)}


def topics(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    ctx = _context(state, runtime)
    return {"build": update_topics(state["build"].model_copy(deep=True), state["session"], ctx)}


def sentences(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    ctx = _context(state, runtime)
    return {"build": add_sentences(state["build"].model_copy(deep=True), state["session"], ctx)}


def layer_node(name: str):
    """The ``name`` layer as a node: runs when the preset asks for it, else passes through."""

    async def run(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
        if name not in _layers(run_settings(runtime)):
            return {}
        ctx = await off_loop(_context, state, runtime)
        b = await LAYER_STEPS[name](state["build"].model_copy(deep=True), state["session"], ctx)
        return {"build": b, "usage": _usage(ctx)}

    run.__name__ = name
    return run


def commit(state: IngestState, runtime: Runtime[MemoryContext]) -> dict:
    settings = run_settings(runtime)
    store = get_store(settings)
    session, b = state["session"], state["build"]
    snap = store.snapshot()
    fresh = [n for n in b.nodes if n.embed and n.id not in snap]
    vecs = list(store.embedder.embed([n.text for n in fresh])) if fresh else []
    # "llm" only when the events really came from the LLM: a session whose extraction fell
    # back is recorded as built offline (the reason is in info.notes).
    llm_events = any(n.attrs.get("builder") == "llm" for n in b.of_kind(NodeKind.EVENT))
    llm_builder = "llm" if not settings.offline and llm_events else "offline"
    record = SessionRecord(id=session.id, date=session.date.isoformat(), participants=list(session.participants),
                           n_turns=len(session.turns), content_hash=session_hash(session, _layers(settings),
                                                                     llm_built=llm_builder == "llm"),
                           builder=llm_builder,
                           info={"notes": b.notes, "usage": state.get("usage", {}), "preset": settings.preset})
    store.commit_session(SessionWrite(record=record, nodes=b.nodes, edges=b.edges,
                                      vectors={n.id: v for n, v in zip(fresh, vecs)},
                                      replace_nodes=b.replace_nodes, replace_edges=b.replace_edges,
                                      replace_kinds=("topic",)))
    return {"status": "committed", "notes": b.notes, "builder": llm_builder}


def build_ingest_graph():
    g = StateGraph(IngestState, context_schema=MemoryContext)
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
    chain = ["normalise", "segment", "relate", "fuse", "topics", "sentences", *LAYER_STEPS, "commit", END]
    for a, b in pairwise(chain):
        g.add_edge(a, b)
    return g.compile()


graph = build_ingest_graph()
