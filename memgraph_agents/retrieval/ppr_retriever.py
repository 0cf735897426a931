"""``ppr``: Personalized PageRank over the event graph (EMem-G, HippoRAG 2 seeding).

Seeds: dense top-Ke events weighted by similarity / number of sessions the node occurs in;
query mentions -> top-Ka arguments each (≤ 30); plus the raw-turn hybrid ranking (dense +
BM25 fusion) as turn seeds, which keeps the lexical signal the graph alone would lose.
PPR (damping 0.5, undirected) over turn, event, argument nodes; turns are ranked, since a
turn is the unit of provenance (events flatten to several turns and would spend k).
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.ppr import ppr_prepared, ppr_seed_weights, prepare_transition
from memgraph_agents.retrieval.evidence import to_evidence, top_indices
from memgraph_agents.retrieval.seeds import OTHER_SPEAKER, mention_seeds, node_similarities, speaker_weights, turn_seeds

GRAPH_EDGES = ("evidence", "role", "synonym", "next", "relation", "similar")


def _prepared(snap):
    def build():
        adj = snap.adjacency(GRAPH_EDGES, undirected=True)
        keep = np.isin(snap.kind, [snap.kind.dtype.type(c) for c in _codes(snap)])
        adj = adj.multiply(keep[:, None]).multiply(keep[None, :]).tocsr()  # drop sentence/session/topic
        return prepare_transition(adj, symmetric=True)

    return snap.derived(("ppr", GRAPH_EDGES), build)


def _codes(snap):
    from memgraph_agents.storage.snapshot import KIND_CODE

    return [KIND_CODE["turn"], KIND_CODE["event"], KIND_CODE["argument"]]


def _session_counts(snap, idx: np.ndarray) -> np.ndarray:
    from memgraph_agents.retrieval.evidence import provenance

    ts = snap.turn_session
    return np.array([max(1, len({ts.get(t) for t in provenance(snap, int(i))})) for i in idx], dtype=np.float64)


def ppr(query: str, store, *, k: int = 10, ke: int = 30, ka: int = 10, max_arg_seeds: int = 30,
        damping: float = 0.5, turn_weight: float = 1.0, event_weight: float = 1.0, arg_weight: float = 0.5,
        pool: int = 50, other_speaker: float = OTHER_SPEAKER) -> list[Evidence]:
    snap = store.snapshot()
    qv = store.embedder.embed_one(query)
    sims = node_similarities(snap, qv)
    seed = np.zeros(len(snap.ids))

    events = snap.indices_of(NodeKind.EVENT)
    if len(events):
        top = events[np.argsort(-sims[events], kind="stable")[:ke]]
        w = ppr_seed_weights(sims[top], _session_counts(snap, top))
        if w.sum() > 0:
            seed[top] += event_weight * w / w.sum()
    ts = turn_seeds(query, snap, sims, pool)
    if ts:
        total = sum(ts.values())
        for i, s in ts.items():
            seed[i] += turn_weight * s / total
    ms = mention_seeds(query, snap, store.embedder.embed_one, ka, max_arg_seeds)
    if ms:
        total = sum(ms.values())
        for i, s in ms.items():
            seed[i] += arg_weight * s / total
    if seed.sum() == 0:
        return []
    scores = ppr_prepared(_prepared(snap), seed, damping=damping)
    sw = speaker_weights(query, snap, other_speaker) if other_speaker < 1 else None
    if sw is not None:
        scores = scores * sw
    turns = snap.indices_of(NodeKind.TURN)
    mask = np.zeros(len(snap.ids), dtype=bool)
    mask[turns] = True
    return [to_evidence(snap, int(i), scores[i], retriever="ppr") for i in top_indices(scores, k, mask)]
