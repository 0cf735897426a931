"""One function per page: data in, HTML out (every value escaped by ``html``)."""

from __future__ import annotations

import json
from typing import Any

from memgraph_agents.api.items import ItemPage, MemoryItem, NoteHistory
from memgraph_agents.api.results import AskResult
from memgraph_agents.ui.data import SessionView, evidence_mark, short_reply_context
from memgraph_agents.ui.html import Markup, esc, field, join, link, page, path, table, tag, url
from memgraph_agents.ui.path_panel import seed_ranking


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def _item_link(ns: str, item_id: str, text: str | None = None) -> Markup:
    return link(path("ns", ns, "item", item_id), text or item_id, class_="id")


def _ns_crumb(ns: str) -> tuple[str, str]:
    return (path("ns", ns), ns)


def _ns_cell(row: dict[str, Any]) -> Markup:
    """A user's namespace by the user id it was made for (the hash beside it, small), else its name."""
    ns, user = row["namespace"], row.get("user_id")
    if not user:
        return link(path("ns", ns), ns)
    return join([link(path("ns", ns), user, class_="user"), tag("small", f" user · {ns[:10]}…", title=ns)])


def title_of(ns: str, stats: dict[str, Any]) -> str:
    """The page title of a namespace: the user id it was made for, else its name."""
    return f"{stats['user_id']} (user)" if stats.get("user_id") else ns


def home(rows: list[dict[str, Any]]) -> str:
    body = table(
        ["namespace", "sessions", "turns", "notes", "size", "embedding model", "last write"],
        (
            [
                _ns_cell(r),
                r["sessions"] - r.get("notes", 0),
                r.get("turns", ""),
                r.get("notes", ""),
                _size(int(r.get("graph_bytes", 0))),
                r.get("embedding_model", ""),
                str(r.get("last_write", ""))[:19].replace("T", " "),
            ]
            for r in rows
        ),
        caption="Namespaces (a user or a conversation each; a user's by the user id it was made for)",
    )
    if not rows:
        body = tag("p", "No memory here yet: add some with `memgraph ingest FILE` or `memgraph demo`.")
    return page("Memory", body)


def search_form(ns: str, params: dict[str, Any], *, filters: bool = True) -> Markup:
    fields = join(
        [
            field("Question", "q", params.get("q", ""), type="search", required="required", size="50"),
            field("k", "k", params.get("k", ""), type="number", min="1", max="100", hint="items (default 10)"),
            field("Retriever", "retriever", params.get("retriever", ""), hint="oneshot, navigator, ppr…"),
            field("As of", "as_of", params.get("as_of", ""), type="date", hint="statements valid that day"),
        ]
    )
    action = path("ns", ns, "search")
    return Markup(
        f'<form class="search" method="get" action="{esc(action)}" role="search">{fields}{_filters(params) if filters else ""}'
        '<button type="submit">Search</button></form>'
    )


def _filters(params: dict[str, Any]) -> Markup:
    return join(
        [
            field("Since", "since", params.get("since", ""), type="date"),
            field("Until", "until", params.get("until", ""), type="date"),
            field("Speaker", "speaker", params.get("speaker", ""), hint="a name"),
            field("Metadata", "filter", params.get("filter", ""), hint="KEY=VALUE, as memgraph --filter"),
        ]
    )


def timeline(
    ns: str,
    pg: ItemPage,
    params: dict[str, Any],
    stats: dict[str, Any],
    status: str = "",
    manage: Markup = Markup(),  # noqa: B008 - an empty, immutable str
) -> str:
    rows = []
    for i in pg.items:
        target = path("ns", ns, "session", i.id) if i.kind == "session" else path("ns", ns, "item", i.id)
        who = i.speaker or ", ".join(i.participants)
        meta = json.dumps(i.metadata, ensure_ascii=False) if i.metadata else ""
        rows.append([link(target, i.id, class_="id"), i.kind, i.date[:16].replace("T", " "), who, meta, _cut(i.text)])
    filters = Markup(
        f'<form class="filters" method="get" action="{esc(path("ns", ns))}" aria-label="filter the timeline">'
        + field("Kind", "kind", params.get("kind", ""), hint="session or note")
        + _filters(params)
        + field("Per page", "limit", params.get("limit", ""), type="number", min="1", max="200")
        + '<button type="submit">Filter</button></form>'
    )
    nxt = (
        tag("p", link(url(path("ns", ns), {**params, "cursor": pg.cursor}), "Next page →", rel="next"))
        if pg.cursor
        else tag("p", "End of the timeline.", class_="muted")
    )
    summary = tag(
        "p",
        f"{stats['sessions'] - stats.get('notes', 0)} sessions, {stats.get('notes', 0)} notes, "
        f"{stats.get('turns', 0)} turns · embeddings {stats.get('embedding_model', '')}",
        class_="muted",
    )
    body = join(
        [
            summary,
            search_form(ns, {}, filters=False),
            filters,
            table(["id", "kind", "date", "who", "metadata", "text"], rows, caption="Newest first"),
            nxt,
            manage,
        ]
    )
    return page(title_of(ns, stats), body, crumbs=[("", title_of(ns, stats))], status_line=status)


def _cut(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def session(ns: str, view: SessionView) -> str:
    it = view.item
    head = tag(
        "p",
        f"{it.date[:16].replace('T', ' ')} · {', '.join(it.participants)} · {it.n_turns} turns"
        + (f" · metadata {json.dumps(it.metadata, ensure_ascii=False)}" if it.metadata else ""),
        class_="muted",
    )
    rows = []
    for t in view.turns:
        marks = []
        if t.mark:
            marks.append(tag("span", t.mark, class_="mark superseded"))
        if t.supersedes:
            marks.append(tag("span", "supersedes " + ", ".join(t.supersedes), class_="mark supersedes"))
        rows.append(
            [
                _item_link(ns, t.id),
                t.speaker,
                tag("span", t.text, id=f"turn-{t.id}"),
                join(marks, " "),
                join((_item_link(ns, e) for e in t.events), " "),
            ]
        )
    events = [
        [
            _item_link(ns, e.node_id),
            _cut(e.text, 200),
            ", ".join(e.turn_ids),
            join((_item_link(ns, a.node_id, a.text) for a in e.arguments[:12]), ", "),
            join((_item_link(ns, t.node_id, t.node_id.removeprefix("topic:")) for t in e.topics), ", "),
        ]
        for e in view.events
    ]
    body = join(
        [
            head,
            table(["turn", "speaker", "text", "marks", "events"], rows, caption="Turns"),
            table(["event", "text", "turns", "arguments", "topics"], events, caption="Built from these turns"),
        ]
    )
    return page(f"Session {it.id}", body, crumbs=[_ns_crumb(ns), ("", it.id)])


def relevance_rule(result: AskResult) -> str:
    """The relevance rule in force, as the header says it: the question-level gate with this
    question's best match, or the caller's per-item floor; "" when neither applies."""
    best = (
        f" (this question's best match {result.question_relevance:.2f})"
        if result.question_relevance is not None
        else ""
    )
    if result.gate:
        return f" · relevance gate {result.gate:.2f}{best}"
    if result.min_score:
        return f" · relevance floor {result.min_score:.2f}{best}"
    return best and f" · {best.strip(' ()')}"


def search(ns: str, params: dict[str, Any], result: AskResult | None, trace_url: str, draw_note: str) -> str:
    parts: list[Any] = [search_form(ns, params)]
    if result is not None:
        parts.append(
            tag(
                "p",
                f"{len(result.evidence)} item(s) from {result.retriever} · outcome {result.outcome}{relevance_rule(result)}",
                class_="muted",
            )
        )
        if not result.evidence and result.trace:  # why nothing is shown, never a silent empty page
            parts.append(tag("p", result.trace[0], class_="why-empty"))
        if result.answer:
            parts.append(tag("section", join([tag("h2", "Answer"), tag("p", result.answer)])))
        items = []
        for ev in result.evidence:
            bits: list[Any] = [
                # the item's own match to the question; the order is the ranking's (docs/ui.md)
                tag("span", f"match {ev.relevance:.2f}" if ev.relevance is not None else "", class_="rel"),
                tag("span", ", ".join(d[:10] for d in sorted(set(ev.session_dates)) if d), class_="date"),
                join((_item_link(ns, t) for t in ev.turn_ids[:8]), " "),
            ]
            mark = evidence_mark(ev)
            if mark:
                bits.append(tag("span", mark, class_="mark superseded"))
            ctx = short_reply_context(ev)
            if ctx:
                bits.append(tag("span", f"answers: {ctx}", class_="context"))
            items.append(tag("li", join([tag("div", join(bits, " "), class_="ev-head"), tag("p", ev.text)])))
        parts.append(tag("section", join([tag("h2", "Evidence"), tag("ol", join(items), class_="evidence")])))
        steps = tag("ul", join(tag("li", tag("code", line)) for line in result.trace), class_="trace")
        parts.append(tag("section", join([tag("h2", "How this run reached it"), steps])))
        drawn = (
            Markup(
                f'<iframe class="trace" title="the navigator\'s path, drawn" src="{esc(trace_url)}" loading="lazy">'
                "</iframe>"
            )
            if trace_url
            else tag("p", draw_note, class_="muted")
        )
        seeded = seed_ranking(ns, result)  # a run that stopped after localize: its ranking, not an empty frame
        if seeded is not None:
            picture = link(trace_url, "Open the graph around these turns, drawn →") if trace_url else draw_note
            drawn = join([seeded, tag("p", picture, class_="muted")])
        parts.append(tag("section", join([tag("h2", "The navigator's path, drawn"), drawn])))
    return page(f"Search {ns}", join(parts), crumbs=[_ns_crumb(ns), ("", "search")])


def item(ns: str, it: MemoryItem, history: NoteHistory | None, csrf: str, writable: bool, status: str = "") -> str:
    facts = [
        ["kind", it.kind + (f" ({it.node_kind})" if it.node_kind and it.node_kind != it.kind else "")],
        ["date", it.date[:19].replace("T", " ")],
        ["speaker", it.speaker or ", ".join(it.participants)],
        ["session", _item_link(ns, it.session_id) if it.session_id else ""],
        ["metadata", json.dumps(it.metadata, ensure_ascii=False) if it.metadata else ""],
        ["stored", it.ingested_at[:19].replace("T", " ")],
    ]
    parts: list[Any] = [
        tag("blockquote", it.text, class_="item-text"),
        table(["", ""], (r for r in facts if r[1]), caption="About it"),
    ]
    if it.kind == "session":
        parts.insert(0, tag("p", link(path("ns", ns, "session", it.id), "Open the session with its events →")))
    if it.turn_ids:
        parts.append(
            tag("section", join([tag("h2", "Provenance"), join((_item_link(ns, t) for t in it.turn_ids), " ")]))
        )
    if it.neighbours:
        rows = [
            [
                n.direction,
                n.edge + (f" ({n.label})" if n.label else ""),
                n.kind,
                _item_link(ns, n.node_id),
                _cut(n.text),
            ]
            for n in it.neighbours
        ]
        more = f" (of {it.n_neighbours})" if it.n_neighbours > len(it.neighbours) else ""
        parts.append(table(["", "edge", "kind", "node", "text"], rows, caption=f"Neighbours{more}"))
    if history is not None:
        versions = [
            [str(v.version), v.at[:19].replace("T", " "), v.text, json.dumps(v.metadata) if v.metadata else ""]
            for v in history.versions
        ]
        parts.append(table(["version", "stored", "text", "metadata"], versions, caption="History (oldest first)"))
    if writable and it.kind in ("note", "session"):
        parts.append(_write_forms(ns, it, csrf))
    return page(f"{it.kind.capitalize()} {it.id}", join(parts), crumbs=[_ns_crumb(ns), ("", it.id)], status_line=status)


def _write_forms(ns: str, it: MemoryItem, csrf: str) -> Markup:
    action = esc(path("ns", ns, "item", it.id))
    hidden = f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
    out = ""
    if it.kind == "note":
        out += (
            f'<form method="post" action="{action}" class="write"><h2>Update the note</h2>{hidden}'
            '<input type="hidden" name="action" value="update">'
            f'<label for="f-text">New text</label><textarea id="f-text" name="text" rows="3" required>{esc(it.text)}'
            '</textarea><button type="submit">Review the update…</button></form>'
        )
    out += (
        f'<form method="post" action="{action}" class="write"><h2>Forget</h2>{hidden}'
        '<input type="hidden" name="action" value="forget">'
        f"<p>Delete this {esc(it.kind)} and everything built from it only.</p>"
        '<button type="submit" class="danger">Forget…</button></form>'
    )
    return Markup(out)


def confirm(ns: str, it: MemoryItem, action: str, text: str, csrf: str) -> str:
    """The confirmation step: what will change, and one button that does it."""
    target = esc(path("ns", ns, "item", it.id))
    keep = f'<input type="hidden" name="text" value="{esc(text)}">' if action == "update" else ""
    what = (
        join([tag("p", "Replace"), tag("blockquote", it.text), tag("p", "with"), tag("blockquote", text)])
        if action == "update"
        else tag("p", f"Forget {it.kind} {it.id} and everything built from it only? This cannot be undone.")
    )
    body = Markup(
        f'{what}<form method="post" action="{target}" class="write">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}"><input type="hidden" name="action" value="{esc(action)}">'
        f'<input type="hidden" name="confirm" value="yes">{keep}'
        f'<button type="submit" class="{"danger" if action == "forget" else ""}" autofocus>Confirm: {esc(action)}</button> '
        f"{link(path('ns', ns, 'item', it.id), 'Cancel')}</form>"
    )
    return page(f"Confirm {action} of {it.id}", body, crumbs=[_ns_crumb(ns), (path("ns", ns, "item", it.id), it.id)])


def problem(status: int, message: str, login: bool = False) -> str:
    titles = {400: "Bad request", 401: "Sign in", 403: "Refused", 404: "Not found", 500: "Something went wrong"}
    body = tag("p", message, class_="problem")
    if login:
        body = Markup(
            body
            + '<form method="post" action="/login" class="write">'
            + field("Token", "token", "", type="password", autocomplete="current-password", required="required")
            + '<button type="submit">Sign in</button></form>'
        )
    return page(titles.get(status, "Error"), body)
