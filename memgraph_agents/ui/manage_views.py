"""The timeline's management panel and the bulk-forget confirmation page (data in, HTML out;
every value escaped by ``html``)."""

from __future__ import annotations

from typing import Any

from memgraph_agents.api.items import MemoryItem
from memgraph_agents.ui.html import Markup, esc, join, link, page, path, tag, url

FILTER_KEYS = ("kind", "since", "until", "speaker", "filter")


def _hidden(name: str, value: Any) -> str:
    return f'<input type="hidden" name="{esc(name)}" value="{esc(value)}">'


def _kept(params: dict[str, Any]) -> str:
    """The page's filter, carried by a form (what is forgotten is what the page listed)."""
    return "".join(_hidden(k, params[k]) for k in FILTER_KEYS if params.get(k))


def described(params: dict[str, Any]) -> str:
    """The filter in words ("everything" without one)."""
    shown = [f"{k} {params[k]}" for k in FILTER_KEYS if params.get(k)]
    return "matching " + ", ".join(shown) if shown else "everything in this namespace"


def panel(ns: str, params: dict[str, Any], csrf: str, writable: bool) -> Markup:
    """Add a note, export what the page lists, forget what the page lists (the writes only when
    the memory is writable: under ``--read-only`` the forms are not on the page)."""
    kept = {k: params[k] for k in FILTER_KEYS if params.get(k)}
    export = tag(
        "p",
        join(
            [
                link(url(path("ns", ns, "export"), kept), "Export " + described(params), download=f"{ns}.json"),
                tag("small", " (a conversation file: memgraph ingest FILE reads it back)"),
            ]
        ),
        class_="export",
    )
    if not writable:
        return tag("section", join([tag("h2", "Export"), export]), class_="manage")
    token = _hidden("csrf", csrf)
    add = Markup(
        f'<form method="post" action="{esc(path("ns", ns, "add"))}" class="write add-note"><h2>Add a note</h2>{token}'
        '<label for="f-note">Note</label><textarea id="f-note" name="text" rows="2" required></textarea>'
        # its own id: the filter form also has a speaker field
        + '<div class="field"><label for="f-note-speaker">Speaker</label>'
        '<input id="f-note-speaker" name="speaker" type="text" value="user"><small>who says it</small></div>'
        + '<button type="submit">Add the note</button></form>'
    )
    forget = Markup(
        f'<form method="post" action="{esc(path("ns", ns, "forget"))}" class="write bulk-forget">'
        f"<h2>Forget in bulk</h2>{token}{_kept(params)}"
        f"<p>Forget {esc(described(params))} (set the filter above first). A confirmation page says how many "
        "items go.</p>"
        '<button type="submit" class="danger">Forget these…</button></form>'
    )
    return tag("section", join([add, tag("h2", "Export"), export, forget]), class_="manage")


def confirm_forget(ns: str, params: dict[str, Any], items: list[MemoryItem], csrf: str, note: str = "") -> str:
    """The bulk-forget confirmation: how many sessions, notes and turns go, which ones, and one
    button that forgets exactly those (their ids are in the form)."""
    sessions = [i for i in items if i.kind == "session"]
    notes = [i for i in items if i.kind == "note"]
    turns = sum(i.n_turns for i in items)
    back = link(url(path("ns", ns), {k: params[k] for k in FILTER_KEYS if params.get(k)}), "Cancel")
    if not items:
        body = join([tag("p", f"Nothing is listed {described(params)}: nothing to forget."), back])
        return page(f"Forget in {ns}", body, crumbs=[(path("ns", ns), ns), ("", "forget")])
    count = f"{len(sessions)} session(s) and {len(notes)} note(s), {turns} turn(s)"
    listed = tag("ul", join(tag("li", f"{i.kind} {i.id} · {i.date[:10]}") for i in items), class_="going")
    ids = "".join(_hidden("id", i.id) for i in items)
    form = Markup(
        f'<form method="post" action="{esc(path("ns", ns, "forget"))}" class="write">{_hidden("csrf", csrf)}'
        f"{_kept(params)}{ids}{_hidden('confirm', 'yes')}"
        f'<button type="submit" class="danger" autofocus>Confirm: forget {len(items)} item(s)</button> {back}</form>'
    )
    body = join(
        [
            tag(
                "p", f"Forget {count} {described(params)}, and everything built from them only? This cannot be undone."
            ),
            listed,
            form,
        ]
    )
    return page(
        f"Forget {len(items)} item(s) of {ns}", body, crumbs=[(path("ns", ns), ns), ("", "forget")], status_line=note
    )
