"""The one request builder of ``Memory``: a verb's arguments, checked with the messages a user
reads, turned into what the engine takes (a namespace, a ``SearchRequest``).

``search``, ``ask`` and ``astream`` build their request here, the item verbs their namespace:
so ``user_id=``, ``limit=``, the filters and the defaults mean one thing at every verb.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memgraph_agents.api.checks import check_names
from memgraph_agents.api.filters import DateLike, memory_filter
from memgraph_agents.api.overrides import check_k, check_min_score, check_retriever
from memgraph_agents.api.request import SearchRequest, search_request
from memgraph_agents.api.users import namespace_or_user
from memgraph_agents.config import Settings
from memgraph_agents.errors import InputError
from memgraph_agents.resources import resources_of
from memgraph_agents.storage.namespaces import validate_stored_name


def namespace_of(settings: Settings, namespace: str | None, user_id: str | int | None = None) -> str:
    """The namespace a verb acts on: ``namespace``, else ``user_id``'s (``Memory.user``'s
    mapping), else ``settings.namespace``; validated (``""`` is refused, not the default). Every
    verb names its namespace here, so a closed ``Memory`` (its settings' resources) refuses it."""
    res = resources_of(settings)
    if res is not None:
        res.check_open()
    ns = namespace_or_user(namespace, user_id)  # type: ignore[arg-type]
    return validate_stored_name(settings.namespace if ns is None else ns)


def k_or_limit(k: int | None, limit: int | None, default: int) -> int:
    """``k`` (``limit`` is mem0's name for it): one of them, checked, else ``default``."""
    if k is not None and limit is not None:
        raise InputError("pass k= or limit=, not both (limit is another name for k)")
    return check_k(k if limit is None else limit, default)


def retriever_of(settings: Settings, retriever: Any) -> Any:
    """A name (checked), a caller's own callable ``(query, store, *, k)``, or the settings' default."""
    if retriever is None:
        return settings.default_retriever
    return retriever if callable(retriever) else check_retriever(retriever)


def scopes(
    settings: Settings, namespace: str | None, user_id: Any, namespaces: Sequence[str] | None
) -> tuple[str, ...]:
    """The namespaces a search ranks over: several (``namespaces=``), else the one of
    ``namespace`` / ``user_id``."""
    if namespaces is None:
        return (namespace_of(settings, namespace, user_id),)
    if namespace is not None or user_id is not None:
        raise InputError("search takes namespaces= or one namespace (namespace= or user_id=), not both")
    out = [validate_stored_name(n) for n in check_names(namespaces)]  # None in it is refused, not the default
    if len(set(out)) != len(out):
        raise InputError(f"namespaces lists a namespace twice: {out}")
    return tuple(out)


def build_search(
    settings: Settings,
    query: str,
    *,
    namespace: str | None = None,
    namespaces: Sequence[str] | None = None,
    user_id: str | int | None = None,
    k: int | None = None,
    limit: int | None = None,
    retriever: Any = None,
    since: DateLike | None = None,
    until: DateLike | None = None,
    speaker: str | Sequence[str] | None = None,
    filter: dict[str, Any] | None = None,
    min_score: float | None = None,
    as_of: DateLike | None = None,
    config: Mapping[str, Any] | None = None,
) -> SearchRequest:
    """The ``SearchRequest`` of a ``search`` / ``ask`` / ``astream`` call, every argument checked."""
    where = scopes(settings, namespace, user_id, namespaces)
    f = memory_filter(since, until, speaker, filter, as_of)
    return search_request(
        query=query,
        namespaces=where,
        k=k_or_limit(k, limit, settings.top_k),
        retriever=retriever_of(settings, retriever),
        filter=f,
        min_score=check_min_score(min_score),
        config=config,
    )
