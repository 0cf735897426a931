"""Retrievers by name. Every retriever: ``(query, store, *, k, **params) -> list[Evidence]``.

Retrievers register themselves where they are defined (``@register_retriever("dense")``), so
this module imports nothing above the retrieval layer. Look retrievers up through
``memgraph_agents.retrievers`` (the top layer), which loads every one of them first,
the navigator included.

A preset's name (``compassmem``, ``emem``, ``premem``…) also names a retriever: the preset's
retriever with its parameters (``memgraph_agents.presets``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from memgraph_agents.config import DEFAULT_RETRIEVER  # noqa: F401  re-exported: one source, the settings' default
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.presets import DEFAULT_PRESET, PRESETS
from memgraph_agents.retrieval.protocols import Retriever
from memgraph_agents.storage.protocols import StoreReader

R = TypeVar("R", bound=Callable[..., list[Evidence]])

RETRIEVERS: dict[str, Retriever] = {}


def register_retriever(name: str) -> Callable[[R], R]:
    """Decorator: make a retriever reachable by ``name`` (a second one under a taken name is an error)."""

    def add(fn: R) -> R:
        if RETRIEVERS.get(name, fn) is not fn:
            raise ValueError(f"retriever {name!r} is already registered")
        RETRIEVERS[name] = fn
        return fn

    return add


def get_retriever(name: str) -> Retriever:
    """The retriever called ``name``; ``ValueError`` listing the registered names otherwise."""
    if name in RETRIEVERS:
        return RETRIEVERS[name]
    preset = PRESETS.get(name)
    if preset is not None and name != DEFAULT_PRESET:
        if preset.retriever not in RETRIEVERS:  # registered by a module nobody imported
            raise ValueError(
                f"preset {name!r} needs retriever {preset.retriever!r}, which is not loaded: "
                "look retrievers up through memgraph_agents.retrievers"
            )
        return functools.partial(RETRIEVERS[preset.retriever], **preset.retriever_params)
    raise ValueError(
        f"unknown retriever {name!r}: choose from {', '.join(RETRIEVERS)} "
        f"or a preset ({', '.join(p for p in PRESETS if p != DEFAULT_PRESET)})"
    )


def retriever_names() -> list[str]:
    """Every name ``get_retriever`` accepts: retrievers, then presets."""
    return [*RETRIEVERS, *(p for p in PRESETS if p != DEFAULT_PRESET and p not in RETRIEVERS)]


def accepts(fn: Retriever, param: str) -> bool:
    """Whether retriever ``fn`` declares ``param`` by name (``**params`` does not count: the
    navigator forwards those into a context that rejects unknown fields)."""
    p = inspect.signature(fn).parameters.get(param)
    return p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)


def retrieve(
    name: str,
    query: str,
    store: StoreReader,
    *,
    k: int = 10,
    llm: Any = None,
    usage: LLMUsage | None = None,
    llm_timeout: float | None = None,
    notes: list[str] | None = None,
    **params: Any,
) -> list[Evidence]:
    """Run retriever ``name`` on ``store`` (``ValueError`` for an empty question or an unknown name).

    ``llm`` (a chat model), ``usage`` (an ``LLMUsage``) and ``llm_timeout`` reach only the
    retrievers that declare them (e.g. ``ppr``'s optional LLM steps); the others run as without.
    ``notes`` (a list) receives the LLM fallbacks of the retrievers that report them.
    The ranking as the retriever made it: ``retrieval.catalog.retrieve`` (what callers use)
    also finishes it (``retrieval.finish``).
    """
    if not query or not query.strip():
        raise ValueError("the question is empty")
    fn = get_retriever(name)
    if llm is not None:
        extra = {"llm": llm, "usage": usage, "llm_timeout": llm_timeout, "notes": notes}
        params.update({p: v for p, v in extra.items() if v is not None and accepts(fn, p)})
    return fn(query, store, k=k, **params)
