"""Sentence-graph hops, SGMem (Wu et al., "SGMem: Sentence Graph Memory for Long-Term
Conversational Agents"), §3.4 "Rank Chunks with SGMem".

1. Score sentences by ``sim(q, c) = cos(e_q, e_c) + ε`` with ε = 1 (range [0, 2]); keep at
   most ``n`` sentences whose score clears the threshold γ: ``C_q``.
2. Expand ``h`` hops on the sentence kNN graph: ``C* = C_q ∪ N_h(C_q)``.
3. Map every gathered sentence to its parent chunk (turn, round or session) and score a chunk
   by the mean similarity of its gathered sentences,
   ``score(k) = (1/|C_k|) Σ_{c ∈ C_k} sim(q, c)``; rank chunks.

SGMem's LoCoMo setting is n = 15, γ = 1.2, h = 1 (kNN k = 1, top K = 5 chunks); the defaults
follow it. Choices made here:

* If no sentence clears γ, the single best sentence is kept anyway, so a query always
  returns something (SGMem would return no chunk; its other memory types fill the context).
* The kNN relation is asymmetric; hops follow edges in both directions.
* Reported chunk scores are mean *cosine* (the +ε shift is dropped; ranking is unchanged).
* Ties in chunk score go to the chunk with the better best sentence, then the lower
  ``chunk_rank`` key (default: the index); near-equal sentence scores go by ``tiebreak``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from memgraph_agents.model.ranking import order_best_first, ranks_by

__all__ = ["sentence_hop"]


def sentence_hop(
    sent_sims: np.ndarray,
    knn: sp.spmatrix | sp.sparray,
    sent_to_chunk: np.ndarray,
    *,
    top_n: int = 15,
    gamma: float = 1.2,
    hops: int = 1,
    tiebreak: np.ndarray | None = None,
    chunk_rank: np.ndarray | None = None,
) -> list[tuple[int, float, list[int]]]:
    """Rank chunks for one query.

    ``sent_sims[i]`` is the cosine of sentence i to the query, ``knn`` the sentence kNN
    adjacency (n×n), ``sent_to_chunk[i]`` the chunk index of sentence i (negative: no chunk,
    the sentence is skipped when mapping). Returns ``(chunk, score, sentences)`` best first,
    ``sentences`` being the chunk's gathered sentences by descending similarity.
    """
    sims = np.asarray(sent_sims, dtype=np.float64).ravel()
    chunks = np.asarray(sent_to_chunk, dtype=np.int64).ravel()
    n = sims.shape[0]
    if chunks.shape[0] != n:
        raise ValueError(f"sent_to_chunk has {chunks.shape[0]} entries for {n} sentences")
    graph = sp.csr_matrix(knn)
    if graph.shape != (n, n):
        raise ValueError(f"knn must be {n}x{n}, got {graph.shape}")
    if n == 0 or top_n <= 0:
        return []
    sims = np.nan_to_num(sims, nan=-1.0)

    # Step 1: top-n sentences whose shifted score sim + 1 clears gamma (near-ties by tiebreak).
    order = order_best_first(sims, tiebreak)
    passing = order[sims[order] + 1.0 >= gamma][:top_n]
    selected = passing if passing.size else order[:1]

    # Step 2: h hops on the kNN graph, both edge directions.
    both = sp.csr_matrix(graph + graph.T) if hops > 0 else graph
    gathered = np.zeros(n, dtype=bool)
    gathered[selected] = True
    frontier = selected
    for _ in range(max(0, hops)):
        reached = both[frontier].indices
        frontier = np.unique(reached[~gathered[reached]])
        if frontier.size == 0:
            break
        gathered[frontier] = True

    # Step 3: group by chunk; mean similarity, best sentence for ties.
    members = np.flatnonzero(gathered & (chunks >= 0))
    by_chunk: dict[int, list[int]] = {}
    for i in members[order_best_first(sims[members], None if tiebreak is None else np.asarray(tiebreak)[members])]:
        by_chunk.setdefault(int(chunks[i]), []).append(int(i))
    ranked = [(chunk, float(np.mean(sims[idx])), idx) for chunk, idx in by_chunk.items()]
    if not ranked:
        return ranked
    # Mean first, then the best sentence, then the chunk key; "equal" is within TIE_EPS at
    # both levels, so BLAS noise in the similarities never decides.
    keys = [c if chunk_rank is None else int(chunk_rank[c]) for c, _, _ in ranked]
    by_best = order_best_first([sims[idx[0]] for _, _, idx in ranked], ranks_by(keys))
    second = np.empty(len(ranked), dtype=np.int64)
    second[by_best] = np.arange(len(ranked))
    return [ranked[int(j)] for j in order_best_first([t[1] for t in ranked], second)]
