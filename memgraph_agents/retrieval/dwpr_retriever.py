"""``dwpr`` (MemORAI, Pham Van et al., §3.3): dynamic weighted PageRank on a query-focused subgraph.

Subgraph (§3.3.1): the top-``seeds_k`` arguments and sessions by similarity, the top-``pool``
fused turns (``seeds.turn_seeds``), plus their 1-hop neighbourhood over the argument→turn,
turn→session and relation edges. Query-conditioned weights (MemORAI eq. 1)::

    w(a → t) = sim(q, a)                              argument → turn
    w(t → s) = (1/|A(t)|) Σ_{a ∈ A(t)} sim(q, a)      turn → session / segment (own sim if no argument)
    w(u → v) = sim(q, r)                              relation edge r, r's description

(argument–turn and turn–session/segment edges mirrored), seeds ``seed(v) = sim(q, v)`` on the
subgraph plus ``lexical`` × the turn's RRF seed mass (the lexical evidence the embedding misses;
10 on the core memory, 20 with MemORAI structures, see ``LEXICAL``), and (eq. 2–3)::

    PR(v) ← (1 − d)·seed(v) + d·Σ_{u→v} w(u→v) / Σ_{u→*} w(u→*) · PR(u),   d = 0.85

Similarities are clipped at 0. Subgraph turns are ranked by PR times the speaker prior.

What the nodes and edges are depends on the memory:

* **Without MemORAI structures** (the core layers only): sim(q, a) is the similarity to the
  argument's *text* (its name); argument→turn edges come from the events (an event's role
  edge e → a and evidence edge e → t make a → t); the only relation edges are next-turn
  edges, with sim(q, r) = (sim(q, t) + sim(q, t')) / 2.
* **With the memorai layer** (``memorai_graph``): sim(q, a) uses the entity's description
  (its name when it has none); a turn of a memorai-built session is linked to the entities
  that MENTION it (those sessions' role-derived edges are left out: MemORAI's graph links an
  entity to the turns that cite it); TRIPLE edges are relation edges weighted by
  sim(q, "subject predicate object"); turn ↔ segment edges join turn ↔ session, and the
  top-``seeds_k`` segments (by summary) and triples (by description) seed the subgraph too,
  a triple with its two entities and its source turns. Each returned turn carries the
  triples that cite it, as a ``[relations: …]`` line after its text (§3.3.2: "turns with
  supporting triplets").
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.dwpr import EdgeCode, query_edge_weights
from memgraph_agents.retrieval.algorithms.dwpr import dwpr as dwpr_scores
from memgraph_agents.retrieval.evidence import incident, to_evidence, top_indices
from memgraph_agents.retrieval.memorai_graph import MemoraiGraph, memorai_graph
from memgraph_agents.retrieval.protocols import RetrieverOptions
from memgraph_agents.retrieval.seeds import (
    OTHER_SPEAKER,
    node_similarities,
    query_texts,
    query_vectors,
    speaker_weights,
    turn_seeds,
)
from memgraph_agents.storage.protocols import StoreReader
from memgraph_agents.storage.snapshot import EDGE_CODE, KIND_CODE

MAX_ATTACHED_TRIPLES = 5
# Default weight of the RRF turn seeds: (core memory, memory with MemORAI structures). Offline
# LoCoMo dev, MiniLM, turn R@10 with the memorai preset: 0.740 at 10 vs 0.771 at 20 on conv-26/30/41,
# 0.709 vs 0.725 on conv-42/43/47; the offline MemORAI entities quote the turns, so the
# lexical signal is worth more there. The core value (10) is unchanged.
LEXICAL = (10.0, 20.0)
Parts = list[tuple[np.ndarray, np.ndarray, EdgeCode]]


def _core_parts(snap) -> Parts:
    """argument→turn (through events), turn→session and next-turn edges, vectorised."""
    role = snap.ekind == EDGE_CODE["role"]
    ev_src, arg = snap.src[role].astype(np.int64), snap.dst[role].astype(np.int64)
    indptr, turns = incident(snap, "evidence", outgoing=True)
    deg = indptr[ev_src + 1] - indptr[ev_src]
    starts = np.repeat(indptr[ev_src], deg)
    offsets = np.arange(int(deg.sum())) - np.repeat(np.cumsum(deg) - deg, deg)
    sess = (snap.ekind == EDGE_CODE["contains"]) & (snap.kind[snap.src] == KIND_CODE["session"])
    nxt = snap.ekind == EDGE_CODE["next"]
    return [
        (np.repeat(arg, deg), turns[starts + offsets], EdgeCode.ARG_TURN),
        (snap.dst[sess], snap.src[sess], EdgeCode.TURN_SESSION),
        (snap.src[nxt], snap.dst[nxt], EdgeCode.RELATION),
    ]


def _concat(parts: Parts, triple_of: list[np.ndarray] | None = None):
    src = np.concatenate([np.asarray(s, np.int64) for s, _, _ in parts])
    dst = np.concatenate([np.asarray(d, np.int64) for _, d, _ in parts])
    kind = np.concatenate([np.full(len(s), int(c), np.int64) for s, _, c in parts])
    if triple_of is None:
        return src, dst, kind
    return src, dst, kind, np.concatenate(triple_of)


def _edges(snap) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(src, dst, EdgeCode)`` of the core memory (module doc), built once per snapshot."""
    return snap.derived("dwpr_edges", lambda: _concat(_core_parts(snap)))


def _memorai_edges(snap, mg: MemoraiGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(src, dst, EdgeCode, triple index or -1)`` with the MemORAI structures (module doc)."""

    def build():
        arg_turn, turn_session, nxt = _core_parts(snap)
        keep = ~mg.structured_turn[np.asarray(arg_turn[1], np.int64)]
        parts: Parts = [
            (arg_turn[0][keep], arg_turn[1][keep], EdgeCode.ARG_TURN),
            turn_session,
            nxt,
            (mg.mention_src, mg.mention_dst, EdgeCode.ARG_TURN),
            (mg.segment_turn, mg.segment, EdgeCode.TURN_SESSION),
            (mg.triple_src, mg.triple_dst, EdgeCode.RELATION),
        ]
        triple_of = [np.full(len(s), -1, np.int64) for s, _, _ in parts[:-1]]
        triple_of.append(np.arange(len(mg.triple_src), dtype=np.int64))
        return _concat(parts, triple_of)

    return snap.derived("dwpr_edges_memorai", build)


def _with_triples(ev: Evidence, mg: MemoraiGraph) -> Evidence:
    """The turn's evidence with the triples that cite it appended (module doc)."""
    cited = [mg.triple_texts[j] for t in ev.turn_ids for j in mg.triples_citing(t)]
    cited = list(dict.fromkeys(cited))[:MAX_ATTACHED_TRIPLES]
    return ev.model_copy(update={"text": f"{ev.text}\n[relations: {'; '.join(cited)}]"}) if cited else ev


class DWPROptions(RetrieverOptions):
    seeds_k: int = 10  # top arguments, sessions (and segments, triples) seeding the subgraph
    damping: float = 0.85
    pool: int = 50  # fused turn seeds
    other_speaker: float = OTHER_SPEAKER  # the speaker prior (1.0: off)
    lexical: float | None = None  # weight of the lexical seed mass (None: ``LEXICAL`` by memory)


def dwpr(query: str, store: StoreReader, *, k: int = 10, options: DWPROptions | None = None) -> list[Evidence]:
    """The top-k subgraph turns by DW-PR (see the module docstring)."""
    o = options or DWPROptions()
    seeds_k, damping, pool, other_speaker, lexical = o.seeds_k, o.damping, o.pool, o.other_speaker, o.lexical
    snap = store.snapshot()
    if k <= 0:
        return []
    mg = memorai_graph(snap, store.embedder) if len(snap.ids) else None
    if mg is None:
        src, dst, kind = _edges(snap)
        triple_of = None
    else:
        src, dst, kind, triple_of = _memorai_edges(snap, mg)
    if not len(src):
        return []
    qv = query_vectors(store.embedder, query_texts(query, snap))[0]  # one model call per question
    raw = node_similarities(snap, qv)
    triple_sim = np.zeros(0)
    if mg is not None and mg.description_vectors.shape[1:] == qv.shape:
        raw = np.array(raw, dtype=np.float64)
        to_ref = snap.calibration.query.to_reference  # the scale of ``node_similarities``
        raw[mg.described] = to_ref(mg.description_vectors @ qv)  # an entity is matched by its description
        triple_sim = np.clip(to_ref(mg.triple_vectors @ qv), 0.0, None).astype(np.float64)
    sims = np.clip(raw, 0.0, None).astype(np.float64)
    inside = np.zeros(len(snap.ids), dtype=bool)
    seed_kinds = [NodeKind.ARGUMENT, NodeKind.SESSION] + ([NodeKind.SEGMENT] if mg is not None else [])
    for node_kind in seed_kinds:
        idx = snap.indices_of(node_kind)
        inside[idx[top_indices(sims[idx], seeds_k, tiebreak=snap.id_rank[idx])]] = True
    if mg is not None and len(triple_sim):
        for j in top_indices(triple_sim, seeds_k, tiebreak=mg.triple_rank):
            inside[[mg.triple_src[j], mg.triple_dst[j]]] = True
            inside[[snap.index[f"turn:{t}"] for t in mg.triple_turns[j] if f"turn:{t}" in snap.index]] = True
    ts = turn_seeds(query, snap, raw, pool)  # unclipped: negative cosines still rank
    inside[list(ts)[:pool]] = True
    touch = inside[src] | inside[dst]  # 1-hop neighbourhood of the seeds
    inside[src[touch]] = True
    inside[dst[touch]] = True
    m = inside[src] & inside[dst]
    # A relation's description similarity: a triple's own; a next-turn edge's endpoints' mean.
    edge_sim = np.where(kind[m] == EdgeCode.RELATION, (sims[src[m]] + sims[dst[m]]) / 2, 0.0)
    if triple_of is not None and len(triple_sim):
        is_triple = triple_of[m] >= 0
        edge_sim[is_triple] = triple_sim[triple_of[m][is_triple]]
    w = query_edge_weights(src[m], dst[m], kind[m], sims, edge_sim, n_nodes=len(snap.ids))
    seed = np.where(inside, sims, 0.0)
    lexical = LEXICAL[mg is not None] if lexical is None else lexical
    for i, s in ts.items():  # lexical evidence the embedding misses
        seed[i] += s * lexical
    scores = dwpr_scores(w, seed, damping=damping)
    sw = speaker_weights(query, snap, other_speaker) if other_speaker < 1 else None
    if sw is not None:
        scores = scores * sw
    mask = inside & (snap.kind == KIND_CODE["turn"])
    out = [to_evidence(snap, int(i), scores[i], retriever="dwpr") for i in top_indices(scores, k, mask, snap.id_rank)]
    return out if mg is None else [_with_triples(ev, mg) for ev in out]
