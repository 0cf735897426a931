"""Values computed once per immutable object (a frozen ``Turn``), found again by identity.

A chat writer passes the whole transcript on every write, its earlier turns being the very
objects it passed before: what was computed for them (their digest, that their text is clean
and their times resolve) is found again without reading them, so a write costs its new turn
rather than the thread's length. Only frozen objects may be keys (the value must stay true of
the object). The memo holds a reference to each object it keys, so an id is never reused by
another object while its entry lives; beyond ``size`` entries the oldest go (a turn
forgotten is computed again).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    def __init__(self, size: int = 16384) -> None:
        self.size = size
        self._items: OrderedDict[int, tuple[object, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, obj: object) -> V | None:
        hit = self._items.get(id(obj))  # one dict read: atomic, no lock needed
        return hit[1] if hit is not None and hit[0] is obj else None

    def put(self, obj: object, value: V) -> None:
        with self._lock:
            self._items[id(obj)] = (obj, value)
            self._items.move_to_end(id(obj))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
