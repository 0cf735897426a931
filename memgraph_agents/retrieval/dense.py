"""``dense``: Chroma top-k over chosen node kinds (turns by default)."""

from __future__ import annotations

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.evidence import to_evidence


def dense(query: str, store, *, k: int = 10, kinds: tuple[str, ...] = ("turn",)) -> list[Evidence]:
    snap = store.snapshot()
    qv = store.embedder.embed_one(query)
    hits = store.search(qv, k, list(kinds))
    return [to_evidence(snap, snap.index[nid], s, retriever="dense") for nid, s in hits]
