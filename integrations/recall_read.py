"""How an agent's ``recall`` reads: wait (with a bound) for the writes still queued for the
namespaces it reads, then search them through the engine (``api.ops.retrieval``), one
namespace as it is, several ranked in one list (``api.scopes.merge_namespaces``: reciprocal
rank fusion, each item naming its namespace)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from memgraph_agents.api import ops
from memgraph_agents.api.request import search_request
from memgraph_agents.api.scopes import merge_namespaces
from memgraph_agents.config import Settings
from memgraph_agents.integrations.recall_result import RecallResult
from memgraph_agents.integrations.writer import BackgroundWriter
from memgraph_agents.model.outcome import one_reason
from memgraph_agents.retrieval.protocols import Retriever


def wait_for_writes(writer: BackgroundWriter, scopes: list[str], read_wait: float) -> tuple[int, float]:
    """Wait (at most ``read_wait`` seconds in all) for writes queued for ``scopes``; the
    writes still queued after that, and the seconds waited."""
    t0 = time.monotonic()
    for ns in scopes:
        writer.wait(ns, max(0.0, read_wait - (time.monotonic() - t0)))
    return sum(writer.pending(ns) for ns in scopes), time.monotonic() - t0


async def read_scopes(
    query: str,
    scopes: list[str],
    settings: Settings,
    retriever: str | Retriever,
    k: int,
    min_score: float | None = None,
    config: Mapping[str, Any] | None = None,
) -> RecallResult:
    """Evidence for ``query`` from ``scopes`` (the first is the run's own namespace), cut at
    the relevance floor ``min_score`` (``None``: the relevance gate, as ``ops.retrieval``);
    ``config`` (the tool's run config) reaches the navigator graph: its callbacks see the nodes."""
    req = search_request(
        query=query, namespaces=tuple(scopes), k=k, retriever=retriever, min_score=min_score, config=config
    )
    found = await asyncio.gather(*(ops.retrieval(settings, req.at(ns)) for ns in scopes))
    if len(scopes) == 1:
        [one] = found
        nav = one.navigation
        answer = nav.answer if nav is not None else None
        return RecallResult(
            scopes[0],
            one.retriever,
            query,
            one.evidence,
            answer,
            nav,
            empty=one.empty,
            min_score=one.min_score,
            best_relevance=one.best_relevance,
            reason=one.reason,
            why=one.why(scopes[0]),
        )
    evidence = merge_namespaces([(ns, f.evidence) for ns, f in zip(scopes, found, strict=True)], k)
    empty = "; ".join(f.empty for f in found) if all(f.empty for f in found) else ""
    best = max((f.best_relevance for f in found if f.best_relevance is not None), default=None)
    return RecallResult(
        scopes[0],
        found[0].retriever,
        query,
        evidence,
        empty=empty,
        scopes=scopes,
        min_score=found[0].min_score,
        best_relevance=best,
        reason=None if evidence else one_reason([f.reason for f in found]),
        why="" if evidence else "; ".join(f"{ns}: {f.why(ns)}" for ns, f in zip(scopes, found, strict=True)),
    )
