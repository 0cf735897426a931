"""Public ingest API: add conversations to memory, one session at a time (incremental).

Each session runs through the ingest graph (``memgraph_agents.graphs.ingest``) and commits
atomically; an unchanged session is skipped, so re-running an ingest adds nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel, Field

from memgraph_agents.aio import run_sync
from memgraph_agents.config import Settings
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.runtime import MemoryContext


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


ProgressFn = Callable[[str, int, int], None]  # (session id, done, total)


async def aingest_conversation(conversation: Conversation, settings: Settings, *, namespace: str | None = None,
                               progress: ProgressFn | None = None) -> IngestReport:
    from memgraph_agents.graphs.ingest import EXTRA_SETTINGS, graph

    ns = namespace or settings.namespace
    run = settings.model_copy(update={"namespace": ns})
    # MemoryContext carries no timeout or ingest parameters: pass them along explicitly.
    ctx = MemoryContext.from_settings(run, settings=run.model_dump(mode="json", include=set(EXTRA_SETTINGS)))
    report = IngestReport(conversation=conversation.id, namespace=ns)
    t0 = time.perf_counter()
    total = len(conversation.sessions)
    for i, session in enumerate(conversation.sessions, start=1):
        out = await graph.ainvoke({"session": session, "speakers": list(conversation.speakers)}, context=ctx)
        status = out.get("status")
        if status == "unchanged":
            report.sessions_unchanged += 1
        else:
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
                        progress: ProgressFn | None = None) -> IngestReport:
    """Ingest ``conversation`` into ``namespace`` (default: ``settings.namespace``)."""
    return run_sync(aingest_conversation(conversation, settings or Settings(), namespace=namespace, progress=progress))
