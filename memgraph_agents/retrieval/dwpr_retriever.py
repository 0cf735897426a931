"""``dwpr`` (MemORAI): dynamic weighted PageRank on a query-focused subgraph.

Subgraph: top-k arguments (by similarity of their text, our stand-in for MemORAI's entity
descriptions), top-k sessions and top-k turns, plus their 1-hop neighbourhood over the
argument→turn, turn→session and relation edges. Query-conditioned weights (MemORAI eq. 1):
argument→turn = sim(q, argument); turn→session = mean over the turn's arguments of
sim(q, argument); relation = sim(q, relation evidence). Seeds = sim(q, v) for every
subgraph node; PR(v) ← (1−d)·seed(v) + d·Σ_{u→v} w(u→v)/Σ_{u→*}w(u→*)·PR(u). Turns ranked.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.dwpr import EdgeCode, dwpr as dwpr_scores, query_edge_weights
from memgraph_agents.retrieval.evidence import to_evidence, top_indices
from memgraph_agents.retrieval.seeds import OTHER_SPEAKER, node_similarities, speaker_weights, turn_seeds
from memgraph_agents.storage.snapshot import EDGE_CODE, KIND_CODE


def _edges(snap):
    """Derived edge list: argument→turn (through events), turn→session, turn–turn relations."""

    def build():
        ev, ro, co, nx_ = EDGE_CODE["evidence"], EDGE_CODE["role"], EDGE_CODE["contains"], EDGE_CODE["next"]
        turns_of: dict[int, list[int]] = {}
        for s, d in zip(snap.src[snap.ekind == ev], snap.dst[snap.ekind == ev]):
            turns_of.setdefault(int(s), []).append(int(d))
        src, dst, kind = [], [], []
        for e, a in zip(snap.src[snap.ekind == ro], snap.dst[snap.ekind == ro]):
            for t in turns_of.get(int(e), []):
                src.append(int(a)); dst.append(t); kind.append(EdgeCode.ARG_TURN)
        sess = (snap.ekind == co) & (snap.kind[snap.src] == KIND_CODE["session"])
        for s, t in zip(snap.src[sess], snap.dst[sess]):
            src.append(int(t)); dst.append(int(s)); kind.append(EdgeCode.TURN_SESSION)
        for a, b in zip(snap.src[snap.ekind == nx_], snap.dst[snap.ekind == nx_]):
            src.append(int(a)); dst.append(int(b)); kind.append(EdgeCode.RELATION)
        return np.array(src, np.int64), np.array(dst, np.int64), np.array(kind, np.int64)

    return snap.derived("dwpr_edges", build)


def dwpr(query: str, store, *, k: int = 10, seeds_k: int = 10, damping: float = 0.85, pool: int = 50,
         other_speaker: float = OTHER_SPEAKER) -> list[Evidence]:
    snap = store.snapshot()
    sims = np.clip(node_similarities(snap, store.embedder.embed_one(query)), 0.0, None).astype(np.float64)
    src, dst, kind = _edges(snap)
    if not len(src):
        return []
    chosen = [snap.indices_of(NodeKind.ARGUMENT), snap.indices_of(NodeKind.SESSION)]
    seeds = set()
    for idx in chosen:
        seeds.update(int(i) for i in idx[np.argsort(-sims[idx], kind="stable")[:seeds_k]])
    ts = turn_seeds(query, snap, sims.astype(np.float32), pool)
    seeds.update(list(ts)[:pool])
    inside = np.zeros(len(snap.ids), dtype=bool)
    inside[list(seeds)] = True
    touch = inside[src] | inside[dst]  # 1-hop neighbourhood of the seeds
    inside[src[touch]] = True
    inside[dst[touch]] = True
    m = inside[src] & inside[dst]
    # A relation (turn–turn) edge's description similarity: its endpoints' mean.
    edge_sim = np.where(kind[m] == EdgeCode.RELATION, (sims[src[m]] + sims[dst[m]]) / 2, 0.0)
    w = query_edge_weights(src[m], dst[m], kind[m], sims, edge_sim, n_nodes=len(snap.ids))
    seed = np.where(inside, sims, 0.0)
    for i, s in ts.items():  # lexical evidence the embedding misses
        seed[i] += s * 10
    scores = dwpr_scores(w, seed, damping=damping)
    sw = speaker_weights(query, snap, other_speaker) if other_speaker < 1 else None
    if sw is not None:
        scores = scores * sw
    mask = inside & (snap.kind == KIND_CODE["turn"])
    return [to_evidence(snap, int(i), scores[i], retriever="dwpr") for i in top_indices(scores, k, mask)]
