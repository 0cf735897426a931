"""k-means in numpy: greedy k-means++ seeding, Lloyd iterations, the best of several seeded runs.

Minimises the inertia  J = Σ_i ‖x_i - μ_{c(i)}‖²  (Lloyd, "Least squares quantization in PCM",
1982): alternately assign every row to its nearest centre and move every centre to the mean of
its rows, until no assignment changes. Seeding is greedy k-means++ (Arthur & Vassilvitskii,
"k-means++: The Advantages of Careful Seeding", 2007): the first centre is a uniformly drawn row;
each next one is the best, by the resulting potential Σ_i min_c ‖x_i - c‖², of 2 + ⌊ln k⌋ rows
drawn with probability D(x)² / Σ D² (D: the distance to the nearest centre so far), as
scikit-learn seeds. ``n_init`` runs from one seeded ``numpy`` Generator; the lowest inertia wins
(a run within ``1e-9`` relative of the best so far does not replace it: the first run wins ties).

Deterministic on every machine: a row whose two nearest centres are closer than BLAS can round
(``_TIE_MARGIN``) is re-assigned on distances summed per pair in float64 (they depend only on the
two vectors), and exact ties go to the lower centre; centres are per-cluster numpy sums, not
matrix products. An emptied cluster takes the row farthest from its centre (ties: the first row).
"""

from __future__ import annotations

import math

import numpy as np

MAX_ITER = 300
_TIE_MARGIN = 1e-9  # float64 BLAS error on unit-scale rows of a few hundred dims is ~1e-13
_RELATIVE_TIE = 1e-9  # inertias this close are a tie: the earlier run stays


def _sq_dists(x: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """‖x_i - c_j‖² for every pair (n, k), by BLAS; clipped at 0 (rounding can dip below)."""
    d = (x * x).sum(axis=1)[:, None] - 2.0 * (x @ centres.T) + (centres * centres).sum(axis=1)[None, :]
    return np.maximum(d, 0.0)


def _exact_sq_dists(x: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The same with every term computed per row or per pair (``einsum``'s own loops, no BLAS):
    each value depends only on the two vectors, not on where they sit in the matrices."""
    xx = np.einsum("ij,ij->i", x, x)[:, None]
    cc = np.einsum("ij,ij->i", centres, centres)[None, :]
    return np.maximum(xx - 2.0 * np.einsum("ij,kj->ik", x, centres) + cc, 0.0)


def assign(x: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's nearest centre (ties: the lower index) and its squared distance.

    Rows whose best and second-best BLAS distances lie within ``_TIE_MARGIN`` are decided on
    exact per-pair distances, so a near-tie never depends on how a kernel rounded."""
    d = _sq_dists(x, centres)
    labels = np.argmin(d, axis=1)
    if centres.shape[0] > 1:
        two = np.partition(d, 1, axis=1)[:, :2]
        close = np.flatnonzero(two[:, 1] - two[:, 0] <= _TIE_MARGIN)
        if len(close):
            exact = _exact_sq_dists(x[close], centres)
            labels[close] = np.argmin(exact, axis=1)
            d[close] = exact
    return labels, d[np.arange(len(x)), labels]


def _means(x: np.ndarray, labels: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Each cluster's mean; an empty cluster keeps its old centre (the caller relocates it)."""
    out = centres.copy()
    for j in np.unique(labels):
        out[j] = x[labels == j].mean(axis=0)
    return out


def kmeans_pp(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k initial centres by greedy k-means++ (see the module doc)."""
    n = len(x)
    trials = 2 + int(math.log(k))
    centres = [x[int(rng.integers(n))]]
    closest = _exact_sq_dists(x, np.array(centres))[:, 0]
    for _ in range(1, k):
        total = closest.sum()
        if total <= 0:  # every row already sits on a centre
            centres.append(x[int(rng.integers(n))])
            continue
        cand = rng.choice(n, size=trials, p=closest / total)
        cand_d = np.minimum(closest[None, :], _exact_sq_dists(x, x[cand]).T)
        best = int(np.argmin(cand_d.sum(axis=1)))  # first of ties
        centres.append(x[int(cand[best])])
        closest = cand_d[best]
    return np.array(centres)


def lloyd(x: np.ndarray, centres: np.ndarray, max_iter: int = MAX_ITER) -> tuple[np.ndarray, np.ndarray, float]:
    """Lloyd's iterations from ``centres`` until no row changes cluster: (labels, centres, inertia)."""
    c = np.array(centres, dtype=np.float64, copy=True)
    labels = np.full(len(x), -1)
    for _ in range(max_iter):
        new, dist = assign(x, c)
        empty = np.setdiff1d(np.arange(len(c)), new)
        if len(empty):
            # Relocate each empty cluster to the farthest row still unclaimed (ties: first row).
            far = np.argsort(-dist, kind="stable")[: len(empty)]
            new[far] = empty
            c[empty] = x[far]
        if np.array_equal(new, labels):
            break
        labels = new
        c = _means(x, labels, c)
    labels, dist = assign(x, c)
    return labels, c, float(dist.sum())


def kmeans(x: np.ndarray, k: int, n_init: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray, float]:
    """The lowest-inertia of ``n_init`` seeded k-means runs: (labels (n,), centres (k, d), inertia).

    ``k`` must be between 1 and the number of rows."""
    x = np.asarray(x, dtype=np.float64)
    if not 1 <= k <= len(x):
        raise ValueError(f"k-means needs 1 <= k <= {len(x)} rows, got k={k}")
    rng = np.random.default_rng(seed)
    best: tuple[np.ndarray, np.ndarray, float] | None = None
    for _ in range(max(1, n_init)):
        run = lloyd(x, kmeans_pp(x, k, rng))
        if best is None or run[2] < best[2] - _RELATIVE_TIE * max(abs(best[2]), 1e-300):
            best = run
    assert best is not None
    return best
