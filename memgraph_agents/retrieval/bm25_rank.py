"""BM25 over a snapshot's turn texts (``retrieval.lexical``'s ``bm25``; also a seed ranking).

Okapi BM25, Lucene variant, k1 = 1.5, b = 0.75 (``algorithms.lexical``). Its own module so that
the seed rankings (``retrieval.seeds``) need not import the retrievers of ``retrieval.lexical``.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.lexical import BM25Index


def turn_bm25(snap) -> tuple[np.ndarray, BM25Index]:
    """The BM25 index over the snapshot's turn texts (built once per snapshot)."""

    def build():
        idx = snap.indices_of(NodeKind.TURN)
        return idx, BM25Index([snap.text[i] for i in idx])

    return snap.derived(("bm25", "turn"), build)


def bm25_ranking(query: str, snap, k: int) -> list[tuple[int, float]]:
    """``[(node index, score)]`` of the top-k turns by BM25 (only turns sharing a query term)."""
    idx, index = turn_bm25(snap)
    return [(int(idx[r]), s) for r, s in index.search(query, k, tiebreak=snap.id_rank[idx])]
