"""``dwpr`` (MemORAI, Pham Van et al., §3.3): dynamic weighted PageRank on a query-focused subgraph.

Subgraph: the top-``seeds_k`` arguments (by similarity of their text, our stand-in for
MemORAI's entity descriptions) and sessions, the top-``pool`` fused turns
(``seeds.turn_seeds``), plus their 1-hop neighbourhood over the argument→turn (through the
events), turn→session and turn→next-turn edges. Query-conditioned weights (MemORAI eq. 1)::

    w(a → t) = sim(q, a)                              argument → turn
    w(t → s) = (1/|A(t)|) Σ_{a ∈ A(t)} sim(q, a)      turn → session (own sim if no argument)
    w(t → t') = (sim(q, t) + sim(q, t')) / 2          relation (next-turn) edge

(argument–turn and turn–session edges mirrored), seeds ``seed(v) = sim(q, v)`` on the subgraph
plus 10 × the turn's RRF seed mass (the lexical evidence the embedding misses), and (eq. 2–3)::

    PR(v) ← (1 − d)·seed(v) + d·Σ_{u→v} w(u→v) / Σ_{u→*} w(u→*) · PR(u),   d = 0.85

Similarities are clipped at 0. Subgraph turns are ranked by PR times the speaker prior.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.dwpr import EdgeCode, query_edge_weights
from memgraph_agents.retrieval.algorithms.dwpr import dwpr as dwpr_scores
from memgraph_agents.retrieval.evidence import incident, to_evidence, top_indices
from memgraph_agents.retrieval.seeds import (
    OTHER_SPEAKER,
    node_similarities,
    speaker_weights,
    turn_seeds,
)
from memgraph_agents.storage.snapshot import EDGE_CODE, KIND_CODE


def _edges(snap) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(src, dst, EdgeCode)`` of argument→turn (through events), turn→session and next edges.

    Built once per snapshot, vectorised: an event's role edge (e → a) and evidence edge
    (e → t) make an argument→turn edge (a → t).
    """

    def build():
        parts = []
        role = snap.ekind == EDGE_CODE["role"]
        ev_src, arg = snap.src[role].astype(np.int64), snap.dst[role].astype(np.int64)
        indptr, turns = incident(snap, "evidence", outgoing=True)
        deg = indptr[ev_src + 1] - indptr[ev_src]
        starts = np.repeat(indptr[ev_src], deg)
        offsets = np.arange(int(deg.sum())) - np.repeat(np.cumsum(deg) - deg, deg)
        parts.append((np.repeat(arg, deg), turns[starts + offsets], EdgeCode.ARG_TURN))
        sess = (snap.ekind == EDGE_CODE["contains"]) & (snap.kind[snap.src] == KIND_CODE["session"])
        parts.append((snap.dst[sess], snap.src[sess], EdgeCode.TURN_SESSION))
        nxt = snap.ekind == EDGE_CODE["next"]
        parts.append((snap.src[nxt], snap.dst[nxt], EdgeCode.RELATION))
        src = np.concatenate([np.asarray(s, np.int64) for s, _, _ in parts])
        dst = np.concatenate([np.asarray(d, np.int64) for _, d, _ in parts])
        kind = np.concatenate([np.full(len(s), int(c), np.int64) for s, _, c in parts])
        return src, dst, kind

    return snap.derived("dwpr_edges", build)


def dwpr(query: str, store, *, k: int = 10, seeds_k: int = 10, damping: float = 0.85, pool: int = 50,
         other_speaker: float = OTHER_SPEAKER) -> list[Evidence]:
    """The top-k subgraph turns by DW-PR (see the module docstring)."""
    snap = store.snapshot()
    if k <= 0:
        return []
    src, dst, kind = _edges(snap)
    if not len(src):
        return []
    raw = node_similarities(snap, store.embedder.embed_one(query))
    sims = np.clip(raw, 0.0, None).astype(np.float64)
    inside = np.zeros(len(snap.ids), dtype=bool)
    for idx in (snap.indices_of(NodeKind.ARGUMENT), snap.indices_of(NodeKind.SESSION)):
        inside[idx[np.argsort(-sims[idx], kind="stable")[:seeds_k]]] = True
    ts = turn_seeds(query, snap, raw, pool)  # unclipped: negative cosines still rank
    inside[list(ts)[:pool]] = True
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
