"""The browser's management verbs on a namespace: add a note, export, forget in bulk.

- ``POST /ns/NAME/add``: a note (``Memory.add``), then back to the timeline saying its id.
- ``GET /ns/NAME/export``: what the timeline lists (its filter; everything without one) as a
  conversation file download (``Memory.export``: ``memgraph ingest`` reads it back).
- ``POST /ns/NAME/forget``: first a confirmation page that lists and counts what the filter
  admits; the confirmed form carries exactly those ids, and only they are forgotten — when the
  listing changed meanwhile, the page is shown again to be reviewed, never a wider deletion.

Writes go through ``Access.check_write`` (CSRF token, the app's own origin) like every other
write, and do not exist under ``--read-only``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from memgraph_agents.api import Memory
from memgraph_agents.api.items import MemoryItem
from memgraph_agents.api.read import MAX_LIMIT
from memgraph_agents.errors import InputError
from memgraph_agents.ui import manage_views
from memgraph_agents.ui.html import path, url
from memgraph_agents.ui.security import Access

Page = Callable[[str], Response]  # HTML body -> the app's response (its headers)
Handler = Callable[[Request], Awaitable[Response]]


async def listed(memory: Memory, ns: str, kind: str | None, filters: dict[str, Any]) -> list[MemoryItem]:
    """Every item the timeline lists with this filter (all its pages)."""
    items: list[MemoryItem] = []
    cursor = None
    while True:
        pg = await memory.alist(ns, kind=kind, limit=MAX_LIMIT, cursor=cursor, **filters)  # type: ignore[arg-type]
        items.extend(pg.items)
        if pg.cursor is None:
            return items
        cursor = pg.cursor


def manage_routes(
    memory: Memory,
    access: Access,
    namespace: Callable[[Request], str],
    params: Callable[[Request | dict[str, str]], dict[str, str]],
    filters: Callable[[dict[str, str]], dict[str, Any]],
    html: Page,
    guarded: Callable[[Handler], Handler],
) -> list[Route]:
    """The routes above; ``namespace`` checks the caller may see the namespace, ``params`` /
    ``filters`` read the timeline's filter as the timeline does."""

    def kind_of(p: dict[str, str]) -> str | None:
        kind = p.get("kind") or None
        if kind not in (None, "session", "note"):
            raise InputError(f"kind must be session or note, got {kind!r}")
        return kind

    async def add(request: Request) -> Response:
        ns = namespace(request)
        form = await request.form()
        access.check_write(request, str(form.get("csrf", "")))
        text = str(form.get("text", ""))
        if not text.strip():
            raise InputError("the note is empty")
        speaker = str(form.get("speaker", "")).strip() or "user"
        report = await memory.aadd(text, namespace=ns, speaker=speaker)
        return RedirectResponse(url(path("ns", ns), {"added": ",".join(report.note_ids)}), status_code=303)

    async def export(request: Request) -> Response:
        ns = namespace(request)
        p = params(request)
        data = await memory.aexport(ns, kind=kind_of(p), **filters(p))  # type: ignore[arg-type]
        body = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
        headers = {
            "Content-Disposition": f'attachment; filename="{ns}.json"',  # a namespace name needs no quoting
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-store",
            "Content-Security-Policy": "default-src 'none'; sandbox",
        }
        return Response(body, media_type="application/json", headers=headers)

    async def forget(request: Request) -> Response:
        ns = namespace(request)
        form = await request.form()
        access.check_write(request, str(form.get("csrf", "")))
        p = params({k: str(form.get(k, "")) for k in manage_views.FILTER_KEYS})
        items = await listed(memory, ns, kind_of(p), filters(p))
        if form.get("confirm") != "yes":
            return html(manage_views.confirm_forget(ns, p, items, access.csrf(request)))
        confirmed = [str(v) for v in form.getlist("id")]
        if not confirmed or sorted(confirmed) != sorted(i.id for i in items):
            note = "What the filter lists changed since you looked: review it again."
            return html(manage_views.confirm_forget(ns, p, items, access.csrf(request), note))
        for item in items:
            target = {"note": item.id} if item.kind == "note" else {"session": item.id}
            await memory.aforget(namespace=ns, **target)
        return RedirectResponse(url(path("ns", ns), {"forgot": f"{len(items)} item(s)"}), status_code=303)

    return [
        Route("/ns/{ns}/add", guarded(add), methods=["POST"]),
        Route("/ns/{ns}/export", guarded(export)),
        Route("/ns/{ns}/forget", guarded(forget), methods=["POST"]),
    ]
