"""The navigator's run context for a namespace, made once per settings object.

``NavigatorContext.from_settings`` validates a copy of the settings for the namespace and dumps
every field into the context (about 0.9 ms): the same for every question a ``Memory`` asks of
one namespace, so it is kept for as long as those settings are neither replaced nor changed.
A change is seen by identity: assigning a field (or a field of ``ingest`` / ``limits``) puts a
new object there, and the fingerprint below changes with it.
"""

from __future__ import annotations

import weakref
from typing import Any

from pydantic import BaseModel

from memgraph_agents.config import Settings
from memgraph_agents.navigator.config import NavigatorContext

_SIZE = 64  # contexts kept (settings objects x namespaces x policies in use)
_made: dict[tuple, tuple[weakref.ref, NavigatorContext]] = {}  # plain dict operations: safe across threads


def _fingerprint(settings: Settings) -> tuple:
    """The identities of every field's value, one level into nested settings."""
    out: list[int] = [id(settings._resources)]
    for value in settings.__dict__.values():
        out.append(id(value))
        if isinstance(value, BaseModel):
            out.extend(id(v) for v in value.__dict__.values())
    return tuple(out)


def navigator_context(settings: Settings, namespace: str, policy: str, params: dict[str, Any]) -> NavigatorContext:
    """``NavigatorContext.from_settings(settings.override(namespace=namespace), policy=policy,
    **params)``, worked out once per (settings, namespace, policy, params)."""
    key = (id(settings), _fingerprint(settings), namespace, policy, repr(sorted(params.items())))
    got = _made.get(key)
    if got is not None and got[0]() is settings:  # an id is reused only after its object is gone
        return got[1]
    ctx = NavigatorContext.from_settings(settings.override(namespace=namespace), policy=policy, **params)
    if len(_made) >= _SIZE:
        _made.clear()
    _made[key] = (weakref.ref(settings), ctx)
    return ctx
