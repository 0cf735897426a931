"""The MCP server's bearer tokens: a JSON file ``{"token": "namespace"}``, loaded strictly.

The token file is the only thing between the network and every memory the server holds, so it
fails closed: a file that cannot be read, is not such an object, maps no token, names a token
twice, or holds a token shorter than ``MIN_TOKEN_CHARS`` (16: guessable tokens are no lock),
one with surrounding whitespace, or an invalid namespace stops the server before it listens
(one clear error), never an open server. Serving HTTP on an address other than loopback needs tokens
(``check_http_exposure``).
"""

from __future__ import annotations

import ipaddress
import json
import os
import stat
from pathlib import Path

from memgraph_agents.errors import ConfigError, NamespaceError
from memgraph_agents.storage.namespaces import validate_namespace

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}
MIN_TOKEN_CHARS = 16  # e.g. `python -c "import secrets; print(secrets.token_urlsafe(32))"`


class _DuplicateToken(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """``json.loads``' object hook: a key given twice is refused (JSON keeps the last silently)."""
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateToken(key)
        out[key] = value
    return out


def load_tokens(path: Path) -> dict[str, str]:
    """Token -> namespace from ``path``; ``ConfigError`` for anything but a non-empty map of
    non-empty tokens to valid namespace names."""
    where = f"token file {path}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where} cannot be read: {exc.strerror if isinstance(exc, OSError) else exc}") from exc
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where} is not JSON ({exc.msg} at line {exc.lineno})") from exc
    except _DuplicateToken:  # the key is a secret: never in a message
        raise ConfigError(f"{where} names a token twice (each token maps to one namespace)") from None
    except ValueError as exc:
        raise ConfigError(f"{where} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f'{where}: expected a JSON object {{"token": "namespace"}}, got {type(data).__name__}')
    if not data:
        raise ConfigError(f"{where} maps no token to a namespace")
    tokens: dict[str, str] = {}
    for token, ns in data.items():
        if not token.strip():
            raise ConfigError(f"{where}: an empty token")
        if token != token.strip():
            raise ConfigError(f"{where}: a token has leading or trailing whitespace")
        if len(token) < MIN_TOKEN_CHARS:
            raise ConfigError(f"{where}: a token of {len(token)} characters; tokens need at least {MIN_TOKEN_CHARS}")
        if not isinstance(ns, str):
            raise ConfigError(f"{where}: the namespace of a token is {type(ns).__name__}, not a string")
        try:
            tokens[token] = validate_namespace(ns)
        except NamespaceError as exc:
            raise ConfigError(f"{where}: {exc}") from exc
    _check_private(Path(path), where)
    return tokens


def _check_private(path: Path, where: str) -> None:
    """The tokens are secrets: a file other users can read (or write) is refused, naming the fix."""
    if os.name != "posix":  # no such mode bits to read
        return
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read: {exc.strerror}") from exc
    if mode & 0o077:
        raise ConfigError(
            f"{where} is readable or writable by other users (mode {mode:04o}): its tokens are secrets; "
            f"run `chmod 600 {path}`"
        )


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_http_exposure(host: str, tokens: dict[str, str] | None) -> None:
    """Refuse HTTP on a non-loopback address without tokens: anyone who reaches it would read
    and write the served memory."""
    if tokens is None and not is_loopback(host):
        raise ConfigError(
            f"refusing to serve memory over HTTP on {host} without --tokens: "
            "anyone who can reach the address could read and write it (use 127.0.0.1, or give a token file)"
        )
