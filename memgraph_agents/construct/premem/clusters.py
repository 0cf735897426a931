"""PREMem step 2a: per-session clustering of fragments and cross-session linking (pure numpy).

Kim et al. (2025), "Pre-Storage Reasoning for Episodic Memory", §3.2.1 and Algorithm 1:

* the fragments of session i, embedded as unit vectors e_i^j, are grouped into clusters
  C_i = {c^1..c^k} with k chosen by the **silhouette score**; a cluster is represented by
  its centroid  c̄ = (1/|c|) Σ_{e∈c} e  (L2-normalised here so a dot product is the cosine);
* a new cluster c is **linked** to a cluster p of the persistent pool P_{i-1} (earlier
  sessions' clusters) when  sim(p, c) = c̄·p̄ / (‖c̄‖‖p̄‖) ≥ θ  (θ = 0.6 in the paper);
* the pool keeps the clusters that no later cluster has matched yet:
  P_i = P_{i-1} \\ {p : ∃c (p, c) linked} ∪ C_i.

Choice of k (the paper only names the silhouette): n = 1 -> one cluster; n = 2 -> one
cluster when the two are at least ``merge_threshold`` similar, else two; n ≥ 3 -> one
cluster when the mean pairwise cosine is at least ``merge_threshold`` (a single coherent
topic), else the k in 2..min(n-1, max_clusters, ⌈n/2⌉) with the best silhouette (cosine
distance, ``silhouette`` below; ties -> the smaller k). k-means is the spherical
k-means below (seeded: deterministic), not ``topics.kmeans_topics``: it maximises the cosine
objective the silhouette and the links are measured in.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.construct.synonyms import pairs_over

DEFAULT_MAX_CLUSTERS = 10
N_INIT = 4
MAX_ITER = 50


def normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)


def spherical_kmeans(vectors: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """Labels (n,) in 0..k-1, numbered by first appearance; maximises Σ_x cos(x, c_label(x)).

    k-means++ seeding (Arthur & Vassilvitskii, 2007) with distance 1 - cos; ``N_INIT``
    seeded restarts, the best objective wins (ties: the first)."""
    v = normalise(vectors)
    n = len(v)
    k = max(1, min(k, n))
    rng = np.random.default_rng(seed)
    best, best_obj = np.zeros(n, dtype=np.int64), -np.inf
    for _ in range(N_INIT):
        centres = [v[rng.integers(n)]]
        for _ in range(1, k):
            d = np.clip(1.0 - np.max(v @ np.array(centres).T, axis=1), 0.0, None)
            p = d / d.sum() if d.sum() > 0 else np.full(n, 1.0 / n)
            centres.append(v[rng.choice(n, p=p)])
        c = np.array(centres)
        labels = np.full(n, -1)
        for _ in range(MAX_ITER):
            new = np.argmax(v @ c.T, axis=1)
            if np.array_equal(new, labels):
                break
            labels = new
            sums = np.eye(k)[labels].T @ v
            filled = np.linalg.norm(sums, axis=1) > 0  # an emptied cluster keeps its old centre
            c[filled] = normalise(sums[filled])
        obj = float(np.sum(np.einsum("ij,ij->i", v, c[labels])))
        if obj > best_obj + 1e-12:
            best, best_obj = labels, obj
    order: dict[int, int] = {}
    for lab in best:
        order.setdefault(int(lab), len(order))
    return np.array([order[int(lab)] for lab in best], dtype=np.int64)


def silhouette(vectors: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette with cosine distance (Rousseeuw, "Silhouettes", 1987); needs 2..n-1 labels.

    d(i, j) = 1 - cos(x_i, x_j), clipped to [0, 2], d(i, i) = 0. For row i in cluster A:
    a(i) = Σ_{j∈A, j≠i} d(i, j) / (|A| - 1),  b(i) = min_{B≠A} Σ_{j∈B} d(i, j) / |B|,
    s(i) = (b(i) - a(i)) / max(a(i), b(i))  (0 when |A| = 1 or both are 0);  the score is mean_i s(i),
    as scikit-learn's ``silhouette_score(X, labels, metric="cosine")`` defines it."""
    v = normalise(vectors)
    lab = np.unique(np.asarray(labels), return_inverse=True)[1].ravel()
    k = int(lab.max()) + 1
    if not 2 <= k <= len(v) - 1:
        raise ValueError(f"the silhouette needs 2..{len(v) - 1} clusters, got {k}")
    d = np.clip(1.0 - np.einsum("ij,kj->ik", v, v), 0.0, 2.0)  # per pair, not by BLAS tile
    np.fill_diagonal(d, 0.0)
    member = np.eye(k)[lab]  # (n, k) one-hot
    sums = d @ member  # (n, k): each row's total distance to each cluster
    sizes = member.sum(axis=0)
    own = sizes[lab]
    a = sums[np.arange(len(v)), lab] / np.maximum(own - 1, 1)
    mean_to = sums / sizes[None, :]
    mean_to[np.arange(len(v)), lab] = np.inf
    b = mean_to.min(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.nan_to_num((b - a) / np.maximum(a, b))
    s[own == 1] = 0.0
    return float(s.mean())


def cluster_fragments(
    vectors: np.ndarray, *, merge_threshold: float = 0.6, max_clusters: int = DEFAULT_MAX_CLUSTERS, seed: int = 0
) -> list[list[int]]:
    """Row indices grouped into clusters (see the module doc), each sorted, the clusters
    ordered by their first row; every row is in exactly one cluster."""
    v = normalise(vectors)
    n = len(v)
    if n == 0:
        return []
    if n == 1:
        return [[0]]
    sims = v @ v.T
    mean_pair = (sims.sum() - np.trace(sims)) / (n * (n - 1))
    if mean_pair >= merge_threshold:
        return [list(range(n))]
    if n == 2:
        return [[0], [1]]
    best_labels, best_score = None, -np.inf
    for k in range(2, min(n - 1, max_clusters, (n + 1) // 2) + 1):
        labels = spherical_kmeans(v, k, seed=seed)
        if len(np.unique(labels)) < 2:
            continue
        score = silhouette(v, labels)
        if score > best_score + 1e-9:
            best_labels, best_score = labels, score
    if best_labels is None:  # all rows identical in direction
        return [list(range(n))]
    groups: dict[int, list[int]] = {}
    for row, label in enumerate(best_labels):
        groups.setdefault(int(label), []).append(row)
    return sorted(groups.values(), key=lambda g: g[0])


def centroid(vectors: np.ndarray) -> np.ndarray:
    """L2-normalised mean of the rows: the cluster's representative c̄."""
    return normalise(np.asarray(vectors, dtype=np.float64).mean(axis=0))


def link_clusters(new: np.ndarray, pool: np.ndarray, threshold: float, max_links: int) -> list[tuple[int, int, float]]:
    """``(new row, pool row, cosine)`` for every pair with cosine ≥ ``threshold``, at most
    ``max_links`` per new cluster (the most similar; ties -> the lower pool row), ordered
    by new row then decreasing cosine."""
    new_n = normalise(np.atleast_2d(new)) if len(new) else np.zeros((0, 0))
    pool_n = normalise(np.atleast_2d(pool)) if len(pool) else np.zeros((0, 0))
    if not len(new_n) or not len(pool_n) or max_links <= 0:
        return []
    # Threshold and order on exact cosines: two identical clusters tie on every BLAS kernel.
    return pairs_over(new_n, pool_n, threshold, max_links)
