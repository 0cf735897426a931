"""``memgraph mcp``: graph memory as an MCP server (official ``mcp`` SDK, ``FastMCP``).

Tools: ``recall`` (with filters ``since``, ``until``, ``speaker``, ``filter`` and the call's
relevance floor ``min_score``), ``remember``
(with ``metadata``), ``list``, ``get``, ``update_note``, ``history``, ``forget_note``, ``ask``,
``stats`` (the item verbs: ``integrations.mcp_verbs``). Whose memory a call
reads or writes is fixed by the server's configuration, never by a tool argument: one
``--namespace`` (stdio, or HTTP without tokens), or per bearer token (HTTP with ``--tokens``:
a JSON file ``{"token": "namespace"}``), so one client cannot name another's memory.

Tools are async and call ``Memory``'s async methods (its background loop and worker threads),
so one slow call does not stall the others. Their defaults are every door's: the preset's
retriever, else ``MEMGRAPH_RETRIEVER``; ``k`` = ``MEMGRAPH_TOP_K``. A bad argument or a failing
call comes back as an MCP error result (``isError``) that names only what the client may see
(``api.client_errors``: no other tenant's namespace, no server path; the full error goes to the
server's log); the server keeps running. The token file is loaded strictly
(``integrations.mcp_tokens``): one that maps no token, cannot be read or is malformed stops the
server before it listens, and so does HTTP on a non-loopback address without tokens.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from memgraph_agents.api import Memory
from memgraph_agents.api.client_errors import client_message
from memgraph_agents.config import Settings
from memgraph_agents.errors import ConfigError, MemgraphError, NamespaceError
from memgraph_agents.integrations.mcp_finite import guard_finite
from memgraph_agents.integrations.mcp_logging import quiet_stderr
from memgraph_agents.integrations.mcp_tokens import check_http_exposure, load_tokens
from memgraph_agents.integrations.mcp_verbs import Filter, Metadata, Since, Speaker, Until, add_verb_tools, filter_args
from memgraph_agents.model.outcome import nothing_line
from memgraph_agents.storage.namespaces import validate_namespace, validate_stored_name

__all__ = ["MemoryServer", "TokenNamespaces", "build_server", "load_tokens"]

log = logging.getLogger(__name__)
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
T = TypeVar("T")

INSTRUCTIONS = (
    "Long-term memory of past conversations as an event graph. `recall` finds dated evidence, "
    "`ask` answers a question from memory, `remember` stores a statement, `list` pages through stored "
    "sessions and notes, `get` shows one, `update_note` corrects a note (`history`: its versions), "
    "`forget_note` deletes one note by its id, `stats` describes the memory."
)


class TokenNamespaces:
    """Bearer token -> namespace (``TokenVerifier``): the namespace travels as the client id."""

    def __init__(self, tokens: dict[str, str]) -> None:
        if not tokens:
            raise ConfigError("the token file maps no token to a namespace")
        self.tokens = {str(t): validate_namespace(ns) for t, ns in tokens.items()}

    async def verify_token(self, token: str) -> AccessToken | None:
        ns = self.tokens.get(token)
        return None if ns is None else AccessToken(token=token, client_id=ns, scopes=["memory"])


class MemoryServer:
    """The tools' logic on ``Memory``, one namespace per call (resolved by ``build_server``).
    ``Memory``'s async methods run on its background loop and worker threads, so the server's
    loop keeps answering other calls."""

    def __init__(self, settings: Settings) -> None:
        self.memory = Memory(settings=settings)
        data_dir = Path(settings.data_dir)
        self.hidden = [str(data_dir), str(data_dir.resolve()), str(settings.graph_url or "")]

    async def guarded(self, call: Awaitable[T]) -> T:
        """``call``'s result; an error becomes what the client may read (``client_message``: not
        other tenants' namespaces, not the server's paths), the full one goes to the log."""
        try:
            return await call
        except Exception as exc:
            log.warning("memgraph mcp: %s: %s", type(exc).__name__, exc, exc_info=not isinstance(exc, MemgraphError))
            raise ToolError(client_message(exc, self.hidden)) from None

    async def recall(self, ns: str, query: str, k: int | None, min_score: float | None = None, **filters: Any) -> str:
        evidence = await self.memory.asearch(query, namespace=ns, k=k, min_score=min_score, **filters)
        return "\n".join(ev.cite() for ev in evidence) or nothing_line(query, evidence.reason, evidence.why)

    async def remember(self, ns: str, text: str, metadata: dict | None = None) -> str:
        report = await self.memory.aadd(text, namespace=ns, metadata=metadata)
        return report.note_ids[0]

    async def forget_note(self, ns: str, note_id: str) -> str:
        out = await self.memory.aforget(namespace=ns, note=note_id)
        return f"forgot {note_id} ({out.nodes_removed} nodes removed)"

    async def ask(self, ns: str, question: str, k: int | None) -> str:
        r = await self.memory.aask(question, namespace=ns, k=k)
        lines = [f"answer: {r.answer}"] if r.answer else ["(offline: no language model, evidence only)"]
        return "\n".join(lines + [ev.cite() for ev in r.evidence])

    async def stats(self, ns: str) -> dict:
        try:
            s = await self.memory.astats(ns)
        except NamespaceError:
            return {"namespace": ns, "sessions": 0, "nodes": {}, "edges": {}, "vectors": 0}
        return {k: s[k] for k in ("namespace", "sessions", "nodes", "edges", "vectors")}


Query = Annotated[str, Field(min_length=1, description="what to look for, in natural language")]
TopK = Annotated[
    int | None, Field(ge=1, le=50, description="how many evidence items (default: the server's MEMGRAPH_TOP_K, 10)")
]
MinScore = Annotated[
    float | None,
    Field(
        ge=0,
        le=1,
        description="relevance floor in [0, 1]: items less relevant are dropped (default: the server's "
        "MEMGRAPH_MIN_SCORE, else the relevance gate: nothing when the best item is not relevant, else all k)",
    ),
]


def build_server(
    settings: Settings,
    *,
    namespace: str | None = None,
    tokens: dict[str, str] | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: LogLevel = "WARNING",
    user_id: str | None = None,
) -> FastMCP:
    """The FastMCP server; with ``tokens`` every HTTP call needs a bearer token of the map (an
    empty map is refused, as is HTTP on a non-loopback ``host`` without tokens). ``log_level``:
    the SDK's and the HTTP server's logs on stderr; WARNING by default, so a stdio client's log
    gets no line per request (a tool's failure is a warning and still shows). ``user_id``: the
    user whose namespace ``namespace`` is (``memgraph mcp --user-id``)."""
    # "" is refused, not the default; a user's derived name (--user-id) is served too
    fixed = validate_stored_name(settings.namespace if namespace is None else namespace)
    check_http_exposure(host, tokens)
    auth = None
    verifier = TokenNamespaces(tokens) if tokens is not None else None  # {} refuses: never no auth
    if verifier is not None:
        base = f"http://{host}:{port}"
        auth = AuthSettings(issuer_url=base, resource_server_url=f"{base}/mcp", validate_token_resource=False)
    mcp = FastMCP(
        "memgraph",
        instructions=INSTRUCTIONS,
        host=host,
        port=port,
        auth=auth,
        token_verifier=verifier,
        log_level=log_level,
    )
    guard_finite(mcp)  # Infinity / NaN in arguments: refused before the SDK turns them into null
    quiet_stderr(log_level)  # after FastMCP set up its handler: that handler's level, no disconnect tracebacks
    server = MemoryServer(settings)
    if user_id is not None:  # --user-id: its writes keep the id with the user's namespace (api.owners)
        server.memory = server.memory.user(user_id)

    def ns() -> str:
        if verifier is None:
            return fixed

        token = get_access_token()
        if token is None:  # the auth middleware already refuses such requests; never fall back
            raise PermissionError("no valid bearer token")
        return token.client_id

    @mcp.tool()
    async def recall(
        query: Query,
        k: TopK = None,
        since: Since = None,
        until: Until = None,
        speaker: Speaker = None,
        filter: Filter = None,
        min_score: MinScore = None,
    ) -> str:
        """Dated evidence from long-term memory for a query: one line per item, [date | turn ids] text.
        Filters restrict what is searched (k items still come back when k match). Without
        min_score nothing comes back when nothing stored matches the question (the relevance gate, whatever k);
        with it, items below it are dropped. An empty answer says why ("Nothing in memory: ...")."""
        return await server.guarded(
            server.recall(ns(), query, k, min_score, **filter_args(since, until, speaker, filter))
        )

    @mcp.tool()
    async def remember(
        text: Annotated[str, Field(min_length=1, description="a self-contained statement")], metadata: Metadata = None
    ) -> str:
        """Store a statement in long-term memory; returns its note id (for get, update_note, forget_note)."""
        return await server.guarded(server.remember(ns(), text, metadata))

    @mcp.tool()
    async def forget_note(
        note_id: Annotated[str, Field(min_length=1, description="an id returned by remember")],
    ) -> str:
        """Delete one remembered note (and everything built from it) by its id."""
        return await server.guarded(server.forget_note(ns(), note_id))

    @mcp.tool()
    async def ask(question: Query, k: TopK = None) -> str:
        """Answer a question from memory (with an LLM configured), with the evidence used."""
        return await server.guarded(server.ask(ns(), question, k))

    @mcp.tool()
    async def stats() -> dict:
        """Sessions, nodes and edges by kind of this memory."""
        return await server.guarded(server.stats(ns()))

    add_verb_tools(mcp, server.memory, ns, server.guarded)
    return mcp
