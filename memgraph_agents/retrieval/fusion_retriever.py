"""``fusion``: reciprocal rank fusion of the ``ppr`` and ``dwpr`` turn rankings.

Both graph retrievers fuse dense + BM25 turn seeds but spread them over different graphs
(the event graph's PPR, DW-PR's query-weighted subgraph), and fused they beat either alone.
This is also the navigator's seed ranking (``NavigatorContext.seed_retriever``): registered
on its own so the benchmark can show what the navigator's search adds to its start::

    RRF(t) = Σ_r 1 / (60 + rank_r(t))     over the ``pool`` best turns of each retriever

Both retrievers embed through the embedder's query LRU, so the question and its mentions are
embedded once (``seeds.query_texts``, one model call) and reused by the second retriever.
"""

from __future__ import annotations

from collections.abc import Callable

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
from memgraph_agents.retrieval.dwpr_retriever import DWPROptions, dwpr
from memgraph_agents.retrieval.evidence import turn_evidence
from memgraph_agents.retrieval.ppr_retriever import PPROptions, ppr
from memgraph_agents.retrieval.protocols import RetrieverOptions
from memgraph_agents.retrieval.seeds import query_texts, query_vectors

RRF_K = 60  # the paper's constant: both inputs are already sharp rankings
# each part with its own options
PARTS: dict[str, tuple[Callable[..., list[Evidence]], type[RetrieverOptions]]] = {
    "ppr": (ppr, PPROptions),
    "dwpr": (dwpr, DWPROptions),
}
DEFAULT_PARTS = ("ppr", "dwpr")


class FusionOptions(RetrieverOptions):
    pool: int = 50  # turns taken from each part's ranking (at least k)
    parts: tuple[str, ...] = DEFAULT_PARTS
    other_speaker: float | None = None  # the parts' speaker prior (None: each part's default)


def turn_ranking(evidence: list[Evidence]) -> list[str]:
    """Turn ids in rank order (an item's provenance turns in order; first occurrence wins)."""
    return list(dict.fromkeys(t for ev in evidence for t in ev.turn_ids))


def fused_turns(
    query: str,
    store,
    *,
    parts: tuple[str, ...] = DEFAULT_PARTS,
    pool: int = 50,
    other_speaker: float | None = None,
) -> list[tuple[str, float]]:
    """``[(turn id, RRF score)]`` best first over the ``pool`` best turns of each part."""
    unknown = [p for p in parts if p not in PARTS]
    if unknown or not parts:
        raise ValueError(f"fusion parts {', '.join(unknown) or '(none)'}: choose from {', '.join(PARTS)}")
    snap = store.snapshot()
    if len(snap.ids):
        query_vectors(store.embedder, query_texts(query, snap))  # one model call for every part
    shared = {} if other_speaker is None else {"other_speaker": other_speaker}
    lists = []
    for p in parts:
        fn, options = PARTS[p]
        lists.append(turn_ranking(fn(query, store, k=pool, options=options(**shared))))
    return reciprocal_rank_fusion(lists, k=RRF_K)[:pool]


def fusion(query: str, store, *, k: int = 10, options: FusionOptions | None = None) -> list[Evidence]:
    """The top-k turns of the RRF of ``options.parts`` (``ppr`` and ``dwpr``)."""
    if k <= 0:
        return []
    o = options or FusionOptions()
    snap = store.snapshot()
    out = []
    for t, s in fused_turns(query, store, parts=o.parts, pool=max(o.pool, k), other_speaker=o.other_speaker):
        ev = turn_evidence(snap, t, s, retriever="fusion")
        if ev is not None:
            out.append(ev)
        if len(out) >= k:
            break
    return out
