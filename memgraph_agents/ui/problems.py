"""An error as the page a browser gets: its status and one line that says what is wrong, never
a traceback, and nothing of the server itself (its paths, its processes) — those go to the
server's log.

- ``Refused`` (the security checks): its own status and message;
- a namespace that does not exist: "no such namespace here" (its message lists the others);
- bad input (``InputError``, a bad setting): 400 (404 for "no note, session … 'x'"), the
  message with server paths and process ids taken out;
- the memory cannot be used now (``StorageError``: another process is writing, a damaged
  file, a Chroma server away): 503, the error's kind only;
- anything else: 500, the kind only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from memgraph_agents.errors import InputError, MemgraphError, NamespaceNotFoundError, StorageError
from memgraph_agents.ui.security import Refused

log = logging.getLogger("memgraph_agents.ui")

# An absolute path of two parts or more (a server's file), and a process id.
_PATH = re.compile(r"(?<![\w.:/])/(?:[^\s'\"/]+/)+[^\s'\",;)]*")
_PID = re.compile(r"\bpid \d+")


def scrub(text: str, hide: Iterable[str] = ()) -> str:
    """``text`` in one line without ``hide`` (the data dir), absolute paths or process ids."""
    for secret in sorted({s for s in hide if s}, key=len, reverse=True):  # longest first: no leftovers
        text = text.replace(secret, "…")
    text = _PID.sub("pid …", _PATH.sub("…", text))
    return " ".join(text.split())[:500]


def problem(exc: Exception, hide: Iterable[str] = ()) -> tuple[int, str]:
    """(status, message) of the page for ``exc`` (see the module docstring)."""
    if isinstance(exc, Refused):
        return exc.status, exc.message
    if isinstance(exc, NamespaceNotFoundError):  # its message lists the others: not for a tenant
        return 404, "no such namespace here"
    if isinstance(exc, InputError) and str(exc).startswith("no "):  # "no note, session, turn or node 'x' …"
        return 404, scrub(str(exc), hide)
    if isinstance(exc, StorageError):
        log.warning("memgraph ui: %s: %s", type(exc).__name__, exc)
        return 503, f"the memory cannot be used right now ({type(exc).__name__}); try again, or see the server's log"
    if isinstance(exc, (MemgraphError, ValueError)):
        return 400, scrub(str(exc), hide)
    log.exception("memgraph ui: %s", type(exc).__name__)
    return 500, f"the server failed ({type(exc).__name__}); its log has the details"
