"""What a remote client may read of an error: nothing of other tenants, nothing of the server.

A server (the MCP server over HTTP) serves many tenants from one data dir, and its errors are
written for an operator: ``NamespaceNotFoundError`` lists every stored namespace, storage
errors name the data dir and database. A tenant's client gets instead:

* its own input's problem (``InputError``, ``SessionConflictError``), with any server path or
  URL in the message cut out;
* "nothing is stored in this memory yet" for a missing namespace (its own: the name it was
  given is the only one it knows);
* for anything else (storage, LLM, a bug) the error's kind and "see the server log"; the
  caller logs the full error.
"""

from __future__ import annotations

from collections.abc import Iterable

from memgraph_agents.errors import InputError, NamespaceNotFoundError, SessionConflictError

EMPTY_MEMORY = "nothing is stored in this memory yet"


def client_message(exc: BaseException, hide: Iterable[str] = ()) -> str:
    """The one line a remote client may read about ``exc`` (see the module docstring).
    ``hide``: strings the server must not show (its data dir, its database URL), replaced by ``…``."""
    if isinstance(exc, NamespaceNotFoundError):
        return EMPTY_MEMORY
    if isinstance(exc, InputError | SessionConflictError):
        text = str(exc)
        for secret in sorted({s for s in hide if s}, key=len, reverse=True):  # longest first: no partial leftovers
            text = text.replace(secret, "…")
        return text
    return f"the memory server could not do this ({type(exc).__name__}; see the server log)"
