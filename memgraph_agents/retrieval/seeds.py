"""Query-side signals shared by the graph retrievers: similarities, lexical and mention seeds."""

from __future__ import annotations

import numpy as np

from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
from memgraph_agents.retrieval.lexical import bm25_ranking


def node_similarities(snap, qv: np.ndarray) -> np.ndarray:
    """Cosine of the query to every node (0 for nodes without a vector)."""
    vecs = snap.vectors()
    if vecs.shape[1] != qv.shape[0]:
        return np.zeros(len(snap.ids), dtype=np.float32)
    return vecs @ qv


def turn_seeds(query: str, snap, sims: np.ndarray, pool: int = 50, rrf_k: int = 60) -> dict[int, float]:
    """Dense + BM25 rank fusion over turns: the raw-turn hybrid ranking, as seed mass."""
    turns = snap.indices_of(NodeKind.TURN)
    dense = turns[np.argsort(-sims[turns], kind="stable")[:pool]]
    lexical = [i for i, _ in bm25_ranking(query, snap, pool)]
    return dict(reciprocal_rank_fusion([list(map(int, dense)), lexical], k=rrf_k))


def mention_seeds(query: str, snap, sims_of, ka: int = 10, max_seeds: int = 30, floor: float = 0.8) -> dict[int, float]:
    """Arguments matching the query's mentions (EMem-G: top-Ka per mention, ≤ 30 in all)."""
    args = snap.indices_of(NodeKind.ARGUMENT)
    mentions = extract_arguments(query, [])
    if not len(args) or not mentions:
        return {}
    vecs = snap.vectors()[args]
    out: dict[int, float] = {}
    for m in mentions:
        s = vecs @ sims_of(m.name)
        for r in np.argsort(-s)[:ka]:
            if s[r] < floor:
                break
            out[int(args[r])] = max(out.get(int(args[r]), 0.0), float(s[r]))
    return dict(sorted(out.items(), key=lambda kv: -kv[1])[:max_seeds])
