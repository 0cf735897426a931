"""The navigator's run context for a namespace, made once per distinct settings.

``NavigatorContext.from_settings`` validates a copy of the settings for the namespace and dumps
every field into the context (about 0.9 ms): the same for every question asked of a namespace
with the same settings, so it is kept, keyed by the settings' values (a changed field makes
another key). A context is plain data (no reference to the settings, their models or stores),
so keeping it keeps no ``Memory`` alive.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from memgraph_agents.config import Settings
from memgraph_agents.navigator.config import NavigatorContext

_SIZE = 64  # contexts kept (distinct settings x namespaces x policies in use)
_made: dict[tuple, NavigatorContext] = {}  # plain dict operations: safe across threads


def _values(model: BaseModel) -> tuple:
    """Every field's value, nested settings (``ingest``, ``limits``) as tuples of theirs; a value
    that cannot be a key stands as its ``repr``."""
    out: list[Any] = []
    for name, value in model.__dict__.items():
        if isinstance(value, BaseModel):
            value = (type(value).__name__, _values(value))
        else:
            try:
                hash(value)
            except TypeError:
                value = repr(value)
        out.append((name, type(value).__name__, value))  # the type too: 1 and 1.0 and True differ
    return tuple(out)


def navigator_context(settings: Settings, namespace: str, policy: str, params: dict[str, Any]) -> NavigatorContext:
    """``NavigatorContext.from_settings(settings.override(namespace=namespace), policy=policy,
    **params)``, worked out once per (settings' values, namespace, policy, params)."""
    key = (_values(settings), namespace, policy, repr(sorted(params.items())))
    got = _made.get(key)
    if got is not None:
        return got
    ctx = NavigatorContext.from_settings(settings.override(namespace=namespace), policy=policy, **params)
    if len(_made) >= _SIZE:
        _made.clear()
    _made[key] = ctx
    return ctx
