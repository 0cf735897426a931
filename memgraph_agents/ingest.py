"""Public ingest API: add conversations to memory, one session at a time (incremental).

Each session runs through the ingest graph (``memgraph_agents.graphs.ingest``) and commits
atomically; an unchanged session is skipped, so re-running an ingest adds nothing.

One writer per namespace: each session's run (check -> ... -> commit) holds the namespace's
ingest lock, so concurrent ingests (threads, asyncio tasks, processes) into one namespace
take turns session by session and every session is built on the graph it is committed to.
The whole conversation is checked before anything is written: text is data, so control
characters are removed (as the file loaders do) and text that is not valid Unicode is an
``InputError``.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from memgraph_agents.aio import run_sync
from memgraph_agents.config import Settings
from memgraph_agents.loaders.errors import InputError, build
from memgraph_agents.loaders.jsonconv import clean_text
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.runtime import MemoryContext, get_store


class IngestReport(BaseModel):
    conversation: str
    namespace: str
    sessions_new: int = 0
    sessions_replaced: int = 0
    sessions_unchanged: int = 0
    turns: int = 0
    seconds: float = 0.0
    notes: list[str] = Field(default_factory=list)
    llm_usage: dict[str, float] = Field(default_factory=dict)
    sessions: list[SessionOutcome] = Field(default_factory=list, description="what happened to each session")


class SessionOutcome(BaseModel):
    """One session of an ingest: stored or unchanged, how it was built, which LLM steps fell back."""

    id: str
    status: str  # new | replaced | unchanged
    builder: str = ""  # llm | offline ("" when unchanged)
    fallbacks: list[str] = Field(default_factory=list)

    def line(self, llm: bool) -> str:
        if self.status == "unchanged":
            return f"{self.id}: unchanged"
        if not llm:
            return f"{self.id}: {self.status}, built offline"
        if self.builder == "llm" and not self.fallbacks:
            return f"{self.id}: {self.status}, LLM-built"
        how = "LLM-built, with offline fallback for" if self.builder == "llm" else "OFFLINE FALLBACK (LLM failed) for"
        steps = ", ".join(dict.fromkeys(f.split(":", 1)[0] for f in self.fallbacks)) or "events"
        return f"{self.id}: {self.status}, {how} {steps}"


ProgressFn = Callable[[str, int, int], None]  # (session id, done, total)

_SURROGATE = re.compile(r"[\ud800-\udfff]")


def checked_conversation(conversation: Any) -> Conversation:
    """``conversation`` ready to store, or a clear error before anything is written.

    Control characters (other than newline and tab) are removed from every string, as the
    file loaders do; an unpaired surrogate (``"\\ud800"`` in JSON) cannot be stored as text
    and is an ``InputError``.
    """
    if not isinstance(conversation, Conversation):
        raise TypeError(f"ingest needs a memgraph_agents.model.Conversation (load files with "
                        f"memgraph_agents.loaders.load_conversations), got {type(conversation).__name__}")
    changed = False

    def clean(value: Any, where: str) -> Any:
        nonlocal changed
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise InputError(f"conversation {conversation.id!r}: {where}: text holds an unpaired surrogate "
                                 "(not valid Unicode)")
            out = clean_text(value)
            changed |= out != value
            return out
        if isinstance(value, list):
            return [clean(v, where) for v in value]
        if isinstance(value, dict):
            return {k: clean(v, where) for k, v in value.items()}
        return value

    data = conversation.model_dump()
    data["id"] = clean(data["id"], "id")
    data["speakers"] = clean(data["speakers"], "speakers")
    for s in data["sessions"]:
        s["participants"] = clean(s["participants"], f"session {s['id']!r}")
        s["turns"] = [clean(t, f"session {s['id']!r} turn {t['id']!r}") for t in s["turns"]]
    if not changed:
        return conversation
    return build(Conversation, f"conversation {conversation.id!r}", **data)


async def aingest_conversation(conversation: Conversation, settings: Settings, *, namespace: str | None = None,
                               progress: ProgressFn | None = None, replace: bool = False) -> IngestReport:
    """Ingest ``conversation``; ``replace``: a stored session that differs may be replaced
    (passed to the ingest graph's ``check`` step)."""
    from memgraph_agents.graphs.ingest import graph

    conversation = checked_conversation(conversation)
    ns = namespace or settings.namespace
    run = settings.override(namespace=ns)
    store = await asyncio.to_thread(get_store, run)  # validates the namespace; may wait for a lock
    ctx = MemoryContext.from_settings(run)  # every setting travels: ctx.settings() == run
    report = IngestReport(conversation=conversation.id, namespace=ns)
    t0 = time.perf_counter()
    total = len(conversation.sessions)
    for i, session in enumerate(conversation.sessions, start=1):
        async with store.ingest_lock.hold_async():  # one writer per namespace, session by session
            out = await graph.ainvoke({"session": session, "speakers": list(conversation.speakers),
                                       "replace": replace}, context=ctx)
        status = out.get("status")
        if status == "unchanged":
            report.sessions_unchanged += 1
            report.sessions.append(SessionOutcome(id=session.id, status="unchanged"))
        else:
            failed = [n for n in out.get("notes", []) if "LLM failed" in n]
            report.sessions.append(SessionOutcome(id=session.id, status="replaced" if out.get("replaced") else "new",
                                                  builder=out.get("builder", "offline"), fallbacks=failed))
            report.sessions_new += 1
            report.turns += len(session.turns)
            report.sessions_replaced += int(bool(out.get("replaced")))  # status is "committed" by now
            report.notes.extend(f"{session.id}: {n}" for n in out.get("notes", []))
            for k, v in (out.get("usage") or {}).items():
                report.llm_usage[k] = report.llm_usage.get(k, 0) + v
        if progress:
            progress(session.id, i, total)
    report.seconds = time.perf_counter() - t0
    return report


def ingest_conversation(conversation: Conversation, settings: Settings | None = None, *, namespace: str | None = None,
                        progress: ProgressFn | None = None, replace: bool = False) -> IngestReport:
    """Ingest ``conversation`` into ``namespace`` (default: ``settings.namespace``)."""
    return run_sync(aingest_conversation(conversation, settings or Settings.load(), namespace=namespace,
                                         progress=progress, replace=replace))
