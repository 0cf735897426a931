"""A session's LLM work that does not depend on memory, started ahead of its build (a slow server serves several at once).

Sessions are built one after another: each build reads the memory the sessions before it
committed (fusion, cross-session links, topics). Two LLM calls of a session read nothing but
the session: its events, then the relations among those events. An ingest starts them for
the next few sessions at once (``SessionPrefetch.ensure``), under the model's limiter, so a
slow server serves several sessions together; each build then awaits its own results
(``SessionPrefetch.events`` / ``.relations``, found through ``current_prefetch``) instead of
calling the LLM in turn.

Nothing changes in what is built: a build uses a prefetched result only when it asks for
exactly what was prefetched (the same session; relations over the same events), and a
prefetched failure raises in the build as the call would have, so the session falls back
exactly as before. Calls are counted once: a result's usage joins the build's when it is
used; the usage of calls never used is what ``close`` returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from memgraph_agents.construct.build import session_hash
from memgraph_agents.construct.llm.extract import extract_events, extract_relations
from memgraph_agents.construct.llm.schemas import ExtractedEvent, ExtractedRelation
from memgraph_agents.llm.limits import CallSlot
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.conversation import Session

_CURRENT: ContextVar[SessionPrefetch | None] = ContextVar("memgraph_session_prefetch", default=None)


def relation_inputs(session: Session, events: list[ExtractedEvent]) -> list[ExtractedEvent]:
    """The events as the relations call sees them once they are graph nodes (``events._event``
    keeps three participants and dates an undated event by its session)."""
    return [
        ExtractedEvent(
            text=e.text,
            turn_ids=list(e.turn_ids) or ["?"],
            time=e.time or session.date.date().isoformat(),
            participants=list(e.participants)[:3],
            arguments=[],
        )
        for e in events
    ]


@dataclass
class _Work:
    events: asyncio.Task[list[ExtractedEvent]]
    relations: asyncio.Task[list[ExtractedRelation] | None]
    events_usage: LLMUsage = field(default_factory=LLMUsage)
    relations_usage: LLMUsage = field(default_factory=LLMUsage)
    inputs: list[ExtractedEvent] | None = None  # what the relations call was given
    used: set[str] = field(default_factory=set)


class SessionPrefetch:
    """The memory-independent LLM calls of an ingest's sessions, run ahead of their builds."""

    def __init__(self, model: Any, *, timeout: float, semaphore: CallSlot | None) -> None:
        self.model = model
        self.timeout = timeout
        self.semaphore = semaphore
        self._work: dict[str, _Work] = {}

    def ensure(self, sessions: list[Session]) -> None:
        """Start the calls of ``sessions`` not started yet (on the running loop)."""
        for session in sessions:
            key = session_hash(session)
            if key in self._work:
                continue
            events_usage, relations_usage = LLMUsage(), LLMUsage()
            events = asyncio.ensure_future(
                extract_events(self.model, session, usage=events_usage, timeout=self.timeout, semaphore=self.semaphore)
            )
            work = _Work(events, asyncio.ensure_future(self._relations(session, key)), events_usage, relations_usage)
            self._work[key] = work

    async def _relations(self, session: Session, key: str) -> list[ExtractedRelation] | None:
        work = self._work[key]
        try:
            events = await work.events
        except Exception:  # the build falls back for its events: its relations are not these
            return None
        work.inputs = relation_inputs(session, events)
        if len(work.inputs) < 2:
            return []
        return await extract_relations(
            self.model,
            session,
            work.inputs,
            usage=work.relations_usage,
            timeout=self.timeout,
            semaphore=self.semaphore,
        )

    def _find(self, session: Session, context: list | None) -> _Work | None:
        if context:  # an append shows stored turns as context: not what was prefetched
            return None
        return self._work.get(session_hash(session))

    async def events(
        self, session: Session, context: list | None, usage: LLMUsage | None
    ) -> list[ExtractedEvent] | None:
        """The prefetched events of ``session`` (raising as the call did), or None when there are none."""
        work = self._find(session, context)
        if work is None or "events" in work.used:
            return None
        work.used.add("events")
        try:
            return await work.events
        finally:
            if usage is not None:
                usage.merge(work.events_usage)

    async def relations(
        self, session: Session, inputs: list[ExtractedEvent], usage: LLMUsage | None
    ) -> list[ExtractedRelation] | None:
        """The prefetched relations when they were asked over exactly ``inputs``, else None."""
        work = self._find(session, None)
        if work is None or "relations" in work.used:
            return None
        failure: Exception | None = None
        try:
            result = await asyncio.shield(work.relations)
        except Exception as exc:  # raised below, as the call would have, if it was this call
            result, failure = None, exc
        if work.inputs is None or work.inputs != inputs:
            return None  # not asked (the events failed) or over other events: the build asks itself
        work.used.add("relations")
        if usage is not None:
            usage.merge(work.relations_usage)
        if failure is not None:
            raise failure
        return result

    async def close(self) -> LLMUsage:
        """Cancel what no build awaited; the usage of calls made but never used."""
        unused = LLMUsage()
        for work in self._work.values():
            for name, task, usage in (
                ("events", work.events, work.events_usage),
                ("relations", work.relations, work.relations_usage),
            ):
                if name in work.used:
                    continue
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                unused.merge(usage)
        self._work.clear()
        return unused


def current_prefetch() -> SessionPrefetch | None:
    """The prefetch of the ingest this task belongs to, if any."""
    return _CURRENT.get()


@contextmanager
def prefetching(prefetch: SessionPrefetch | None) -> Iterator[SessionPrefetch | None]:
    """``prefetch`` is the current one for the builds run inside (tasks copy the context)."""
    token = _CURRENT.set(prefetch)
    try:
        yield prefetch
    finally:
        _CURRENT.reset(token)
