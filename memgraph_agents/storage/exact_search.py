"""Exact dense search on a snapshot's vectors matrix (no Chroma read below the index threshold).

``MemoryStore.search`` uses it for namespaces up to ``MEMGRAPH_EXACT_SEARCH_NODES`` nodes: the
snapshot already holds every committed vector (read from the graph rows), so a small namespace
answers a dense query without opening its Chroma collection, exactly (no ANN approximation),
with near-ties ordered by node id like every ranking (``model.ranking``). Above the threshold
Chroma's HNSW index answers, in a namespace that has one (``storage.chroma_index``).
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.ranking import top_k
from memgraph_agents.storage.snapshot import KIND_CODE, GraphSnapshot


def exact_search(
    snap: GraphSnapshot, vector: np.ndarray, k: int, kinds: list[str] | None = None
) -> list[tuple[str, float]]:
    """Top-``k`` ``(node id, cosine similarity)`` over the snapshot's embedded nodes (those with
    a stored vector; topics carry centroids, not vectors, and are never hits), best first."""
    if k <= 0 or len(snap) == 0:
        return []
    mat = snap.vectors()
    q = np.asarray(vector, dtype=np.float32).ravel()
    if mat.shape[1] != q.shape[0]:  # no stored vector at all (a 1-wide placeholder matrix)
        return []
    norms, searchable = snap.derived("exact_search", lambda: _norms(snap, mat))  # once per snapshot
    mask = searchable.copy()
    if kinds:
        mask &= np.isin(snap.kind, [KIND_CODE[str(x)] for x in kinds])
    qn = float(np.linalg.norm(q))
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = (mat @ q).astype(np.float64) / (norms.astype(np.float64) * qn) if qn > 0 else np.zeros(len(norms))
    picked = top_k(scores, k, tiebreak=snap.id_rank, mask=mask)
    return [(snap.ids[int(i)], float(scores[int(i)])) for i in picked]


def _norms(snap: GraphSnapshot, mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's norm, and which rows can be hits (a stored vector, not a topic)."""
    norms = np.linalg.norm(mat, axis=1)
    return norms, (norms > 0) & (snap.kind != KIND_CODE["topic"])
