"""JSON numbers only: a request whose arguments hold ``Infinity``, ``NaN`` or a number too large
for a float (``1e999``) gets one clear error, and nothing is stored.

Python's JSON (and the SDK's parser) read these as non-finite floats, but the SDK then re-encodes
each request as strict JSON before a tool sees it, turning them into ``null``: a metadata value
``Infinity`` would be stored as ``null`` (the API and the CLI refuse it). So the check runs on
the request as received, before that re-encoding: the server's message stream is wrapped
(``guard_finite``) and such a request is answered with an "invalid params" error instead.
"""

from __future__ import annotations

import math
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_PARAMS, ErrorData, JSONRPCError, JSONRPCMessage, JSONRPCRequest


def non_finite(value: Any, where: str) -> str | None:
    """Where ``value`` holds a non-finite number, as a sentence; None when it holds none."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where}: {value!r} is not a JSON number (JSON has no Infinity or NaN; 1e999 overflows)"
    if isinstance(value, dict):
        for k, v in value.items():
            found = non_finite(v, f"{where}.{k}")
            if found:
                return found
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = non_finite(v, f"{where}[{i}]")
            if found:
                return found
    return None


class _FiniteOnly:
    """The server's read stream, less the requests with non-finite numbers (answered here)."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read, self._write = read, write

    async def __aenter__(self) -> _FiniteOnly:
        await self._read.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._read.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._read, name)

    def __aiter__(self):
        return self._messages()

    async def _messages(self):
        async for message in self._read:
            root = getattr(getattr(message, "message", None), "root", None)
            if isinstance(root, JSONRPCRequest):
                bad = non_finite((root.params or {}).get("arguments"), "arguments")
                if bad:
                    error = JSONRPCError(jsonrpc="2.0", id=root.id, error=ErrorData(code=INVALID_PARAMS, message=bad))
                    await self._write.send(SessionMessage(JSONRPCMessage(error)))
                    continue
            yield message


def guard_finite(server: FastMCP) -> None:
    """Wrap ``server``'s message stream (stdio and HTTP sessions alike) with the check."""
    low = server._mcp_server  # every transport runs its sessions through this object's ``run``
    run = low.run

    async def finite_run(read_stream: Any, write_stream: Any, *args: Any, **kwargs: Any) -> Any:
        return await run(_FiniteOnly(read_stream, write_stream), write_stream, *args, **kwargs)  # type: ignore[arg-type]

    low.run = finite_run  # type: ignore[method-assign]
