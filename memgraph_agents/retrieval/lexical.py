"""``bm25`` and ``hybrid`` (dense + BM25, reciprocal-rank fusion) over turns."""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
from memgraph_agents.retrieval.algorithms.lexical import BM25Index
from memgraph_agents.retrieval.evidence import to_evidence


def turn_bm25(snap) -> tuple[np.ndarray, BM25Index]:
    """The BM25 index over the snapshot's turn texts (built once per snapshot)."""

    def build():
        idx = snap.indices_of(NodeKind.TURN)
        return idx, BM25Index([snap.text[i] for i in idx])

    return snap.derived(("bm25", "turn"), build)


def bm25_ranking(query: str, snap, k: int) -> list[tuple[int, float]]:
    """``[(node index, score)]`` of the top-k turns by BM25."""
    idx, index = turn_bm25(snap)
    return [(int(idx[r]), s) for r, s in index.search(query, k)]


def dense_ranking(query: str, store, k: int, kinds=("turn",)) -> list[tuple[int, float]]:
    snap = store.snapshot()
    return [(snap.index[n], s) for n, s in store.search(store.embedder.embed_one(query), k, list(kinds))]


def bm25(query: str, store, *, k: int = 10) -> list[Evidence]:
    snap = store.snapshot()
    return [to_evidence(snap, i, s, retriever="bm25") for i, s in bm25_ranking(query, snap, k)]


def hybrid(query: str, store, *, k: int = 10, pool: int = 50, rrf_k: int = 60) -> list[Evidence]:
    """Dense + BM25 over turns fused by reciprocal rank (Cormack et al. 2009, k = 60)."""
    snap = store.snapshot()
    fused = reciprocal_rank_fusion([[i for i, _ in dense_ranking(query, store, pool)],
                                    [i for i, _ in bm25_ranking(query, snap, pool)]], k=rrf_k)
    return [to_evidence(snap, i, s, retriever="hybrid") for i, s in fused[:k]]
