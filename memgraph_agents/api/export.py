"""``Memory.export``: a namespace (or what a filter admits of it) as one conversation in the
documented input format (docs/conversation-format.md), so ``memgraph ingest`` and
``Memory.add(pathlib.Path(...))`` read it back to the same sessions, turns and metadata.

Sessions and notes come in date order (equal dates by id), each with its id, date, metadata and
turns as they were given (id, speaker, text, image caption, timestamp). What is built from them
(events, topics, vectors) is not exported: adding the file builds it again. One committed state
is read: when a write lands while the export reads, it reads again (and says so after three
tries rather than mixing two states).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memgraph_agents.api.ops import exists
from memgraph_agents.api.read import MAX_LIMIT, ListKind, list_items
from memgraph_agents.config import Settings
from memgraph_agents.errors import StorageError
from memgraph_agents.model.filters import MemoryFilter
from memgraph_agents.storage.graph_store import open_graph_store
from memgraph_agents.storage.stats import missing_namespace

TRIES = 3


def _listed(settings: Settings, namespace: str, kind: ListKind | None, filter: MemoryFilter) -> list[str]:
    """The ids ``list`` shows with this filter, every page."""
    ids: list[str] = []
    cursor = None
    while True:
        page = list_items(settings, namespace, kind=kind, filter=filter, limit=MAX_LIMIT, cursor=cursor)
        ids.extend(i.id for i in page.items)
        if page.cursor is None:
            return ids
        cursor = page.cursor


def _turn(tid: str, d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": tid, "speaker": d["speaker"]}
    if d.get("text") or not d.get("image_caption"):
        out["text"] = d.get("text") or ""
    for key in ("image_caption", "timestamp", "role"):
        if d.get(key):
            out[key] = d[key]
    return out


def export_conversation(
    settings: Settings, namespace: str, *, kind: ListKind | None = None, filter: MemoryFilter | None = None
) -> dict[str, Any]:
    """``{"id": namespace, "sessions": [...]}``: the sessions and notes ``list`` shows with
    ``kind`` and ``filter`` (all of them without), whole, oldest first."""

    f = filter if filter is not None else MemoryFilter()
    if not exists(settings, namespace):
        raise missing_namespace(settings.data_dir, namespace, settings.graph_url, settings.store_id)
    # the graph store alone: an export needs no embedding model (a filter's listing does, as list's)
    db = open_graph_store(Path(settings.data_dir), namespace, settings.graph_url, settings.store_id)
    try:
        for _ in range(TRIES):
            gen = db.generation()
            records = db.sessions("committed")
            if kind is not None or not f.empty:
                wanted = set(_listed(settings, namespace, kind, f))
                records = [r for r in records if r["id"] in wanted]
            records.sort(key=lambda r: (r["date"], r["id"]))
            sessions = [_session(r, db.session_turns(r["id"])) for r in records]
            if db.generation() == gen:
                return {"id": namespace, "sessions": sessions}
    finally:
        db.close()
    raise StorageError(f"namespace {namespace!r} kept changing while it was exported: try again")


def _session(record: dict[str, Any], turns: list[tuple[str, str, dict]]) -> dict[str, Any]:
    session: dict[str, Any] = {"id": record["id"], "date": record["date"], "turns": [_turn(t, d) for t, _, d in turns]}
    if record.get("metadata"):
        session["metadata"] = record["metadata"]
    return session
