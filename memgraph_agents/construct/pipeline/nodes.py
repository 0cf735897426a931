"""The ingest pipeline's steps: each reads the plain state, runs one construction step on a
``BuildContext`` (the namespace's snapshot, embedder, chat model), and writes data back.

Each step has an offline and an LLM implementation, chosen by the run context's ``llm``; LLM
failures fall back to offline for that session (recorded in ``notes``). The generated-memory
layers (premem, memorai, sgmem) run only when the context's preset asks for them
(``memgraph_agents.presets``); otherwise they pass the build through unchanged.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Literal

from memgraph_agents.aio import off_loop
from memgraph_agents.config import Settings
from memgraph_agents.construct.append import link_to_stored, plan_append, strip_window
from memgraph_agents.construct.build import session_hash, turn_record
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.events import segment_events
from memgraph_agents.construct.fuse import fuse
from memgraph_agents.construct.layers import LAYER_STEPS
from memgraph_agents.construct.normalise import normalise_session
from memgraph_agents.construct.pipeline.state import (
    PipelineState,
    build_of,
    dump,
    plan_data,
    plan_of,
    remember_session,
    session_of,
)
from memgraph_agents.construct.relate import relate
from memgraph_agents.construct.sentence_layer import add_sentences
from memgraph_agents.construct.session_plan import build_identity, plan_write
from memgraph_agents.construct.topic_layer import update_topics
from memgraph_agents.errors import InputError
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.presets import get_preset
from memgraph_agents.runtime import MemoryContext, chat_limiter, get_chat_model, get_store
from memgraph_agents.storage import SessionRecord, SessionWrite
from memgraph_agents.storage.session_write import WriteMode


def context_settings(ctx: MemoryContext) -> Settings:
    """``ctx.settings()``, validated once per context object: validating ``Settings`` for every
    step cost more than a whole chat-turn append. Kept on the context itself, so the settings
    (and the ``Memory`` objects they carry) go with it, never held here after."""
    hit = ctx.__dict__.get("_validated_settings")
    if hit is not None:
        return hit
    settings = ctx.settings()
    ctx.__dict__["_validated_settings"] = settings
    return settings


# What one in-process run (``pipeline.sequence.run_steps``) opened once for all its steps: the
# store and, offline, the build context. Within a run the ingest lock is held, so the snapshot
# the steps read does not change before the commit; a step called outside a run has no memo
# (it opens its own). Worker threads see the same dict (``asyncio.to_thread`` copies the context).
RUN_MEMO: ContextVar[dict | None] = ContextVar("memgraph_run_memo", default=None)


def _store(settings: Settings):
    memo = RUN_MEMO.get()
    if memo is None:
        return get_store(settings)
    hit = memo.get("store")
    if hit is None or hit[0] is not settings:
        memo["store"] = hit = (settings, get_store(settings))
    return hit[1]


def _work(state: PipelineState, session: Session) -> Session:
    """The turns the build steps see: the whole session, or an append's window and new turns."""
    plan = plan_of(state)
    return plan.work_session(session) if plan else session


def _context(state: PipelineState, context: MemoryContext) -> BuildContext:
    """The steps' build context; offline, one per run (it counts no LLM usage per step, and
    what it caches, the snapshot's vectors by kind, is the same for every step)."""
    settings = context_settings(context)
    llm = get_chat_model(settings)
    memo = RUN_MEMO.get() if llm is None else None
    if memo is None:
        return _new_context(state, settings, llm)
    ctx = _memoised_context(state, settings)
    if ctx is None:
        ctx = _new_context(state, settings, llm)
        memo["context"] = (_context_key(state, settings), ctx)
    return ctx


async def _acontext(state: PipelineState, context: MemoryContext) -> BuildContext:
    """``_context`` from an async step: off the event loop unless the run has it already."""
    ctx = _memoised_context(state, context_settings(context))
    return ctx if ctx is not None else await off_loop(_context, state, context)


def _context_key(state: PipelineState, settings: Settings) -> tuple:
    return (settings, state.get("status"), state["session"], state.get("append"))


def _memoised_context(state: PipelineState, settings: Settings) -> BuildContext | None:
    """The run's build context for this state, if ``_context`` made one (offline runs only:
    the key holds the settings object, so a hit is a run with no chat model)."""
    memo = RUN_MEMO.get()
    hit = memo.get("context") if memo is not None else None
    if hit is not None and all(a is b for a, b in zip(hit[0], _context_key(state, settings))):
        return hit[1]
    return None


def _new_context(state: PipelineState, settings: Settings, llm) -> BuildContext:
    store = _store(settings)
    snap = store.snapshot()
    session = session_of(state)
    plan = plan_of(state)
    if plan is not None:
        exclude = frozenset(plan.drop_nodes)
    elif state.get("status") == "replace":  # the old version is not memory this build adds to
        exclude = frozenset(snap.ids[i] for i, o in enumerate(snap.owner) if o == session.id)
    else:
        exclude = frozenset()
    return BuildContext(
        snapshot=snap,
        embedder=store.embedder,
        params=settings.ingest,
        speakers=state.get("speakers") or list(session.participants),
        # the committed sessions of the snapshot the build reads (no read of every session row)
        seq=len(snap.sessions) + (0 if state.get("status") in ("append", "replace") else 1),
        llm=llm,
        usage=LLMUsage() if llm else None,
        llm_timeout=settings.llm_timeout,
        # one bound per chat model for the whole process, not per step or session
        semaphore=chat_limiter(settings, llm),
        session_id=session.id,
        exclude=exclude,
        first_event=plan.first_event if plan else 1,
        append=plan is not None,
        context_turns=plan.context if plan else [],
    )


def _usage(ctx: BuildContext) -> dict:
    return ctx.usage.snapshot() if ctx.usage is not None else {}


def identity(settings: Settings) -> dict[str, str]:
    return build_identity(settings.offline, settings.preset)


def plan_session(store, session: Session, settings: Settings, *, replace: bool = False, rebuild: bool = False):
    """The ``WritePlan`` of ``session`` against what ``store`` holds (raises ``SessionConflictError``)."""
    record = store.session(session.id)
    digests = store.db.session_digests(session.id) if record else []
    return plan_write(store.namespace, record, digests, session, identity(settings), replace=replace, rebuild=rebuild)


def check(state: PipelineState, context: MemoryContext) -> dict:
    settings = context_settings(context)
    store = _store(settings)
    session = session_of(state)
    out: dict = {}
    if state.get("keep_metadata"):  # resolved here, under the ingest lock: never a stale copy
        record = store.session(session.id)
        stored = dict(record.get("metadata") or {}) if record is not None else session.metadata
        if stored != session.metadata:
            session = session.model_copy(update={"metadata": stored})
            out["session"] = session.model_dump(mode="json")
            remember_session(out["session"], session)
    plan = plan_session(
        store, session, settings, replace=bool(state.get("replace")), rebuild=bool(state.get("rebuild"))
    )
    if state.get("existing") and plan.status == "new":  # checked under the ingest lock: no race with forget
        raise InputError(f"no session {session.id!r} in namespace {store.namespace!r} (deleted?)")
    out.update(status=plan.status, replaced=plan.status == "replace")
    if plan.note:
        out["notes"] = [plan.note]
    if plan.status == "append":
        a = plan_append(
            session,
            plan.n_stored,
            store.snapshot(),
            llm=not settings.offline,
            reopen_below=settings.ingest.segment_min_turns,
        )
        out["append"] = plan_data(a)
    return out


def route_check(state: PipelineState) -> Literal["normalise", "__end__"]:
    return "__end__" if state["status"] == "unchanged" else "normalise"  # "__end__" is END, as a Literal


def normalise(state: PipelineState, context: MemoryContext) -> dict:
    session = session_of(state)
    plan = plan_of(state)
    if plan is None:
        return {"build": dump(normalise_session(session))}
    return {"build": dump(normalise_session(_work(state, session), plan.first_index, whole=session))}


async def segment(state: PipelineState, context: MemoryContext) -> dict:
    ctx = await _acontext(state, context)
    session = session_of(state)
    b = await segment_events(build_of(state), _work(state, session), ctx)
    plan = plan_of(state)
    if plan is not None:  # the window's turns are stored already: later steps see new turns only
        b = strip_window(b, plan)
    return {"build": dump(b), "usage": _usage(ctx)}


async def relate_step(state: PipelineState, context: MemoryContext) -> dict:
    ctx = await _acontext(state, context)
    session = session_of(state)
    b = await relate(build_of(state), _work(state, session), ctx)
    plan = plan_of(state)
    if plan is not None:
        b = link_to_stored(b, session, plan)
    return {"build": dump(b), "usage": _usage(ctx)}


async def fuse_step(state: PipelineState, context: MemoryContext) -> dict:
    ctx = await _acontext(state, context)
    b = await fuse(build_of(state), _work(state, session_of(state)), ctx)
    return {"build": dump(b), "usage": _usage(ctx)}


def topics(state: PipelineState, context: MemoryContext) -> dict:
    ctx = _context(state, context)
    return {"build": dump(update_topics(build_of(state), _work(state, session_of(state)), ctx))}


def sentences(state: PipelineState, context: MemoryContext) -> dict:
    ctx = _context(state, context)
    return {"build": dump(add_sentences(build_of(state), _work(state, session_of(state)), ctx))}


def layer_node(name: str):
    """The ``name`` layer as a node: runs when the preset asks for it, else passes through."""

    async def run(state: PipelineState, context: MemoryContext) -> dict:
        if name not in get_preset(context_settings(context).preset).layers:
            return {}
        ctx = await _acontext(state, context)
        b = await LAYER_STEPS[name](build_of(state), _work(state, session_of(state)), ctx)
        return {"build": dump(b), "usage": _usage(ctx)}

    run.__name__ = name
    return run


def commit(state: PipelineState, context: MemoryContext) -> dict:
    settings = context_settings(context)
    store = _store(settings)
    session, b = session_of(state), build_of(state)
    plan = plan_of(state)
    snap = store.snapshot()
    # Vectors for nodes the store does not hold with this text (new ids, changed texts).
    fresh = [n for n in b.nodes if n.embed and (n.id not in snap or snap.text[snap.index[n.id]] != n.text)]
    vecs = list(store.embedder.embed([n.text for n in fresh])) if fresh else []
    # "llm" only when the events really came from the LLM: a session whose extraction fell
    # back is recorded as built offline (the reason is in info.notes).
    llm_events = any(n.attrs.get("builder") == "llm" for n in b.of_kind(NodeKind.EVENT))
    old = store.session(session.id) if plan is not None else None
    if old is not None and old["builder"] == "llm":
        llm_events = True  # an append keeps the events stored before it
    llm_builder = "llm" if not settings.offline and llm_events else "offline"
    notes = ((old or {}).get("info", {}).get("notes", []) + b.notes)[-20:]
    record = SessionRecord(
        id=session.id,
        date=session.date.isoformat(),
        participants=list(session.participants),
        n_turns=len(session.turns),
        content_hash=session_hash(session),
        builder=llm_builder,
        metadata=dict(session.metadata),
        info={
            "notes": notes,
            "usage": state.get("usage", {}),
            "preset": settings.preset,
            "identity": identity(settings),
        },
    )
    mode: WriteMode = "append" if plan is not None else ("replace" if state.get("status") == "replace" else "new")
    first = plan.n_stored if plan is not None else 0
    store.commit_session(
        SessionWrite(
            record=record,
            nodes=b.nodes,
            edges=b.edges,
            vectors={n.id: v for n, v in zip(fresh, vecs)},
            replace_nodes=b.replace_nodes,
            replace_edges=b.replace_edges,
            replace_kinds=("topic",) if b.replace_all_topics else (),
            mode=mode,
            drop_nodes=tuple(plan.drop_nodes) if plan else (),
            turns=[turn_record(t) for t in session.turns[first:]],
            turns_start=first,
        )
    )
    return {"status": "committed", "notes": b.notes, "builder": llm_builder}
