"""The MCP server's stderr: records at the chosen level and above (WARNING by default,
docs/mcp.md), whichever library logs them, and no traceback for a client that went away.

FastMCP installs a handler on the root logger for its level, but a library that sets its own
logger to DEBUG (a search library's index build) still reaches that handler; capping the
handlers' level keeps stderr at the level asked for. An HTTP client closing its stream is how
the streamable transport ends a session: the SDK logs it as an error with a traceback
(``ClosedResourceError``) on every disconnect; that is not a failure of this server.
"""

from __future__ import annotations

import logging

import anyio


class DropDisconnects(logging.Filter):
    """Drops a record whose exception is a closed or broken stream (a client that went away)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None:
            return True

        gone = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)
        chain = [exc, *getattr(exc, "exceptions", ())]  # an exception group of them too
        return not all(isinstance(e, gone) for e in chain if e is not None)


def quiet_stderr(level: str) -> None:
    """Cap the root handlers at ``level`` and drop disconnect tracebacks (see the module docstring)."""
    numeric = logging.getLevelName(level.upper())
    drop = DropDisconnects()
    for handler in logging.getLogger().handlers:
        handler.setLevel(numeric if isinstance(numeric, int) else logging.WARNING)
        if not any(isinstance(f, DropDisconnects) for f in handler.filters):
            handler.addFilter(drop)
