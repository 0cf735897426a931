"""The navigator runs behind the search pages, held briefly so the page's drawing shows the path
of the very run whose evidence it lists (not a second run of the same question).

A run is held under a random id bound to its namespace: a client that may read only another
namespace cannot draw it. The newest ``size`` runs are kept, in memory only.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Any


class RecentRuns:
    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._runs: OrderedDict[str, tuple[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def hold(self, namespace: str, navigation: Any) -> str:
        """The id under which ``navigation`` (a ``NavigationResult``) can be drawn."""
        run_id = secrets.token_urlsafe(12)
        with self._lock:
            self._runs[run_id] = (namespace, navigation)
            while len(self._runs) > self._size:
                self._runs.popitem(last=False)
        return run_id

    def get(self, namespace: str, run_id: str) -> Any | None:
        """The run held under ``run_id`` for ``namespace``; None when unknown, expired or another
        namespace's."""
        with self._lock:
            held = self._runs.get(run_id)
        return held[1] if held is not None and held[0] == namespace else None
