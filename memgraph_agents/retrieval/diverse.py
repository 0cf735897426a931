"""Near-duplicate suppression for the navigator's turn ranking (maximal marginal relevance).

A conversation says one thing over several turns ("I went camping" / "How was it?" / "Great,
the kids loved the campfire"): the seed ranking scores each turn on its own, so one episode
can fill the top of the ranking with its paraphrases while the evidence a question needs from
another session waits below. Greedy MMR (Carbonell & Goldstein, 1998) picks turns in order of

    score(t) − λ · max(0, max_{s picked} cos(t, s))

so a turn that repeats one already picked yields its place to the next best different one.
Measured on the LoCoMo development split (turn R@10, offline): λ = 0.1 on top of the
kept-neighbour re-scoring (``retrieval.rank``) gains in every category; larger λ starts to
push out a single-hop question's second gold turn (docs/benchmarks-history.md, "The navigator against its seed").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from memgraph_agents.model.ranking import exact_dots


def mmr_order(
    scores: list[float],
    vectors: np.ndarray,
    lam: float,
    picks: int,
    to_reference: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[list[int], list[float]]:
    """``(order, values)``: positions ``0..len(scores)-1`` reordered, the first ``picks`` greedily
    by MMR, the rest by their marginal value once those are picked; ``values`` are the marginal
    values in that order (non-increasing: a pick's value is the best left, and picking only lowers
    the others'), usable as the ranking's scores.

    ``scores`` are in ranking order and ``vectors`` are their unit vectors (one row each). Ties
    keep the input order, which the caller makes deterministic (score, seed rank, node id), so
    the result is deterministic too. ``lam <= 0`` returns the input order and scores.
    ``to_reference``: the model's cosines into the reference scale λ was measured in
    (``embeddings.calibration``; None: as they are).
    """
    n = len(scores)
    base = np.asarray(scores, dtype=np.float64)
    if lam <= 0 or n < 2 or picks <= 0:
        return list(range(n)), [float(x) for x in base]
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim != 2 or v.shape[0] != n:
        raise ValueError(f"mmr_order: {n} scores but vectors of shape {v.shape}")
    nearest = np.zeros(n)  # max(0, cosine) to the turns picked so far
    left = np.ones(n, dtype=bool)
    out: list[int] = []
    vals: list[float] = []
    for _ in range(min(picks, n)):
        value = np.where(left, base - lam * nearest, -np.inf)
        j = int(np.argmax(value))  # argmax returns the first maximum: ties keep input order
        out.append(j)
        vals.append(float(value[j]))
        left[j] = False
        # Exact cosines, not ``v @ v[j]``: BLAS rounds a row by its position, so two copies of
        # one turn would differ by an ulp and argmax would pick by position, not input order.
        cos = exact_dots(v, v, np.arange(n), np.full(n, j))
        nearest = np.maximum(nearest, cos if to_reference is None else to_reference(cos))
    rest = sorted(np.flatnonzero(left).tolist(), key=lambda i: (-(base[i] - lam * nearest[i]), i))
    return out + rest, vals + [float(base[i] - lam * nearest[i]) for i in rest]
