"""One sync/async mechanism for ``Memory``'s verbs.

Each verb is written once, as a coroutine method with its parameters and docstring; ``twins``
makes the pair a user calls from it: the blocking verb (``search``) runs the coroutine on the
public API's one background loop and waits; the async verb (``asearch``) awaits it there, so
the caller's event loop is never blocked. Blocking steps inside (SQLite, Chroma) go to worker
threads as everywhere. ``inspect.signature`` and ``help`` of either twin show the one
definition (``functools.wraps``), so there is no second signature to drift.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

from memgraph_agents.aio import background

S = TypeVar("S")
P = ParamSpec("P")
T = TypeVar("T")

Verb = Callable[Concatenate[S, P], Coroutine[Any, Any, T]]


def _named(wrapper: Any, fn: Any, name: str) -> None:
    wrapper.__name__ = name
    wrapper.__qualname__ = fn.__qualname__.rsplit(".", 1)[0] + "." + name if "." in fn.__qualname__ else name


def twins(fn: Verb[S, P, T]) -> tuple[Callable[Concatenate[S, P], T], Verb[S, P, T]]:
    """``(verb, averb)`` of the coroutine method ``_verb``: the blocking one and the async one."""
    name = fn.__name__.lstrip("_")

    @functools.wraps(fn)
    def blocking(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return background.run(fn(self, *args, **kwargs))

    @functools.wraps(fn)
    async def awaiting(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await background.arun(fn(self, *args, **kwargs))

    _named(blocking, fn, name)
    _named(awaiting, fn, "a" + name)
    return blocking, awaiting
