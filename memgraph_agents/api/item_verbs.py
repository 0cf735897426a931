"""``Memory``'s verbs on stored items: ``get``, ``list``, ``update``, ``history`` (and their
async twins). The work is in ``api.read`` and ``api.notes``; this is the public surface."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memgraph_agents.aio import background
from memgraph_agents.api.filters import DateLike, memory_filter
from memgraph_agents.api.items import ItemPage, MemoryItem, NoteHistory
from memgraph_agents.api.notes import note_history, updated_note
from memgraph_agents.api.read import ListKind, get_item, list_items
from memgraph_agents.api.users import namespace_or_user

if TYPE_CHECKING:
    from memgraph_agents.config import Settings


class ItemVerbs:
    """Mixed into ``Memory`` (which provides ``settings`` and ``_ns``)."""

    settings: Settings

    def _ns(self, namespace: str | None) -> str:  # pragma: no cover - ``Memory`` defines it
        raise NotImplementedError

    # -- get -----------------------------------------------------------------------------
    def get(self, item_id: str, *, namespace: str | None = None) -> MemoryItem:
        """One stored item by id: a note (``note-…``), a session (``S1``), a turn (``S1:3``) or
        a graph node (``event:S1:2``), with its text, date, speaker, metadata, provenance turns
        and graph neighbours (a session or note also with its turns). An id that is not stored
        is an ``InputError``; a namespace that is not, a ``NamespaceNotFoundError``."""
        return get_item(self.settings, self._ns(namespace), item_id)

    async def aget(self, item_id: str, *, namespace: str | None = None) -> MemoryItem:
        return await asyncio.to_thread(get_item, self.settings, self._ns(namespace), item_id)

    # -- list ----------------------------------------------------------------------------
    def _list(self, namespace, kind, since, until, speaker, filter, limit, cursor) -> ItemPage:
        f = memory_filter(since, until, speaker, filter)
        return list_items(self.settings, self._ns(namespace), kind=kind, filter=f, limit=limit, cursor=cursor)

    def list(
        self,
        namespace: str | None = None,
        *,
        user_id: str | None = None,
        kind: ListKind | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
        speaker: str | Sequence[str] | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> ItemPage:
        """Stored sessions and notes (``kind="session"`` / ``"note"``; default both), newest
        first, ``limit`` a page; ``page.cursor`` (None on the last page) asks for the next one,
        stable while others write (``api.read``). Filters as ``search``: an item is listed when
        one of its turns passes them. ``user_id``: that user's namespace (not with ``namespace``)."""
        return self._list(namespace_or_user(namespace, user_id), kind, since, until, speaker, filter, limit, cursor)

    async def alist(
        self,
        namespace: str | None = None,
        *,
        user_id: str | None = None,
        kind: ListKind | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
        speaker: str | Sequence[str] | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> ItemPage:
        ns = namespace_or_user(namespace, user_id)
        return await asyncio.to_thread(self._list, ns, kind, since, until, speaker, filter, limit, cursor)

    # -- update / history ----------------------------------------------------------------
    async def _update(
        self, note_id: str, text: str, namespace: str | None, metadata: dict[str, Any] | None
    ) -> MemoryItem:
        from memgraph_agents.ingest import aingest_conversation

        ns = self._ns(namespace)
        conv = await asyncio.to_thread(updated_note, self.settings, ns, note_id, text, metadata)
        # ``existing``: a note forgotten meanwhile is an error, never created again;
        # ``keep_metadata``: "keep its metadata" is read under the write lock, not before it.
        keep = metadata is None
        await aingest_conversation(conv, self.settings, namespace=ns, replace=True, existing=True, keep_metadata=keep)
        return await asyncio.to_thread(get_item, self.settings, ns, note_id)

    def update(
        self, note_id: str, text: str, *, namespace: str | None = None, metadata: dict[str, Any] | None = None
    ) -> MemoryItem:
        """Replace a note's text (and metadata, when given; else it keeps its own) in one commit:
        readers see the old note or the new one, never neither. Id, date and speaker stay; the
        new version is added to ``history``. Returns the note as stored now."""
        return background.run(self._update(note_id, text, namespace, metadata))

    async def aupdate(
        self, note_id: str, text: str, *, namespace: str | None = None, metadata: dict[str, Any] | None = None
    ) -> MemoryItem:
        return await background.arun(self._update(note_id, text, namespace, metadata))

    def history(self, note_id: str, *, namespace: str | None = None) -> NoteHistory:
        """A note's versions (text, metadata, when stored), oldest first; the last is current.
        ``forget(note=…)`` deletes the history with the note."""
        return note_history(self.settings, self._ns(namespace), note_id)

    async def ahistory(self, note_id: str, *, namespace: str | None = None) -> NoteHistory:
        return await asyncio.to_thread(note_history, self.settings, self._ns(namespace), note_id)
