"""Who may see what, and which writes are the user's own.

- **Exposure.** Without ``--tokens`` the app serves loopback only (``check_http_exposure``, the
  MCP server's rule) and answers only requests whose ``Host`` is a loopback name: a web page
  elsewhere cannot reach it through DNS rebinding.
- **Tokens** (the MCP token file, ``{"token": "namespace"}``): each token sees its own
  namespace only; a browser signs in once (``/login``) and keeps the token in an HttpOnly,
  SameSite=Strict cookie; ``Authorization: Bearer`` works too. A namespace the token does not
  hold is "not found", the same page as one that does not exist (nothing leaks).
- **Writes** (POST) need the form's CSRF token (an HMAC of the caller's identity under a key
  drawn at start) and, when the browser says where the request comes from (``Origin``,
  ``Sec-Fetch-Site``, else ``Referer``), the app's own origin: another site's page cannot
  submit a form here. A malformed ``Host`` is refused whatever the request.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.requests import Request

from memgraph_agents.integrations.mcp_tokens import is_loopback

COOKIE = "memgraph_ui_token"


class Refused(Exception):
    """A request the app will not serve: ``status`` and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Access:
    tokens: dict[str, str] | None = None  # token -> namespace; None: loopback, every namespace
    only: str | None = None  # --namespace: the one namespace served
    read_only: bool = False
    key: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    def token_of(self, request: Request) -> str | None:
        """The caller's valid token (``None`` without tokens configured); ``Refused(401)`` when tokens
        are configured and the request has none that is valid."""
        if self.tokens is None:
            return None
        auth = request.headers.get("authorization", "")
        given = auth[7:].strip() if auth.lower().startswith("bearer ") else request.cookies.get(COOKIE, "")
        for token in self.tokens:  # compare every one in constant time
            if given and hmac.compare_digest(given.encode(), token.encode()):
                return token
        raise Refused(401, "sign in with a token to see this memory")

    def check_host(self, request: Request) -> None:
        """A well-formed ``Host`` (a name or address and an optional port, nothing else); without
        tokens, a loopback one only (DNS rebinding would name another)."""
        host = request.headers.get("host", "")
        name = host_name(host)
        if name is None:
            raise Refused(400, "the request's Host header is malformed")
        if self.tokens is not None:
            return
        if not is_loopback(name):
            raise Refused(403, f"this memory is served to loopback only, not to the host {host!r}")

    def namespaces(self, request: Request, stored: list[str]) -> list[str]:
        """The stored namespaces this caller may see."""
        token = self.token_of(request)
        allowed = set(stored) if token is None else {self.tokens[token]} & set(stored)  # type: ignore[index]
        if self.only is not None:
            allowed &= {self.only}
        return sorted(allowed)

    def check_namespace(self, request: Request, namespace: str, stored: list[str]) -> None:
        if namespace not in self.namespaces(request, stored):
            raise Refused(404, f"no namespace {namespace!r} here")

    def csrf(self, request: Request) -> str:
        identity = self.token_of(request) or "loopback"
        return hmac.new(self.key, identity.encode(), hashlib.sha256).hexdigest()

    def check_write(self, request: Request, form_token: str) -> None:
        """A write from this app's own page: the origin (when the browser says it) and the CSRF token."""
        if self.read_only:
            raise Refused(403, "this memory is served read-only (--read-only)")
        self.check_same_site(request)
        if not hmac.compare_digest(str(form_token).encode(), self.csrf(request).encode()):
            raise Refused(403, "the form's token is missing or stale: reload the page and try again")

    def check_same_site(self, request: Request) -> None:
        """A form posted from this app's own page (when the browser says where it comes from)."""
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            raise Refused(403, "a write from another site is refused")
        origin = request.headers.get("origin")
        if origin is not None and origin != own_origin(request):
            raise Refused(403, f"a write from {origin!r} is refused: only this app's own pages may write")
        referer = request.headers.get("referer")
        if origin is None and referer is not None and referer_origin(referer) != own_origin(request):
            raise Refused(403, "a write from another page than this app's is refused")


def own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.headers.get('host', '')}"


# A Host header: a DNS name or IPv4 address, or an IPv6 address in brackets, then an optional port.
_HOST = re.compile(
    r"^(?:(?P<name>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)|(?P<v6>\[[0-9A-Fa-f:.]{2,45}\]))(?::(?P<port>[0-9]{1,5}))?$"
)


def host_name(host: str) -> str | None:
    """The name of a well-formed ``Host`` header value (``[::1]`` keeps its brackets), else None."""
    m = _HOST.match(host)
    if m is None or (m.group("port") is not None and not 0 < int(m.group("port")) <= 65535):
        return None
    return m.group("name") or m.group("v6")


def referer_origin(referer: str) -> str:
    """``scheme://host[:port]`` of a ``Referer`` ("" when it has none)."""
    try:
        parts = urlsplit(referer)
    except ValueError:
        return ""
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
