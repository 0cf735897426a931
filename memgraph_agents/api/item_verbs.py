"""``Memory``'s verbs on stored items: ``get``, ``list`` (``get_all``), ``update``, ``history``,
``delete``, ``export`` and their async twins (``api.twins``). The work is in ``api.read`` and ``api.notes``;
this is the public surface."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memgraph_agents.api.export import export_conversation
from memgraph_agents.api.filters import DateLike, memory_filter
from memgraph_agents.api.items import ItemPage, MemoryItem, NoteHistory
from memgraph_agents.api.notes import note_history, updated_note
from memgraph_agents.api.read import ListKind, get_item, list_items
from memgraph_agents.api.results import ForgetReport
from memgraph_agents.api.sources import is_note_id
from memgraph_agents.api.twins import twins

if TYPE_CHECKING:
    from memgraph_agents.config import Settings


class ItemVerbs:
    """Mixed into ``Memory`` (which provides ``settings``, ``_ns`` and ``_forget``)."""

    settings: Settings

    def _ns(self, namespace: str | None, user_id: str | int | None = None) -> str:  # pragma: no cover
        raise NotImplementedError

    async def _forget(
        self,
        *,
        namespace: str | None = None,
        user_id: str | int | None = None,
        session: str | None = None,
        note: str | None = None,
    ) -> ForgetReport:
        raise NotImplementedError  # pragma: no cover - ``Memory`` defines it

    # -- get -----------------------------------------------------------------------------
    async def _get(self, item_id: str, *, namespace: str | None = None, user_id: str | int | None = None) -> MemoryItem:
        """One stored item by id: a note (``note-…``), a session (``S1``), a turn (``S1:3``) or
        a graph node (``event:S1:2``), with its text, date, speaker, metadata, provenance turns
        and graph neighbours (a session or note also with its turns). An id that is not stored
        is an ``InputError``; a namespace that is not, a ``NamespaceNotFoundError``."""
        return await asyncio.to_thread(get_item, self.settings, self._ns(namespace, user_id), item_id)

    get, aget = twins(_get)

    # -- list ----------------------------------------------------------------------------
    async def _list(
        self,
        namespace: str | None = None,
        *,
        user_id: str | int | None = None,
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
        one of its turns passes them. ``user_id``: that user's namespace (not with ``namespace``).
        ``get_all`` is this verb under mem0's name."""
        ns, f = self._ns(namespace, user_id), memory_filter(since, until, speaker, filter)
        return await asyncio.to_thread(list_items, self.settings, ns, kind=kind, filter=f, limit=limit, cursor=cursor)

    list, alist = twins(_list)
    get_all, aget_all = list, alist  # mem0's name

    # -- update / history ----------------------------------------------------------------
    async def _update(
        self,
        note_id: str,
        text: str,
        *,
        namespace: str | None = None,
        user_id: str | int | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> MemoryItem:
        """Replace a note's text (and metadata, when given; else it keeps its own) in one commit:
        readers see the old note or the new one, never neither. Id, date and speaker stay; the
        new version is added to ``history``. Returns the note as stored now."""
        # lazy: the ingest stack (construct, LLM extraction): only when a note is updated
        from memgraph_agents.ingest import aingest_conversation

        ns = self._ns(namespace, user_id)
        conv = await asyncio.to_thread(updated_note, self.settings, ns, note_id, text, metadata)
        # ``existing``: a note forgotten meanwhile is an error, never created again;
        # ``keep_metadata``: "keep its metadata" is read under the write lock, not before it.
        keep = metadata is None
        await aingest_conversation(conv, self.settings, namespace=ns, replace=True, existing=True, keep_metadata=keep)
        return await asyncio.to_thread(get_item, self.settings, ns, note_id)

    update, aupdate = twins(_update)

    async def _history(
        self, note_id: str, *, namespace: str | None = None, user_id: str | int | None = None
    ) -> NoteHistory:
        """A note's versions (text, metadata, when stored), oldest first; the last is current.
        ``forget(note=…)`` deletes the history with the note."""
        return await asyncio.to_thread(note_history, self.settings, self._ns(namespace, user_id), note_id)

    history, ahistory = twins(_history)

    # -- delete (mem0's name) ------------------------------------------------------------
    async def _delete(
        self, item_id: str, *, namespace: str | None = None, user_id: str | int | None = None
    ) -> ForgetReport:
        """Delete one note (``note-…``, with its history) or one session by id: ``forget(note=…)``
        or ``forget(session=…)``, whichever the id is. A whole namespace is only ``forget``'s."""
        if isinstance(item_id, str) and is_note_id(item_id):
            return await self._forget(namespace=namespace, user_id=user_id, note=item_id)
        return await self._forget(namespace=namespace, user_id=user_id, session=item_id)

    delete, adelete = twins(_delete)

    # -- export --------------------------------------------------------------------------
    async def _export(
        self,
        namespace: str | None = None,
        *,
        user_id: str | int | None = None,
        kind: ListKind | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
        speaker: str | Sequence[str] | None = None,
        filter: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The namespace's sessions and notes (those ``list`` shows with these filters; all
        without) as one conversation in the documented format (docs/conversation-format.md):
        ``json.dump`` it to a file, and ``Memory.add(pathlib.Path(file))`` or ``memgraph ingest
        file`` reads back the same sessions, turns and metadata (``api.export``)."""
        ns, f = self._ns(namespace, user_id), memory_filter(since, until, speaker, filter)
        return await asyncio.to_thread(export_conversation, self.settings, ns, kind=kind, filter=f)

    export, aexport = twins(_export)
