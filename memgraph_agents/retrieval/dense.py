"""``dense``: nearest neighbours of the query embedding among chosen node kinds (turns by default).

Bi-encoder retrieval (Sentence-BERT, Reimers & Gurevych 2019; the offline model is MiniLM)::

    score(q, v) = cos(E(q), E(v)),   top-k over v of the chosen kinds

served by the namespace's Chroma index (HNSW, approximate). Evidence of a non-turn node carries
its provenance turns (``evidence.provenance``).
"""

from __future__ import annotations

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.evidence import to_evidence
from memgraph_agents.retrieval.lexical import dense_ranking


def dense(query: str, store, *, k: int = 10, kinds: tuple[str, ...] = ("turn",)) -> list[Evidence]:
    """The top-k nodes of ``kinds`` by cosine to the query."""
    snap = store.snapshot()
    return [to_evidence(snap, i, s, retriever="dense") for i, s in dense_ranking(query, store, k, kinds, snap=snap)]
