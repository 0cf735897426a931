"""HTML building blocks. Memory text is untrusted (a user, a model or a client wrote it), so
every value goes through ``esc`` (or ``attr``) on its way into a page; nothing is marked safe
except markup built here."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any
from urllib.parse import quote, urlencode


class Markup(str):
    """Markup built by this module (already escaped): ``esc`` leaves it as is."""


def esc(value: Any) -> Markup:
    if isinstance(value, Markup):
        return value
    return Markup(html.escape("" if value is None else str(value), quote=True))


def join(parts: Iterable[Any], sep: str = "") -> Markup:
    return Markup(sep.join(esc(p) for p in parts))


def tag(name: str, body: Any = "", **attrs: Any) -> Markup:
    """``<name attrs>body</name>``; ``class_`` is ``class``, ``True`` a bare attribute, ``None`` left out."""
    parts = [name]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        key = key.rstrip("_").replace("_", "-")
        parts.append(key if value is True else f'{key}="{esc(value)}"')
    return Markup(f"<{' '.join(parts)}>{esc(body)}</{name}>")


def path(*segments: str) -> str:
    """A URL path from segments, each percent-encoded (an id with ``/`` or ``?`` stays one segment)."""
    return "/" + "/".join(quote(str(s), safe=":@") for s in segments)


def url(base: str, params: Mapping[str, Any] | None = None) -> str:
    """``base`` with the non-empty ``params`` as a query string (a list value repeats its key)."""
    pairs: list[tuple[str, str]] = []
    for key, value in (params or {}).items():
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if v not in (None, ""):
                pairs.append((key, str(v)))
    return f"{base}?{urlencode(pairs)}" if pairs else base


def link(href: str, body: Any, **attrs: Any) -> Markup:
    return tag("a", body, href=href, **attrs)


def table(headers: list[str], rows: Iterable[Iterable[Any]], caption: str = "") -> Markup:
    head = join(tag("th", h, scope="col") for h in headers)
    body = join(tag("tr", join(tag("td", c) for c in row)) for row in rows)
    cap = tag("caption", caption) if caption else Markup("")
    return Markup(f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def field(label: str, name: str, value: Any = "", *, type: str = "text", hint: str = "", **attrs: Any) -> Markup:
    """A labelled input (every control has a label: keyboard and screen-reader reachable)."""
    ident = f"f-{name}"
    control = Markup(
        f'<input id="{esc(ident)}" name="{esc(name)}" type="{esc(type)}" value="{esc(value)}"'
        + "".join(f' {esc(k.rstrip("_"))}="{esc(v)}"' for k, v in attrs.items() if v is not None)
        + ">"
    )
    small = tag("small", hint) if hint else Markup("")
    return Markup(f'<div class="field"><label for="{esc(ident)}">{esc(label)}</label>{control}{small}</div>')


def asset(name: str) -> str:
    return resources.files("memgraph_agents.ui").joinpath("assets", name).read_text(encoding="utf-8")


def page(title: str, body: Any, *, crumbs: list[tuple[str, str]] | None = None, status_line: str = "") -> str:
    """The frame of every page: title, breadcrumbs (``[(href, text)]``), the body, the stylesheet
    and the script (served from ``/assets``: nothing from the network)."""
    trail = [link("/", "memgraph")] + [link(h, t) if h else tag("span", t) for h, t in crumbs or []]
    nav = tag("nav", join(trail, " › "), aria_label="breadcrumbs")
    note = tag("p", status_line, class_="status", role="status") if status_line else Markup("")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} · memgraph</title>"
        '<link rel="stylesheet" href="/assets/ui.css"></head><body>'
        f"<header>{nav}</header><main>{tag('h1', title)}{note}{esc(body)}</main>"
        '<script src="/assets/ui.js" defer></script></body></html>'
    )
