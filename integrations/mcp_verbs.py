"""The MCP server's tools on stored items: ``list``, ``get``, ``update_note``, ``history``, and
the filter arguments ``recall`` takes — ``Memory``'s verbs, in the namespace the server gives
the call (``mcp_server.build_server``: fixed, or the bearer token's), never one a client names.

Results are JSON objects (``MemoryItem``, ``ItemPage``, ``NoteHistory`` as ``Memory`` returns
them). Errors go through the server's guard (what the client may read of them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, Protocol, TypeVar

from mcp.server.fastmcp import FastMCP
from pydantic import Field

T = TypeVar("T")


class Guard(Protocol):
    def __call__(self, call: Awaitable[T]) -> Awaitable[T]: ...


Since = Annotated[str | None, Field(description="only what is dated on or after this date (ISO 8601, e.g. 2024-03-01)")]
Until = Annotated[str | None, Field(description="only what is dated before this date (ISO 8601)")]
Speaker = Annotated[str | list[str] | None, Field(description="only turns said by this speaker (or any of a list)")]
Filter = Annotated[
    dict[str, Any] | None,
    Field(
        description='metadata filter, LangGraph store syntax: {"project": "x"}, {"year": {"$gte": 2024}}, '
        '{"tag": {"$in": ["a", "b"]}}'
    ),
]
Metadata = Annotated[dict[str, Any] | None, Field(description="a JSON object stored with the note, filterable")]
NoteId = Annotated[str, Field(min_length=1, description="a note id (as remember or list returned it)")]


def filter_args(since: str | None, until: str | None, speaker: str | list[str] | None, filter: dict | None) -> dict:
    return {"since": since, "until": until, "speaker": speaker, "filter": filter}


def add_verb_tools(mcp: FastMCP, memory: Any, ns: Callable[[], str], guard: Guard) -> None:
    """Register ``list``, ``get``, ``update_note`` and ``history`` on ``mcp`` over ``memory``."""

    @mcp.tool(name="list")
    async def list_items(
        kind: Annotated[Literal["session", "note"] | None, Field(description="only sessions or only notes")] = None,
        since: Since = None,
        until: Until = None,
        speaker: Speaker = None,
        filter: Filter = None,
        limit: Annotated[int, Field(ge=1, le=100, description="items per page")] = 20,
        cursor: Annotated[str | None, Field(description="the cursor of the previous page")] = None,
    ) -> dict:
        """Stored sessions and notes, newest first, one page (``cursor``: the next page's)."""
        page = await guard(
            memory.alist(ns(), kind=kind, limit=limit, cursor=cursor, **filter_args(since, until, speaker, filter))
        )
        return page.model_dump(mode="json")

    @mcp.tool()
    async def get(
        item_id: Annotated[str, Field(min_length=1, description="a note, session, turn (S1:3) or node id")],
    ) -> dict:
        """One stored item: text, date, speaker, metadata, provenance turns and graph neighbours."""
        item = await guard(memory.aget(item_id, namespace=ns()))
        return item.model_dump(mode="json")

    @mcp.tool()
    async def update_note(
        note_id: NoteId,
        text: Annotated[str, Field(min_length=1, description="the note's new text")],
        metadata: Metadata = None,
    ) -> dict:
        """Replace a note's text (and metadata, when given) in one commit; its history keeps the old one."""
        item = await guard(memory.aupdate(note_id, text, namespace=ns(), metadata=metadata))
        return item.model_dump(mode="json")

    @mcp.tool()
    async def history(note_id: NoteId) -> dict:
        """A note's versions (text, metadata, when stored), oldest first."""
        hist = await guard(memory.ahistory(note_id, namespace=ns()))
        return hist.model_dump(mode="json")
