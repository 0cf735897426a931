"""Similarity edges: argument synonyms (HippoRAG 2 / EMem) and the sentence kNN layer (SGMem).

* Synonym edges join argument nodes whose embeddings have cosine >= 0.9, at most ~100
  neighbours per node (HippoRAG 2's setting). Ingest is incremental: only the *new* arguments
  of a session are compared, to the old ones (``synonym_pairs``) and among themselves
  (``synonym_pairs_within``); recomputing all pairs on every insert is HippoRAG's known
  anti-pattern (ingest cost would grow with everything stored).
* SGMem's sentence graph links each sentence to its k (1-3) most similar sentences
  (``knn_pairs``), as undirected edges.

All similarity matrices are computed in row blocks (about ``_BLOCK_ELEMS`` floats at a time),
so 20k x 20k never exists in memory. BLAS only screens: a pair is a candidate when its float32
score is within ``screen_margin`` of the threshold or the cut, and every decision (threshold,
order, cap, k best) is taken on ``exact_dots``, which depends on the two vectors alone, not on
their rows or the CPU's BLAS kernel. Ties (equal exact scores: identical vectors) break
towards the smaller index (or key).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from memgraph_agents.model.ranking import exact_dots, screen_margin

Pair = tuple[int, int, float]
_BLOCK_ELEMS = 4_000_000  # ~16 MB of float32 per block


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    if v.ndim == 1:
        v = v.reshape(1, -1) if v.size else v.reshape(0, 0)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)


def _blocks(a: np.ndarray, b: np.ndarray, block_rows: int | None) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (row offset, a[block] @ b.T) over row blocks of ``a``."""
    rows = block_rows or max(1, _BLOCK_ELEMS // max(1, len(b)))
    for lo in range(0, len(a), rows):
        yield lo, a[lo : lo + rows] @ b.T


def _top_over(
    a: np.ndarray,
    b: np.ndarray,
    lo: int,
    sims: np.ndarray,
    threshold: float,
    cap: int,
    key: np.ndarray | None = None,
) -> Iterator[tuple[int, int, float]]:
    """Per row ``r`` of the block ``sims = a[lo:lo+len(sims)] @ b.T``: up to ``cap``
    (row, col, exact cosine) with exact cosine >= threshold, best first, ties by col (by
    ``key[col]`` when given)."""
    floor = threshold - screen_margin(a.shape[1])
    for r in range(len(sims)):
        cols = np.flatnonzero(sims[r] >= floor)
        if not len(cols):
            continue
        exact = exact_dots(a, b, np.full(len(cols), lo + r), cols)
        keep = exact >= threshold
        cols, exact = cols[keep], exact[keep]
        order = np.lexsort((cols if key is None else key[cols], -exact))[:cap]
        for c, v in zip(cols[order].tolist(), exact[order].tolist()):
            yield lo + r, c, v


def _precap(cap: int) -> int:
    """Candidates kept per row before the greedy cap: bounds memory when many rows are near
    duplicates, with enough slack that the greedy step rarely runs out of candidates."""
    return max(4 * cap, cap + 32)


def _cap_greedy(cands: list[Pair], cap: int, symmetric: bool, key: np.ndarray | None = None) -> list[Pair]:
    """Keep pairs by descending similarity while both endpoints have fewer than ``cap`` edges.

    ``symmetric``: i and j index the same node set (one degree counter), else two sets.
    ``key``: j's order on ties (default: j).
    """
    jk = (lambda j: j) if key is None else key.__getitem__
    cands.sort(key=lambda p: (-p[2], p[0], jk(p[1])))
    deg_i: Counter[int] = Counter()
    deg_j: Counter[int] = deg_i if symmetric else Counter()
    out: list[Pair] = []
    for i, j, s in cands:
        if deg_i[i] < cap and deg_j[j] < cap:
            out.append((i, j, s))
            deg_i[i] += 1
            deg_j[j] += 1
    return sorted(out, key=lambda p: (p[0], -p[2], jk(p[1])))


def pairs_over(
    a: np.ndarray, b: np.ndarray, threshold: float, cap: int, *, block_rows: int | None = None
) -> list[Pair]:
    """Per row ``i`` of ``a``: up to ``cap`` pairs (i, j, a_i·b_j) with a_i·b_j >= threshold, the
    best first (exact scores; ties -> the lower j), ordered by i. The rows are used as given
    (normalise them first for cosines)."""
    if len(a) == 0 or len(b) == 0 or cap <= 0:
        return []
    return [p for lo, sims in _blocks(a, b, block_rows) for p in _top_over(a, b, lo, sims, threshold, cap)]


def synonym_pairs(
    new_vecs: np.ndarray,
    old_vecs: np.ndarray,
    threshold: float = 0.9,
    max_per_node: int = 100,
    *,
    block_rows: int | None = None,
    old_order: np.ndarray | None = None,
) -> list[Pair]:
    """Pairs (i new, j old, cosine) with cosine >= threshold.

    Each new node and each old node keeps at most ``max_per_node`` of these pairs, chosen
    greedily by decreasing similarity (an old node's earlier edges are not known here, so its
    cap is per call). Sorted by i, then by decreasing similarity. ``old_order``: a distinct
    key per old row that orders ties instead of j (the pairs of ``old_vecs`` sorted by it):
    the caller's rows need not be sorted, i.e. copied, first.
    """
    a, b = _normalise(new_vecs), _normalise(old_vecs)
    if len(a) == 0 or len(b) == 0 or max_per_node <= 0:
        return []
    key = None if old_order is None else np.asarray(old_order)
    cands: list[Pair] = []
    for lo, sims in _blocks(a, b, block_rows):
        cands.extend(_top_over(a, b, lo, sims, threshold, _precap(max_per_node), key))
    return _cap_greedy(cands, max_per_node, symmetric=False, key=key)


def synonym_pairs_within(
    vecs: np.ndarray,
    threshold: float = 0.9,
    max_per_node: int = 100,
    *,
    block_rows: int | None = None,
) -> list[Pair]:
    """Pairs (i, j, cosine) with i < j and cosine >= threshold; at most ``max_per_node`` per node."""
    v = _normalise(vecs)
    if len(v) < 2 or max_per_node <= 0:
        return []
    cands: list[Pair] = []
    cols = np.arange(len(v))
    for lo, sims in _blocks(v, v, block_rows):
        rows = lo + np.arange(len(sims))
        sims[cols[None, :] <= rows[:, None]] = -np.inf  # only j > i (and never i itself)
        cands.extend(_top_over(v, v, lo, sims, threshold, _precap(max_per_node)))
    return _cap_greedy(cands, max_per_node, symmetric=True)


def knn_pairs(vecs: np.ndarray, k: int, *, block_rows: int | None = None) -> list[Pair]:
    """Undirected kNN edges: each row's top-k cosine neighbours (not itself).

    Returned once per unordered pair as (i, j, cosine) with i < j, sorted by (i, j); a pair
    chosen from both ends appears once. A row can end with more than k edges (others chose it).
    """
    v = _normalise(vecs)
    n = len(v)
    k = min(int(k), n - 1)
    if n < 2 or k <= 0:
        return []
    best: dict[tuple[int, int], float] = {}
    for lo, sims in _blocks(v, v, block_rows):
        rows = np.arange(len(sims))
        sims[rows, lo + rows] = -np.inf  # not itself
        kth = np.partition(sims, -k, axis=1)[:, -k]  # k-th largest BLAS similarity per row
        # Every pair whose exact score can reach the row's exact k-th best; ranked exactly.
        rr, cc = np.nonzero(sims >= (kth - screen_margin(v.shape[1]))[:, None])
        vals = exact_dots(v, v, rr + lo, cc)
        order = np.lexsort((cc, -vals, rr))  # per row: best first, ties -> smaller index
        rr, cc, vals = rr[order], cc[order], vals[order]
        rank = np.arange(len(rr)) - np.searchsorted(rr, rr, side="left")
        keep = rank < k
        ii = np.minimum(rr[keep] + lo, cc[keep])
        jj = np.maximum(rr[keep] + lo, cc[keep])
        for i, j, sim in zip(ii.tolist(), jj.tolist(), vals[keep].tolist()):
            best[(i, j)] = sim
    return sorted((i, j, s) for (i, j), s in best.items())
