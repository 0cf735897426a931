"""Public ingest API: add conversations to memory, one session at a time (incremental).

Each session runs through the ingest pipeline (``construct.pipeline``) and commits
atomically; an unchanged session is skipped, so re-running an ingest adds nothing. A stored
session that grew (new turns after the stored ones) gets only its new turns built; a stored
session that changed otherwise is refused with ``SessionConflictError`` unless ``replace=True``
(then the new version replaces the old one in one commit). Every session of the conversation
is planned before the first write, so a conflict refuses the whole conversation.

One writer per namespace: each session's run (check -> ... -> commit) holds the namespace's
ingest lock, so concurrent ingests (threads, asyncio tasks, processes) into one namespace
take turns session by session and every session is built on the graph it is committed to.
The whole conversation is checked before anything is written (``validated_conversation``):
text is data, so control characters are removed (as the file loaders do), text that is not
valid Unicode is an ``InputError``, the input limits hold, and every relative time expression
resolves inside the calendar. ``plan_ingest`` does the same for a whole file at once and
chooses each conversation's namespace, refusing two that map to one. A failed first ingest
into a new namespace removes the namespace again (when no session of it was committed).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from memgraph_agents.aio import run_sync
from memgraph_agents.config import Settings
from memgraph_agents.construct.llm.prefetch import SessionPrefetch, prefetching
from memgraph_agents.construct.pipeline.nodes import plan_session
from memgraph_agents.construct.pipeline.sequence import run_session
from memgraph_agents.datadir import tighten
from memgraph_agents.ingest_plan import validated_conversation
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.model.outcome import SessionOutcome
from memgraph_agents.runtime import MemoryContext, chat_limiter, forget_store, get_chat_model, get_store
from memgraph_agents.storage.disk import DiskFullError, disk_full_error, is_disk_full
from memgraph_agents.storage.drop import discard_unopened, drop_namespace
from memgraph_agents.storage.graph_store import namespace_exists
from memgraph_agents.storage.namespaces import validate_stored_name


class IngestReport(BaseModel):
    conversation: str
    namespace: str
    sessions_new: int = 0
    sessions_replaced: int = 0
    sessions_appended: int = 0  # stored sessions that got new turns (counted in sessions_new too)
    sessions_unchanged: int = 0
    turns: int = 0
    seconds: float = 0.0
    notes: list[str] = Field(default_factory=list)
    llm_usage: dict[str, float] = Field(default_factory=dict)
    sessions: list[SessionOutcome] = Field(default_factory=list, description="what happened to each session")


ProgressFn = Callable[[str, int, int], None]  # (session id, done, total)


async def aingest_conversation(
    conversation: Conversation,
    settings: Settings,
    *,
    namespace: str | None = None,
    progress: ProgressFn | None = None,
    replace: bool = False,
    rebuild: bool = False,
    existing: bool = False,
    keep_metadata: bool = False,
) -> IngestReport:
    """See ``ingest_conversation``. Everything is validated first. ``existing``: every session
    must be stored already (checked under the ingest lock; an ``InputError`` otherwise).
    ``keep_metadata``: each session keeps the metadata stored with it, read under the ingest
    lock (a text-only note update never writes back a copy read before another update)."""
    conversation = validated_conversation(conversation, settings.limits)  # before anything is written
    ns = validate_stored_name(settings.namespace if namespace is None else namespace)  # "" is refused
    run = settings.override(namespace=ns)
    created: list[bool] = []

    def open_store() -> Any:  # one hand-off for both
        created.append(not namespace_exists(run, ns))
        return get_store(run)  # may wait for a lock

    opened = False
    try:
        store = await asyncio.to_thread(open_store)
        opened = True
        return await _ingest_sessions(conversation, run, store, progress, replace, rebuild, existing, keep_metadata)
    except BaseException as exc:
        if created and created[0]:  # a failed first ingest leaves no empty namespace for `stats` to list
            await asyncio.to_thread(_drop_if_empty, run, ns, opened)
        if isinstance(exc, Exception) and not isinstance(exc, DiskFullError) and is_disk_full(exc, run.data_dir):
            kept = await asyncio.to_thread(namespace_exists, run, ns)
            what = (
                f"namespace {ns!r} keeps the sessions committed before; the one being written was not stored"
                if kept
                else f"nothing was stored (namespace {ns!r} was not created)"
            )
            raise disk_full_error(Path(run.data_dir), what) from exc
        raise
    finally:
        if not run.chroma_host:  # embedded Chroma writes its files with the umask's mode
            await asyncio.to_thread(tighten, Path(run.data_dir) / "chroma")


def _drop_if_empty(settings: Settings, ns: str, opened: bool) -> None:
    """Drop the namespace this failed ingest created, unless it committed a session. One that
    could not even be opened (its graph file half-created, e.g. on a full disk) holds none:
    it goes without reading it, which a full disk may not allow."""

    try:
        forget_store(settings, ns)  # close it first; reopened on next use if it is kept
        if opened:
            drop_namespace(settings, ns, if_empty=True)
        else:
            discard_unopened(settings, ns)
    except Exception:  # best effort: the original error is the one to report
        pass


def _record_conversation(store: Any, conversation_id: str) -> None:
    """Remember which conversations a namespace holds (``plan_ingest`` refuses mapping onto it)."""
    held = set(json.loads(store.db.get_meta("conversations") or "[]"))
    if conversation_id not in held:
        store.db.set_meta("conversations", json.dumps(sorted(held | {conversation_id})))
    store.recorded_conversations.add(conversation_id)


async def _ingest_sessions(
    conversation: Conversation,
    run: Settings,
    store: Any,
    progress: ProgressFn | None,
    replace: bool,
    rebuild: bool,
    existing: bool = False,
    keep_metadata: bool = False,
) -> IngestReport:
    ns = run.namespace

    def precheck() -> list[str]:
        return [plan_session(store, s, run, replace=replace, rebuild=rebuild).status for s in conversation.sessions]

    # Sessions built whole with an LLM: their memory-independent calls run ahead, a few at once.
    prefetch = _prefetch(run)
    # Every session is planned up front when a conflict must refuse the whole conversation
    # before any of it is written (one session: its own check does that), or for the prefetch.
    # A chat write (one session, offline) skips it: planning reads every stored turn.
    upfront = prefetch is not None or (not replace and len(conversation.sessions) > 1)
    statuses = await asyncio.to_thread(precheck) if upfront else []  # SQLite reads: off the event loop
    ahead = [i for i, st in enumerate(statuses) if st in ("new", "replace")] if prefetch else []
    ctx = MemoryContext.from_settings(run)  # every setting travels: ctx.settings() == run
    report = IngestReport(conversation=conversation.id, namespace=ns)
    t0 = time.perf_counter()
    try:
        with prefetching(prefetch):
            await _build_sessions(
                conversation,
                run,
                store,
                progress,
                replace,
                rebuild,
                ctx,
                report,
                prefetch,
                ahead,
                existing,
                keep_metadata,
            )
    finally:
        if prefetch is not None:
            unused = (await prefetch.close()).snapshot()
            if unused["calls"]:  # calls made for sessions whose build did not use them still count
                for k, v in unused.items():
                    report.llm_usage[k] = report.llm_usage.get(k, 0) + v
    report.seconds = time.perf_counter() - t0
    # Recorded once per open store (an id is never removed from the list while it is open).
    if report.sessions_new and conversation.id not in store.recorded_conversations:
        await asyncio.to_thread(_record_conversation, store, conversation.id)
    return report


def _prefetch(run: Settings) -> SessionPrefetch | None:
    llm = get_chat_model(run)  # None offline
    return SessionPrefetch(llm, timeout=run.llm_timeout, semaphore=chat_limiter(run, llm)) if llm else None


async def _build_sessions(
    conversation: Conversation,
    run: Settings,
    store: Any,
    progress: ProgressFn | None,
    replace: bool,
    rebuild: bool,
    ctx: MemoryContext,
    report: IngestReport,
    prefetch: SessionPrefetch | None,
    ahead: list[int],
    existing: bool = False,
    keep_metadata: bool = False,
) -> None:
    with store.usage.use():  # an eviction from the store cache waits for this ingest
        total = len(conversation.sessions)
        for i, session in enumerate(conversation.sessions, start=1):
            if prefetch is not None:  # this session and the next few, as many as the model's limit
                window = [j for j in ahead if j >= i - 1][: run.llm_max_concurrency]
                prefetch.ensure([conversation.sessions[j] for j in window])
            # one writer per namespace, session by session (the lock is held check -> commit)
            out = await run_session(
                store,
                session,
                list(conversation.speakers),
                ctx,
                replace=replace,
                rebuild=rebuild,
                existing=existing,
                keep_metadata=keep_metadata,
            )
            status = out.get("status")
            if status == "unchanged":
                report.sessions_unchanged += 1
                report.sessions.append(SessionOutcome(id=session.id, status="unchanged"))
                report.notes.extend(f"{session.id}: {n}" for n in out.get("notes", []))
            else:
                appended = out.get("append")
                failed = [n for n in out.get("notes", []) if "LLM failed" in n]
                how = "appended" if appended else ("replaced" if out.get("replaced") else "new")
                report.sessions.append(
                    SessionOutcome(id=session.id, status=how, builder=out.get("builder", "offline"), fallbacks=failed)
                )
                report.sessions_new += 1
                report.sessions_appended += int(bool(appended))
                report.turns += len(session.turns) - (appended["n_stored"] if appended else 0)
                report.sessions_replaced += int(bool(out.get("replaced")))  # status is "committed" by now
                report.notes.extend(f"{session.id}: {n}" for n in out.get("notes", []))
                for k, v in (out.get("usage") or {}).items():
                    report.llm_usage[k] = report.llm_usage.get(k, 0) + v
            if progress:
                progress(session.id, i, total)


def ingest_conversation(
    conversation: Conversation,
    settings: Settings | None = None,
    *,
    namespace: str | None = None,
    progress: ProgressFn | None = None,
    replace: bool = False,
    rebuild: bool = False,
    existing: bool = False,
) -> IngestReport:
    """Ingest ``conversation`` into ``namespace`` (default: ``settings.namespace``).

    ``replace``: a stored session that differs is replaced (atomically) instead of refused
    with ``SessionConflictError``; an unchanged one stored with another builder or preset is
    rebuilt. ``rebuild``: only the latter (the CLI's explicit ``--llm`` / ``--preset``).
    Appending new turns to a stored session needs neither. ``existing``: every session must be
    stored already (an update; ``InputError`` for one that is not, checked under the ingest lock)."""
    return run_sync(
        aingest_conversation(
            conversation,
            settings or Settings.load(),
            namespace=namespace,
            progress=progress,
            replace=replace,
            rebuild=rebuild,
            existing=existing,
        )
    )
