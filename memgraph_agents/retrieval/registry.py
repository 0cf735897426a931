"""Retrievers by name. Every retriever: ``(query, store, *, k, **params) -> list[Evidence]``.

A preset's name (``compassmem``, ``emem``, ``premem``…) also names a retriever: the preset's
retriever with its parameters (``memgraph_agents.presets``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.navigator.run import navigator
from memgraph_agents.presets import DEFAULT_PRESET, PRESETS
from memgraph_agents.retrieval.dense import dense
from memgraph_agents.retrieval.dwpr_retriever import dwpr
from memgraph_agents.retrieval.fusion_retriever import fusion
from memgraph_agents.retrieval.lexical import bm25, hybrid
from memgraph_agents.retrieval.ppr_retriever import ppr
from memgraph_agents.retrieval.sentence_hop_retriever import sentence_hop

Retriever = Callable[..., list[Evidence]]

RETRIEVERS: dict[str, Retriever] = {
    "dense": dense, "bm25": bm25, "hybrid": hybrid, "ppr": ppr, "sentence_hop": sentence_hop, "dwpr": dwpr,
    "fusion": fusion, "navigator": navigator,
}
DEFAULT_RETRIEVER = "ppr"


def get_retriever(name: str) -> Retriever:
    """The retriever called ``name``; ``ValueError`` listing the registered names otherwise."""
    if name in RETRIEVERS:
        return RETRIEVERS[name]
    preset = PRESETS.get(name)
    if preset is not None and name != DEFAULT_PRESET:
        return functools.partial(RETRIEVERS[preset.retriever], **preset.retriever_params)
    raise ValueError(f"unknown retriever {name!r}: choose from {', '.join(RETRIEVERS)} "
                     f"or a preset ({', '.join(p for p in PRESETS if p != DEFAULT_PRESET)})")


def retriever_names() -> list[str]:
    """Every name ``get_retriever`` accepts: retrievers, then presets."""
    return [*RETRIEVERS, *(p for p in PRESETS if p != DEFAULT_PRESET and p not in RETRIEVERS)]


def accepts(fn: Retriever, param: str) -> bool:
    """Whether retriever ``fn`` declares ``param`` by name (``**params`` does not count: the
    navigator forwards those into a context that rejects unknown fields)."""
    p = inspect.signature(fn).parameters.get(param)
    return p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)


def retrieve(name: str, query: str, store, *, k: int = 10, llm=None, usage=None, llm_timeout: float | None = None,
             **params) -> list[Evidence]:
    """Run retriever ``name`` on ``store`` (``ValueError`` for an empty question or an unknown name).

    ``llm`` (a chat model), ``usage`` (an ``LLMUsage``) and ``llm_timeout`` reach only the
    retrievers that declare them (e.g. ``ppr``'s optional LLM steps); the others run as without.
    """
    if not query or not query.strip():
        raise ValueError("the question is empty")
    fn = get_retriever(name)
    if llm is not None:
        extra = {"llm": llm, "usage": usage, "llm_timeout": llm_timeout}
        params.update({p: v for p, v in extra.items() if v is not None and accepts(fn, p)})
    return fn(query, store, k=k, **params)
