"""Close-on-last-release for a store held in a bounded cache (``runtime``'s LRU).

The cache evicts a namespace's store by *retiring* it: its connections and in-memory caches
are freed at once when nobody is inside one of its calls, else when the last call returns.
A holder that keeps an evicted store still works: a call reopens what it needs and, the
store being retired, frees it again when the call returns, so only calls in flight hold
descriptors.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, Protocol, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class Retirable(Protocol):
    """What the runtime's cache needs of a cached store."""

    def retire(self) -> None: ...

    @property
    def busy(self) -> bool: ...


class UseCounter:
    def __init__(self, free: Callable[[], None]) -> None:
        self._free = free
        self._lock = threading.Lock()
        self._users = 0
        self.retired = False

    @contextmanager
    def use(self) -> Iterator[None]:
        with self._lock:
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0 and self.retired:
                    self._free()

    def retire(self) -> None:
        with self._lock:
            self.retired = True
            if self._users == 0:
                self._free()

    @property
    def users(self) -> int:
        return self._users


def in_use(method: Callable[P, R]) -> Callable[P, R]:
    """Run a store method inside ``self.usage.use()``."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with args[0].usage.use():  # type: ignore[attr-defined]
            return method(*args, **kwargs)

    return wrapper
