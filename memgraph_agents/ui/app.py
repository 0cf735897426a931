"""The web app: Starlette routes over ``Memory`` (served by uvicorn in ``memgraph ui``).

Every view is a GET with its state in the URL (bookmarkable); the writes (update a note,
forget a note or session, and ``ui.manage``'s add a note and forget in bulk) are POSTs through
``security.Access.check_write``; update and forget first render a confirmation page and act only
on the confirmed form. A bad id or namespace is a 404 or 400
page with the error's one-line message, never a traceback.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from memgraph_agents.aio import background
from memgraph_agents.api import Memory, ops
from memgraph_agents.api.filter_text import metadata_filter
from memgraph_agents.errors import InputError
from memgraph_agents.ui import data, manage_views, views
from memgraph_agents.ui.html import asset, path, url
from memgraph_agents.ui.manage import manage_routes
from memgraph_agents.ui.problems import problem
from memgraph_agents.ui.runs import RecentRuns
from memgraph_agents.ui.security import COOKIE, Access, Refused

Endpoint = Callable[[Request], Awaitable[Response]]

# Our pages load their CSS/JS from /assets only; the drawn trace (its own page, in a frame) is
# self-contained with inline script and style. No page may be framed by another site.
CSP_APP = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; frame-src 'self'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'"
CSP_TRACE = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; base-uri 'none'"
ASSETS = {"ui.css": "text/css", "ui.js": "text/javascript"}
LIST_PARAMS = ("kind", "since", "until", "speaker", "filter", "limit", "cursor")
SEARCH_PARAMS = ("q", "k", "retriever", "as_of", "since", "until", "speaker", "filter")


def _html(body: str, status: int = 200, csp: str = CSP_APP) -> HTMLResponse:
    headers = {
        "Content-Security-Policy": csp,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
    }
    return HTMLResponse(body, status_code=status, headers=headers)


def _params(request: Request | dict[str, str], names: tuple[str, ...]) -> dict[str, str]:
    given = request.query_params if isinstance(request, Request) else request
    return {n: given.get(n, "").strip() for n in names if given.get(n, "").strip()}


def _int(value: str | None, name: str, default: int | None) -> int | None:
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise InputError(f"{name} must be a whole number, got {value!r}") from None


def _filters(p: dict[str, str]) -> dict[str, Any]:
    return {
        "since": p.get("since") or None,
        "until": p.get("until") or None,
        "speaker": p.get("speaker") or None,
        "filter": metadata_filter([p["filter"]]) if p.get("filter") else None,
    }


def build_app(memory: Memory, access: Access) -> Starlette:
    """The app over ``memory``; ``access`` says who sees which namespace and whether writes exist."""

    runs = RecentRuns()  # the navigator runs the search pages drew from

    def namespace(request: Request) -> str:
        ns = request.path_params["ns"]
        access.check_namespace(request, ns, memory.namespaces())
        return ns

    async def home(request: Request) -> Response:
        names = access.namespaces(request, memory.namespaces())
        if access.only is not None and names == [access.only]:
            return RedirectResponse(path("ns", access.only), status_code=303)
        rows = await run_in_threadpool(data.namespace_rows, memory, names)
        return _html(views.home(rows))

    async def timeline(request: Request) -> Response:
        ns = namespace(request)
        p = _params(request, LIST_PARAMS)
        kind = p.get("kind") or None
        if kind not in (None, "session", "note"):
            raise InputError(f"kind must be session or note, got {kind!r}")
        limit = _int(p.get("limit"), "limit", 20)
        page = await memory.alist(ns, kind=kind, limit=limit or 20, cursor=p.get("cursor"), **_filters(p))  # type: ignore[arg-type]
        stats = await memory.astats(ns)
        forgot, added = request.query_params.get("forgot"), request.query_params.get("added")
        status = f"Forgot {forgot}." if forgot else f"Added {added}." if added else ""
        manage = manage_views.panel(ns, p, access.csrf(request), not access.read_only)
        return _html(views.timeline(ns, page, p, stats, status, manage))

    async def session(request: Request) -> Response:
        ns = namespace(request)
        view = await run_in_threadpool(data.session_view, memory, ns, request.path_params["sid"])
        return _html(views.session(ns, view))

    async def search(request: Request) -> Response:
        ns = namespace(request)
        p = _params(request, SEARCH_PARAMS)
        if not p.get("q"):
            return _html(views.search(ns, p, None, "", ""))
        k = _int(p.get("k"), "k", None)
        result = await memory.aask(
            p["q"], namespace=ns, k=k, retriever=p.get("retriever") or None, as_of=p.get("as_of") or None, **_filters(p)
        )
        trace_url, note = "", ""
        try:
            # lazy: networkx, the [draw] extra: checked when a drawing is asked
            import networkx  # noqa: F401  (the drawing's layout: the [draw] extra)

            # the drawing of this very run when the navigator produced it; else a run of its own
            held = {"run": runs.hold(ns, result.navigation)} if result.navigation is not None else {}
            trace_url = url(path("ns", ns, "trace"), {"q": p["q"], "k": k or "", **held})
        except ImportError:
            note = 'Drawing the path needs the [draw] extra: pip install "memgraph-agents[draw]".'
        return _html(views.search(ns, p, result, trace_url, note))

    async def trace(request: Request) -> Response:
        """The navigator's path for the question, drawn (``debug.trace_html``, as ``memgraph trace``)."""
        # lazy: the trace page (~15 ms): only when a drawing is asked
        from memgraph_agents.debug.trace_html import trace_page

        ns = namespace(request)
        p = _params(request, ("q", "k", "run"))
        if not p.get("q"):
            raise InputError("trace needs a question: ?q=…")
        run = memory.settings.override(namespace=ns)
        k = _int(p.get("k"), "k", None) or run.top_k
        held = runs.get(ns, p["run"]) if p.get("run") else None
        if p.get("run") and held is None:  # never silently draw another run than the one asked for
            raise InputError("that run is no longer held (the browser keeps the newest 64): search again")

        def draw() -> str:
            store = ops.open_store(run, ns)
            result = held if held is not None else background.run(ops.navigation(run, store, p["q"], k, None))
            return trace_page(result, store, namespace=ns)

        return _html(await run_in_threadpool(draw), csp=CSP_TRACE)

    async def item(request: Request) -> Response:
        ns = namespace(request)
        item_id = request.path_params["item_id"]
        it = await memory.aget(item_id, namespace=ns)
        if request.method == "POST":
            return await write(request, ns, it)
        history = await memory.ahistory(it.id, namespace=ns) if it.kind == "note" else None
        done = "The note was updated." if request.query_params.get("done") == "updated" else ""
        return _html(views.item(ns, it, history, access.csrf(request), not access.read_only, done))

    async def write(request: Request, ns: str, it) -> Response:
        form = await request.form()
        access.check_write(request, str(form.get("csrf", "")))
        action = str(form.get("action", ""))
        if action not in ("update", "forget") or (action == "update" and it.kind != "note"):
            raise InputError(f"cannot {action or 'do that'} on a {it.kind}")
        if action == "forget" and it.kind not in ("note", "session"):
            raise InputError(f"only a note or a session can be forgotten, not a {it.kind}")
        text = str(form.get("text", ""))
        if action == "update" and not text.strip():
            raise InputError("the note's new text is empty")
        if form.get("confirm") != "yes":
            return _html(views.confirm(ns, it, action, text, access.csrf(request)))
        if action == "update":
            await memory.aupdate(it.id, text, namespace=ns)
            return RedirectResponse(url(path("ns", ns, "item", it.id), {"done": "updated"}), status_code=303)
        kind = {"note": it.id} if it.kind == "note" else {"session": it.id}
        await memory.aforget(namespace=ns, **kind)
        return RedirectResponse(url(path("ns", ns), {"forgot": it.id}), status_code=303)

    async def login(request: Request) -> Response:
        access.check_same_site(request)  # another site may not sign a browser in with its token
        form = await request.form()
        token = str(form.get("token", ""))
        if access.tokens is None or token not in access.tokens:
            raise Refused(401, "that token is not valid here")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https")
        return response

    async def assets(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            raise Refused(404, f"no asset {name!r}")
        return Response(asset(name), media_type=ASSETS[name], headers={"Cache-Control": "max-age=3600"})

    data_dir = memory.settings.data_dir
    hide = (str(data_dir), str(data_dir.resolve()))  # never on a page (problems.scrub)

    def guarded(endpoint: Endpoint, *, signed_in: bool = True) -> Endpoint:
        """``endpoint`` behind the Host and token checks; any failure becomes a page, never a traceback."""

        async def run(request: Request) -> Response:
            try:
                access.check_host(request)
                if signed_in:
                    access.token_of(request)
                return await endpoint(request)
            except Exception as exc:
                return _problem(exc, hide)

        return run

    routes = [
        Route("/", guarded(home)),
        Route("/login", guarded(login, signed_in=False), methods=["POST"]),
        Route("/assets/{name}", guarded(assets, signed_in=False)),
        Route("/ns/{ns}", guarded(timeline)),
        Route("/ns/{ns}/search", guarded(search)),
        Route("/ns/{ns}/trace", guarded(trace)),
        Route("/ns/{ns}/session/{sid:path}", guarded(session)),
        Route("/ns/{ns}/item/{item_id:path}", guarded(item), methods=["GET", "POST"]),
        *manage_routes(memory, access, namespace, lambda r: _params(r, LIST_PARAMS), _filters, _html, guarded),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        return _problem(Refused(404, f"no page {request.url.path!r} here"))

    return Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found})


def _problem(exc: Exception, hide: tuple[str, ...] = ()) -> Response:
    status, message = problem(exc, hide)
    return _html(views.problem(status, message, login=status == 401), status)
