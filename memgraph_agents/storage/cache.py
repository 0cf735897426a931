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

from memgraph_agents.errors import StorageError
from memgraph_agents.storage.usage import Retirable

S = TypeVar("S", bound=Retirable)


class _Opening:
    """One key being opened: the threads asking for it wait on ``lock``, not on the cache's."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting = 0


class StoreCache(Generic[S]):
    """The cache's own lock guards its dicts only: opening, validating and freeing a store run
    outside it, so nothing they do (a GC pass, a callback, a slow disk) can wait for it while
    this thread holds it."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, int(capacity))
        self._items: OrderedDict[Hashable, S] = OrderedDict()
        self._opening: dict[Hashable, _Opening] = {}
        self._lock = threading.Lock()
        self.closed = False

    def get_or_open(
        self,
        key: Hashable,
        opener: Callable[[], S],
        valid: Callable[[S], bool] = lambda s: True,
        capacity: int | None = None,
    ) -> S:
        """The cached store for ``key`` (most recently used now), else ``opener()`` cached.

        Two threads asking for one key get one store: the second waits on that key's opening,
        never on the cache's lock."""
        if capacity is not None:
            self.capacity = max(1, int(capacity))
        with self._lock:
            store = self._items.get(key)
        if store is not None and not valid(store):
            self._drop(key, store)
            store = None
        if store is None:
            store = self._open(key, opener)
        evicted: list[S] = []
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
            # Evict the least recently used idle stores; a store inside a call (an ingest holds
            # one for its whole run) stays, so one namespace never has two open stores here.
            excess = len(self._items) - self.capacity
            for k in [k for k, v in self._items.items() if k != key and not v.busy][: max(0, excess)]:
                evicted.append(self._items.pop(k))
        for s in evicted:
            s.retire()
        return store

    def _open(self, key: Hashable, opener: Callable[[], S]) -> S:
        with self._lock:
            opening = self._opening.setdefault(key, _Opening())
            opening.waiting += 1
        try:
            with opening.lock:
                with self._lock:
                    store = self._items.get(key)
                if store is None:
                    store = opener()  # outside the cache's lock
                    with self._lock:
                        closed = self.closed
                        if not closed:
                            self._items[key] = store
                    if closed:  # closed while it opened: nobody will free it later
                        store.retire()
                        raise StorageError("the memory was closed while a store opened")
                return store
        finally:
            with self._lock:
                opening.waiting -= 1
                if opening.waiting == 0:
                    del self._opening[key]

    def _drop(self, key: Hashable, store: S) -> None:
        with self._lock:
            if self._items.get(key) is store:
                del self._items[key]
        store.retire()

    def pop_where(self, match: Callable[[Hashable], bool]) -> list[S]:
        with self._lock:
            keys = [k for k in self._items if match(k)]
            return [self._items.pop(k) for k in keys]

    def clear(self) -> None:
        for s in self.pop_where(lambda k: True):
            s.retire()

    def close(self) -> None:
        """``clear``, and no store is cached from now on."""
        with self._lock:
            self.closed = True
        self.clear()

    def __len__(self) -> int:
        return len(self._items)

    def values(self) -> list[S]:
        with self._lock:
            return list(self._items.values())
