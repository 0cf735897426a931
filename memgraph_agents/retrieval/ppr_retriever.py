"""``ppr``: Personalized PageRank over the event graph (EMem-G, Zhou & Han 2025, §3.3;
seeding after HippoRAG 2, Gutiérrez et al. 2025).

Seed vector ``s`` (each part normalised to sum 1, then weighted):

* events: the dense top-Ke, ``s_e = max(cos(q, e), 0) / sessions(e)`` (node specificity:
  an event recurring in many sessions says less), weight ``event_weight``;
* turns: the RRF fusion of dense, BM25 and best-sentence turn rankings (``seeds.turn_seeds``),
  which keeps the lexical signal the graph alone would lose, weight ``turn_weight``;
* arguments: per query mention the top-Ka arguments by cosine (≤ 30), weight ``arg_weight``.

Walk: PPR on the undirected graph of turn, event and argument nodes (edges: evidence, role,
synonym, next, relation, similar), damping d = 0.5::

    p = (1 − d)·s + d·Pᵀp,   P = D⁻¹A

Turns are ranked by ``p`` times the speaker prior (``seeds.speaker_weights``): a turn is the
unit of provenance, while events flatten to several turns and would spend k.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.ppr import (
    ppr_prepared,
    ppr_seed_weights,
    prepare_transition,
)
from memgraph_agents.retrieval.evidence import session_counts, to_evidence, top_indices
from memgraph_agents.retrieval.seeds import (
    OTHER_SPEAKER,
    mention_seeds,
    node_similarities,
    speaker_weights,
    turn_seeds,
)
from memgraph_agents.storage.snapshot import KIND_CODE

GRAPH_EDGES = ("evidence", "role", "synonym", "next", "relation", "similar")
WALK_KINDS = ("turn", "event", "argument")  # sentences, sessions and topics stay out of the walk


def _prepared(snap):
    """``(walk node indices, transition over those nodes only)``, built once per snapshot.

    Sentences, sessions and topics are not in the walk; leaving them out of the matrix (not
    just out of its edges) keeps every iteration's vectors a third as long (bench scale)."""

    def build():
        nodes = np.flatnonzero(np.isin(snap.kind, [KIND_CODE[k] for k in WALK_KINDS]))
        adj = snap.adjacency(GRAPH_EDGES, undirected=True)[nodes][:, nodes]
        return nodes, prepare_transition(adj, symmetric=True)

    return snap.derived(("ppr-walk", GRAPH_EDGES), build)


def _add(seed: np.ndarray, part: dict[int, float], weight: float) -> None:
    """``seed[i] += weight · part[i] / Σ part`` (one normalised seed component)."""
    if part:
        total = sum(part.values())
        idx = np.fromiter(part.keys(), dtype=np.int64, count=len(part))
        val = np.fromiter(part.values(), dtype=np.float64, count=len(part))
        seed[idx] += weight * val / total


def ppr(query: str, store, *, k: int = 10, ke: int = 30, ka: int = 10, max_arg_seeds: int = 30,
        damping: float = 0.5, turn_weight: float = 1.0, event_weight: float = 1.0, arg_weight: float = 0.5,
        pool: int = 50, other_speaker: float = OTHER_SPEAKER) -> list[Evidence]:
    """The top-k turns by Personalized PageRank from the query's seeds (see the module docstring)."""
    snap = store.snapshot()
    if k <= 0 or not len(snap.ids):
        return []
    qv = store.embedder.embed_one(query)
    sims = node_similarities(snap, qv)
    seed = np.zeros(len(snap.ids))

    events = snap.indices_of(NodeKind.EVENT)
    if len(events):
        top = events[np.argsort(-sims[events], kind="stable")[:ke]]
        w = ppr_seed_weights(sims[top], session_counts(snap)[top])
        if w.sum() > 0:
            seed[top] += event_weight * w / w.sum()
    _add(seed, turn_seeds(query, snap, sims, pool), turn_weight)
    _add(seed, mention_seeds(query, snap, store.embedder.embed_one, ka, max_arg_seeds), arg_weight)
    if seed.sum() == 0:
        return []
    nodes, prepared = _prepared(snap)
    scores = np.zeros(len(snap.ids))  # nodes outside the walk score 0, as they would inside it
    scores[nodes] = ppr_prepared(prepared, seed[nodes], damping=damping)
    sw = speaker_weights(query, snap, other_speaker) if other_speaker < 1 else None
    if sw is not None:
        scores = scores * sw
    mask = snap.kind == KIND_CODE["turn"]
    return [to_evidence(snap, int(i), scores[i], retriever="ppr") for i in top_indices(scores, k, mask)]
