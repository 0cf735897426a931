"""Rank fusion for hybrid retrieval (dense + BM25, or several retrievers).

Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009)::

    RRF(d) = Σ_i w_i / (k + rank_i(d))

with 1-based ranks and k = 60 as in the paper; a list that does not contain ``d`` adds
nothing. Min–max normalisation is the usual alternative when scores, not ranks, are fused.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar, overload

import numpy as np

__all__ = ["minmax", "reciprocal_rank_fusion"]

K = TypeVar("K", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]],
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[tuple[K, float]]:
    """Fuse ranked id lists into ``[(id, score)]``, best first.

    An id repeated within one list counts at its first (best) rank only. Ties in fused score
    go to the id with the better best rank, then to the id seen first (list order, then rank),
    so the output is deterministic.
    """
    if k < 0:
        raise ValueError("k must be non-negative")
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    score: dict[K, float] = {}
    best: dict[K, int] = {}
    for ranking, w in zip(rankings, weights):
        seen: set[K] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            score[item] = score.get(item, 0.0) + float(w) / (k + rank)
            best[item] = min(best.get(item, rank), rank)
    first = {item: i for i, item in enumerate(score)}  # insertion order = first appearance
    return sorted(score.items(), key=lambda kv: (-kv[1], best[kv[0]], first[kv[0]]))


@overload
def minmax(scores: Mapping[K, float]) -> dict[K, float]: ...
@overload
def minmax(scores: Sequence[float] | np.ndarray) -> np.ndarray: ...


def minmax(scores):
    """Rescale scores to [0, 1] by (x − min) / (max − min).

    Accepts a sequence/array (returns a float array) or a mapping (returns a dict with the
    same keys). All-equal scores map to 1.0 (every item is the best of its list); NaN stays
    NaN and is ignored for min and max; empty input gives empty output.
    """
    if isinstance(scores, Mapping):
        keys = list(scores)
        values = minmax(np.array([scores[key] for key in keys], dtype=np.float64))
        return {key: float(v) for key, v in zip(keys, values)}
    x = np.asarray(scores, dtype=np.float64)
    if x.size == 0 or np.isnan(x).all():
        return x.copy()
    lo, hi = np.nanmin(x), np.nanmax(x)
    if hi == lo:
        return np.where(np.isnan(x), np.nan, 1.0)
    return (x - lo) / (hi - lo)
