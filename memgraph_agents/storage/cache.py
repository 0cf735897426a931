"""A bounded, thread-safe LRU of open namespace stores (``MEMGRAPH_CACHE_NAMESPACES``).

Everything a process keeps per namespace (snapshot, CSR matrices, vector cache, SQLite
connections) hangs off its store, so bounding the stores bounds memory and descriptors.
An evicted store is *retired* (``storage.usage``): freed now, or when its last running call
returns, so a thread still using it is never cut off.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from memgraph_agents.storage.usage import Retirable

S = TypeVar("S", bound=Retirable)


class StoreCache(Generic[S]):
    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, int(capacity))
        self._items: OrderedDict[Hashable, S] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_open(
        self,
        key: Hashable,
        opener: Callable[[], S],
        valid: Callable[[S], bool] = lambda s: True,
        capacity: int | None = None,
    ) -> S:
        """The cached store for ``key`` (most recently used now), else ``opener()`` cached.

        Opening happens under the cache lock: two threads asking for one namespace get one store."""
        evicted: list[S] = []
        with self._lock:
            if capacity is not None:
                self.capacity = max(1, int(capacity))
            store = self._items.get(key)
            if store is not None and not valid(store):
                evicted.append(self._items.pop(key))
                store = None
            if store is None:
                store = opener()
                self._items[key] = store
            self._items.move_to_end(key)
            # Evict the least recently used idle stores; a store inside a call (an ingest holds
            # one for its whole run) stays, so one namespace never has two open stores here.
            excess = len(self._items) - self.capacity
            for k in [k for k, v in self._items.items() if k != key and not v.busy][: max(0, excess)]:
                evicted.append(self._items.pop(k))
        for s in evicted:  # outside the lock: freeing may wait for nothing, but stays cheap
            s.retire()
        return store

    def pop_where(self, match: Callable[[Hashable], bool]) -> list[S]:
        with self._lock:
            keys = [k for k in self._items if match(k)]
            return [self._items.pop(k) for k in keys]

    def clear(self) -> None:
        for s in self.pop_where(lambda k: True):
            s.retire()

    def __len__(self) -> int:
        return len(self._items)

    def values(self) -> list[S]:
        with self._lock:
            return list(self._items.values())
