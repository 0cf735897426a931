"""Topic layer (CompassMem): k-means over event embeddings, online assignment in between.

CompassMem groups events into topics so localisation can draw its start nodes from several
distinct topics. The number of topics follows the paper's rule of thumb::

    n_topics = max(2, min(floor(n_events / 5), 50))      (capped at n_events)

Clustering is k-means (``construct.kmeans``: Lloyd, greedy k-means++ seeding, the best of 4
seeded runs) on L2-normalised vectors, so squared Euclidean distance is 2 - 2·cosine and the
clusters are cosine clusters; centroids are re-normalised so they can be compared to events by a dot product. Between re-clusterings (every
T ingest steps) a new event joins the nearest centroid when the cosine clears a threshold, or
opens a new topic (``assign_online`` returns None).
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.construct.kmeans import kmeans
from memgraph_agents.model.ranking import exact_dots


def topic_count(n_events: int) -> int:
    """max(2, min(n // 5, 50)), never more than n; 1 for one event, 0 for none."""
    if n_events <= 0:
        return 0
    return min(n_events, max(2, min(n_events // 5, 50)))


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)


def kmeans_topics(vectors: np.ndarray, n_topics: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Cluster rows into at most ``n_topics`` topics.

    Returns ``(labels, centroids)``: labels (n,) int in 0..k-1, numbered by first appearance
    (row 0 is always in topic 0) so the numbering is stable; centroids (k, d), L2-normalised,
    one per topic that holds a row. k = min(n_topics, n, number of distinct rows): asking for
    more clusters than distinct points would leave empty clusters.
    """
    v = _normalise(np.asarray(vectors, dtype=np.float64))
    n = len(v)
    dim = v.shape[1] if v.ndim == 2 else 0
    if n == 0 or n_topics <= 0:
        return np.zeros(n, dtype=np.int64), np.zeros((0, dim))
    k = min(int(n_topics), n, len(np.unique(np.round(v, 12), axis=0)))
    if k == 1:
        return np.zeros(n, dtype=np.int64), _normalise(v.mean(axis=0, keepdims=True))
    raw, centres, _ = kmeans(v, k, n_init=4, seed=seed)
    # Renumber by first appearance.
    order: dict[int, int] = {}
    for lab in raw:
        order.setdefault(int(lab), len(order))
    labels = np.array([order[int(lab)] for lab in raw], dtype=np.int64)
    centroids = np.zeros((len(order), dim))  # only clusters that kept a row
    for old, new in order.items():
        centroids[new] = centres[old]
    return labels, _normalise(centroids)


def assign_online(vector: np.ndarray, centroids: np.ndarray, threshold: float) -> int | None:
    """Index of the centroid most cosine-similar to ``vector`` if that cosine >= threshold."""
    c = np.asarray(centroids, dtype=np.float64)
    if c.size == 0:
        return None
    cn = _normalise(c.reshape(len(c), -1))
    vn = _normalise(np.asarray(vector, dtype=np.float64).reshape(1, -1))
    # Exact cosines (model.ranking): the threshold and a tie between centroids never depend on
    # how a BLAS kernel rounds.
    sims = exact_dots(cn, vn, np.arange(len(cn)), np.zeros(len(cn), dtype=np.int64))
    best = int(np.argmax(sims))  # first of ties
    return best if sims[best] >= threshold else None
