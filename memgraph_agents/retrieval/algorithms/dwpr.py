"""Dynamic Weighted PageRank (DW-PR), MemORAI (Pham Van et al.), §3.3.

MemORAI ranks the nodes of a *query-focused subgraph* (top-k seed nodes and relation edges
plus their one-hop neighbourhood, §3.3.1) with PageRank whose edge weights depend on the
query (§3.3.2, eq. 1)::

    w(e → τ)  = sim(q, e.desc)                       entity/argument → turn
    w(u →r v) = sim(q, r.desc)                       relation edge
    w(τ → s)  = (1/|τ|) Σ_{e ∈ τ} sim(q, e.desc)     turn → session/segment: mean over the
                                                     turn's entities

and iterates (eq. 2–3)::

    PR(v) ← (1 − d)·seed(v) + d · Σ_{u → v} [w(u → v) / Σ_{u → *} w(u → *)] · PR(u)

with ``seed(v) = sim(q, v)`` for every subgraph node. This is personalized PageRank on the
weighted digraph, so ``dwpr`` reuses ``ppr.ppr_prepared``. Choices the paper leaves open:

* ``d`` is not stated in the paper; 0.85 is the classic PageRank value.
* Cosine similarities can be negative; weights and seeds are clipped at 0 (an edge of weight
  0 carries nothing; a node left without out-weight is dangling).
* Dangling mass returns to the seed and scores are normalised to sum 1. The literal
  recursion converges to a multiple of the same vector, so the ranking is identical.
* Entity–turn and turn–session edges are bidirectional in MemORAI (e ↔ τ, τ ↔ s); by default
  (``mirror=True``) the reverse edge gets the same weight. Relation edges stay as given.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
import scipy.sparse as sp

from memgraph_agents.retrieval.algorithms.ppr import ppr_prepared, prepare_transition

__all__ = ["EdgeCode", "dwpr", "query_edge_weights", "query_focused_subgraph"]


class EdgeCode(IntEnum):
    """Edge kind codes for ``query_edge_weights``."""

    ARG_TURN = 0  # argument/entity → turn: weight = node_sim[src]
    RELATION = 1  # relation edge: weight = edge_sim[i] (similarity to the relation description)
    TURN_SESSION = 2  # turn → session/segment: mean node_sim of the turn's arguments
    OTHER = 3  # any other edge: weight = edge_sim[i], as the caller supplies it


def query_edge_weights(
    src: np.ndarray,
    dst: np.ndarray,
    kind: np.ndarray,
    node_sim: np.ndarray,
    edge_sim: np.ndarray | None = None,
    *,
    n_nodes: int | None = None,
    mirror: bool = True,
) -> sp.csr_matrix:
    """Query-conditioned weights ``w[u, v]`` of MemORAI eq. (1) as a CSR matrix.

    ``src``, ``dst``, ``kind`` (``EdgeCode`` values) list the edges; ``node_sim[i]`` is
    sim(q, description or text of node i); ``edge_sim[j]`` is sim(q, description of edge j)
    (needed for RELATION and OTHER edges). A turn's arguments are the sources of the
    ARG_TURN edges into it; a turn with none uses its own ``node_sim`` for its session edge.
    ``mirror`` adds v → u with the same weight for ARG_TURN and TURN_SESSION edges. Repeated
    (u, v) pairs keep the largest weight; weights are clipped at 0 and zeros dropped.
    """
    src = np.asarray(src, dtype=np.int64).ravel()
    dst = np.asarray(dst, dtype=np.int64).ravel()
    kind = np.asarray(kind, dtype=np.int64).ravel()
    node_sim = np.asarray(node_sim, dtype=np.float64).ravel()
    n = int(n_nodes) if n_nodes is not None else node_sim.shape[0]
    if not (src.shape == dst.shape == kind.shape):
        raise ValueError("src, dst and kind must have the same length")
    if node_sim.shape[0] != n:
        raise ValueError(f"node_sim has {node_sim.shape[0]} entries for {n} nodes")
    if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n):
        raise ValueError("edge endpoint out of range")
    if not np.isin(kind, [int(c) for c in EdgeCode]).all():
        raise ValueError("unknown edge kind code")
    needs_edge_sim = np.isin(kind, [EdgeCode.RELATION, EdgeCode.OTHER])
    if needs_edge_sim.any():
        if edge_sim is None:
            raise ValueError("edge_sim is required for RELATION and OTHER edges")
        edge_sim = np.asarray(edge_sim, dtype=np.float64).ravel()
        if edge_sim.shape != src.shape:
            raise ValueError("edge_sim must have one entry per edge")

    w = np.zeros(src.shape[0])
    if needs_edge_sim.any():
        assert edge_sim is not None  # checked above
        w[needs_edge_sim] = edge_sim[needs_edge_sim]
    arg = kind == EdgeCode.ARG_TURN
    w[arg] = node_sim[src[arg]]

    # Mean argument similarity per turn, each (argument, turn) pair counted once.
    pairs = np.unique(np.stack([src[arg], dst[arg]], axis=1), axis=0).reshape(-1, 2)
    total = np.bincount(pairs[:, 1], weights=node_sim[pairs[:, 0]], minlength=n)
    count = np.bincount(pairs[:, 1], minlength=n)
    turn_score = np.where(count > 0, total / np.maximum(count, 1), node_sim)
    ts = kind == EdgeCode.TURN_SESSION
    w[ts] = turn_score[src[ts]]

    if mirror:
        back = arg | ts
        src, dst, w = (np.concatenate([src, dst[back]]), np.concatenate([dst, src[back]]), np.concatenate([w, w[back]]))
    w = np.clip(w, 0.0, None)
    keep = w > 0
    src, dst, w = src[keep], dst[keep], w[keep]
    if src.size:
        # Duplicate (u, v): keep the maximum rather than summing, so listing an edge twice
        # (or mirroring an edge the caller already gave both ways) does not double it.
        order = np.lexsort((-w, dst, src))
        src, dst, w = src[order], dst[order], w[order]
        first = np.ones(src.size, dtype=bool)
        first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        src, dst, w = src[first], dst[first], w[first]
    return sp.csr_matrix((w, (src, dst)), shape=(n, n))


def query_focused_subgraph(adj: sp.spmatrix | sp.sparray, seed_nodes: np.ndarray, hops: int = 1) -> np.ndarray:
    """Sorted indices of ``seed_nodes`` plus every node within ``hops`` edges of them.

    Edges are followed in both directions (MemORAI §3.3.1 includes all directly connected
    turns, entities and segments). Use ``adj[nodes][:, nodes]`` for the induced subgraph.
    """
    a = sp.csr_matrix(adj)
    n = a.shape[0]
    seeds = np.unique(np.asarray(seed_nodes, dtype=np.int64).ravel())
    if seeds.size and (seeds[0] < 0 or seeds[-1] >= n):
        raise ValueError("seed node out of range")
    both = sp.csr_matrix(a + a.T) if hops > 0 else a
    inside = np.zeros(n, dtype=bool)
    inside[seeds] = True
    frontier = seeds
    for _ in range(max(0, hops)):
        if frontier.size == 0:
            break
        reached = both[frontier].indices
        new = np.unique(reached[~inside[reached]])
        inside[new] = True
        frontier = new
    return np.flatnonzero(inside)


def dwpr(
    weights: sp.spmatrix | sp.sparray,
    seed: np.ndarray,
    *,
    damping: float = 0.85,
    tol: float = 1e-8,
    max_iter: int = 100,
) -> np.ndarray:
    """DW-PR scores (float64, sum 1) on the directed weighted graph ``weights[u, v]`` = w(u → v).

    ``seed`` is sim(q, v) per node, clipped at 0 and normalised (uniform if nothing is
    positive). Out-weights are normalised per source node as in MemORAI eq. (3).
    """
    s = np.clip(np.nan_to_num(np.asarray(seed, dtype=np.float64).ravel()), 0.0, None)
    w = sp.csr_matrix(weights, dtype=np.float64)
    if w.nnz and w.data.min() < 0:
        w.data = np.clip(w.data, 0.0, None)
    prepared = prepare_transition(w, dtype=np.float64, threads=1)
    return ppr_prepared(prepared, s, damping=damping, tol=tol, max_iter=max_iter)
