"""Deterministic rankings: best score first, ties broken by a key (a node id), never by order.

Scores computed on two machines, through two vector backends (embedded Chroma, a Chroma
server) or by BLAS kernels on rows at different positions can differ in the last bits, and
the index order of nodes follows insertion history. So "equal" means within ``TIE_EPS``, and
a run of such near-equal scores is ordered by the tiebreak key (``ranks_of(ids)``: the rank
of each id in sorted order), the same everywhere.

Where a threshold or an exact tie decides (similarity edges), the scores are recomputed per
pair by ``exact_dots``: BLAS screens candidates with a margin wider than its rounding
(``screen_margin``), and the decision is taken on values that depend only on the two vectors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

TIE_EPS = 1e-6  # cosine / score differences below this are ties (float32 noise is ~1e-7)
_SAMPLE_COLUMNS = 1024  # ``top_k_named_rows``: how many columns bound each row's k-th best


def screen_margin(dim: int) -> float:
    """How far a float32 BLAS dot product of two unit vectors of ``dim`` components may lie
    from the exact value, doubled: ``2·dim·u`` with ``u = 2^-24`` (the classic bound
    ``|fl(a·b) - a·b| <= dim·u·|a|·|b|``, Higham, *Accuracy and Stability of Numerical
    Algorithms*, 2002, §3.1). Doubled because a k-th best is itself off by up to ``dim·u``:
    every pair whose exact score clears a cut has a BLAS score above ``cut - screen_margin``."""
    return 2.0 * max(int(dim), 1) * 2.0**-24


def exact_dots(
    a: np.ndarray, b: np.ndarray, rows: Sequence[int] | np.ndarray, cols: Sequence[int] | np.ndarray
) -> np.ndarray:
    """``a[rows[p]] · b[cols[p]]`` for every pair ``p``, in float64, without BLAS.

    A BLAS kernel rounds a dot product differently depending on where the row sits in the
    matrix (which micro-kernel tile, which thread) and on the kernel chosen for the CPU, so
    two identical vectors get scores a few ulps apart, and "ties by id" silently becomes
    "ties by row position and CPU". Here each pair is an elementwise product (exact: float32
    products fit in float64) summed by numpy's pairwise sum over that row alone, so the value
    depends only on the two vectors: identical vectors tie exactly, on every machine."""
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    if not len(rows):
        return np.zeros(0, dtype=np.float64)
    return (np.asarray(a)[rows].astype(np.float64) * np.asarray(b)[cols].astype(np.float64)).sum(axis=1)


def ranks_of(ids: Sequence[str] | np.ndarray) -> np.ndarray:
    """Each id's rank in sorted order: a tiebreak key that does not depend on list order."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(np.asarray(ids, dtype=object), kind="stable")
    out = np.empty(len(ids), dtype=np.int64)
    out[order] = np.arange(len(ids))
    return out


def ranks_by(*keys: Sequence[float] | np.ndarray) -> np.ndarray:
    """Each position's rank in the lexicographic order of ``keys`` (the first key decides,
    the next breaks its ties, ...; the position last): a composite tiebreak for
    ``order_best_first``."""
    n = len(keys[0]) if keys else 0
    out = np.empty(n, dtype=np.int64)
    out[np.lexsort((np.arange(n), *reversed([np.asarray(k) for k in keys])))] = np.arange(n)
    return out


def _clean(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    s = np.array(scores, dtype=np.float64, copy=True).ravel()
    s[np.isnan(s)] = -np.inf
    return s


def order_best_first(
    scores: Sequence[float] | np.ndarray, tiebreak: np.ndarray | None = None, eps: float = TIE_EPS
) -> np.ndarray:
    """Every position, best score first; near-ties (within ``eps`` of the previous) by ``tiebreak``
    (ascending; default: the position). NaN counts as ``-inf``."""
    s = _clean(scores)
    o = np.argsort(-s, kind="stable")
    if len(o) < 2:
        return o
    ss = s[o]
    with np.errstate(invalid="ignore"):
        gap = np.where(ss[:-1] == ss[1:], 0.0, ss[:-1] - ss[1:])
    run = np.cumsum(np.concatenate([[True], ~(gap <= eps)]))
    tb = np.arange(len(s)) if tiebreak is None else np.asarray(tiebreak)
    return o[np.lexsort((tb[o], run))]


def top_k(
    scores: Sequence[float] | np.ndarray,
    k: int,
    tiebreak: np.ndarray | None = None,
    mask: np.ndarray | None = None,
    eps: float = TIE_EPS,
) -> np.ndarray:
    """Positions of the ``k`` best finite scores (within ``mask``), best first, near-ties by
    ``tiebreak``. O(n) selection, then a sort of the winners and of the near-ties at the cut."""
    s = _clean(scores)
    if mask is not None:
        s[~np.asarray(mask, dtype=bool)] = -np.inf
    k = min(int(k), int(np.isfinite(s).sum()))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    kth = -np.partition(-s, k - 1)[k - 1]
    cand = np.flatnonzero(s >= kth - eps)  # every near-tie at the cut competes by tiebreak
    tb = cand if tiebreak is None else np.asarray(tiebreak)[cand]
    return cand[order_best_first(s[cand], tb, eps)][:k]


def top_k_named(
    scores: Sequence[float] | np.ndarray,
    k: int,
    names: Callable[[np.ndarray], Sequence[str]],
    eps: float = TIE_EPS,
) -> np.ndarray:
    """``top_k(scores, k, tiebreak=ranks_of(every id))`` without ranking every id: ``names``
    gives the ids of the positions it is asked for, and only the candidates at the cut (the
    k best and their near-ties) are ranked, among themselves. The same positions in the same
    order: a stable rank restricted to ascending positions keeps their relative order."""
    s = _clean(scores)
    k = min(int(k), int(np.isfinite(s).sum()))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    kth = -np.partition(-s, k - 1)[k - 1]
    cand = np.flatnonzero(s >= kth - eps)
    return cand[order_best_first(s[cand], ranks_of(names(cand)), eps)][:k]


def top_k_named_rows(
    scores: np.ndarray,
    k: int,
    names: Callable[[np.ndarray], Sequence[str]],
    eps: float = TIE_EPS,
) -> list[np.ndarray]:
    """``[top_k_named(row, k, names, eps) for row in scores]`` with the O(columns) work (NaN
    cleaning, the k-th best, the candidates at the cut) done once for the whole matrix, not
    row by row in Python: a session's new sentences against every stored one."""
    s = np.asarray(scores)
    if s.ndim != 2 or k <= 0 or not s.size:
        return [top_k_named(row, k, names, eps) for row in s]
    if np.isnan(s).any():
        s = np.where(np.isnan(s), -np.inf, s)
    finite = np.isfinite(s).sum(axis=1)
    if int(finite.min()) < k:  # a row with fewer than k finite scores: the per-row rule
        return [top_k_named(row, k, names, eps) for row in s]
    # A lower bound of each row's k-th best: the k-th best of its last few columns. Only the
    # scores within ``eps`` of it can be the k best or near-ties at the cut, so one comparison
    # over the matrix replaces a partition of every row; the exact cut is taken among those.
    m = min(s.shape[1], max(_SAMPLE_COLUMNS, k))
    low = np.partition(s[:, -m:], m - k, axis=1)[:, m - k].astype(np.float64)
    # Compared in float64 as ``top_k_named`` does (float32 scores widen exactly).
    rr, cc = np.nonzero(s >= (low - eps)[:, None])
    bounds = np.searchsorted(rr, np.arange(len(s) + 1))
    out = []
    for r in range(len(s)):
        cols = cc[bounds[r] : bounds[r + 1]]
        vals = s[r, cols].astype(np.float64)
        kth = np.partition(vals, len(vals) - k)[len(vals) - k]  # the row's k-th best
        keep = vals >= kth - eps
        cand = cols[keep]
        out.append(cand[order_best_first(vals[keep], ranks_of(names(cand)), eps)][:k])
    return out


def sort_pairs(items: Sequence[tuple[str, float]], eps: float = TIE_EPS) -> list[tuple[str, float]]:
    """``(id, score)`` pairs best first, near-ties by id (e.g. a vector store's hits)."""
    if not items:
        return []
    ids = [i for i, _ in items]
    order = order_best_first([s for _, s in items], ranks_of(ids), eps)
    return [items[int(j)] for j in order]


__all__ = [
    "TIE_EPS",
    "exact_dots",
    "order_best_first",
    "ranks_by",
    "screen_margin",
    "ranks_of",
    "sort_pairs",
    "top_k",
    "top_k_named",
    "top_k_named_rows",
]
