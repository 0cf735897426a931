"""``oneshot``: the navigator's turn ranking without its search — the default retriever.

The navigator's margin over its seed came mostly from its ranking priors, not from the
search (BENCHMARKS.md), and the priors need no search. One pass::

    seed(t)  = RRF_k(ppr, dwpr, direct × relevance ranking)(t) / best       (k = rrf_k)
    score(t) = seed(t) + (rel(t) / max rel)^gate · [informative · min(1, words(t) / L)
                                                    + answer_type · (a date asked and carried)]

then MMR (``navigator.diverse``, λ = ``redundancy``) lets paraphrases give way.

* The seed fuses the two graph retrievers with the **direct match**: turns ranked by their
  relevance (``retrieval.relevance``: the question's cosine to the turn's best sentence, the
  conversation's speakers left out of the question). Reciprocal rank fusion (Cormack, Clarke
  & Büttcher 2009) with a sharp ``k = 10``: in a short chat every candidate sits in the top
  few dozen, and the usual ``k = 60`` would make them all alike.
* The priors of ``navigator.priors`` (informativeness, a date for a "when" question) are
  **gated by relevance**: a long, dated turn gains only as much as it matches the question, so
  it cannot top questions it does not answer (a hub of the graph would, with the priors added
  flat).

The constants were chosen on three conversations of LoCoMo's development split (conv-26,
conv-30, conv-41) and checked on the other four (BENCHMARKS.md, "A default ranking that
generalises"), among the settings that show the invented demo chat's answers.
"""

from __future__ import annotations

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.navigator.priors import asks_for, prior
from memgraph_agents.navigator.rank import RankedTurn, diversified
from memgraph_agents.retrieval.evidence import turn_evidence
from memgraph_agents.retrieval.registry import register_retriever
from memgraph_agents.retrieval.relevance import question_vector, relevance_of, relevance_ranking
from memgraph_agents.storage.protocols import StoreReader

RRF_K = 10
DIRECT = 1.0  # weight of the relevance ranking in the fusion (ppr and dwpr weigh 1)
INFORMATIVE = 0.2
INFORMATIVE_WORDS = 40
ANSWER_TYPE = 0.1
GATE = 2.0
REDUNDANCY = 0.1
POOL = 50


def fused_seed(query: str, store: StoreReader, *, pool: int, rrf_k: int, direct: float) -> list[tuple[int, float]]:
    """``[(turn node index, score / best)]``: the RRF (constant ``rrf_k``) of the ``ppr`` and
    ``dwpr`` turn rankings and, weighted ``direct``, the relevance ranking (their ``pool`` best
    each), best first (``reciprocal_rank_fusion``'s tie rule)."""
    from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
    from memgraph_agents.retrieval.fusion_retriever import PARTS, turn_ranking
    from memgraph_agents.retrieval.seeds import query_texts, query_vectors

    snap = store.snapshot()
    if not len(snap.ids):
        return []
    query_vectors(store.embedder, query_texts(query, snap))  # one model call for both parts
    lists = [turn_ranking(PARTS[p](query, store, k=pool)) for p in ("ppr", "dwpr")]
    weights = [1.0, 1.0]
    if direct > 0:
        lists.append([t for t, _ in relevance_ranking(snap, question_vector(store, query), pool)])
        weights.append(direct)
    fused = [
        (snap.index[f"turn:{t}"], s)
        for t, s in reciprocal_rank_fusion(lists, k=rrf_k, weights=weights)[:pool]
        if f"turn:{t}" in snap.index
    ]
    best = max((s for _, s in fused), default=0.0) or 1.0
    return [(i, s / best) for i, s in fused]


@register_retriever("oneshot")
def oneshot(
    query: str,
    store: StoreReader,
    *,
    k: int = 10,
    pool: int = POOL,
    rrf_k: int = RRF_K,
    direct: float = DIRECT,
    informative: float = INFORMATIVE,
    informative_words: int = INFORMATIVE_WORDS,
    answer_type: float = ANSWER_TYPE,
    gate: float = GATE,
    redundancy: float = REDUNDANCY,
) -> list[Evidence]:
    """The top-k turns of the one-pass ranking above (ties: the seed's order)."""
    if k <= 0:
        return []
    snap = store.snapshot()
    seed = fused_seed(query, store, pool=max(pool, k), rrf_k=rrf_k, direct=direct)
    if not seed:
        return []
    kind = asks_for(query)
    rel = relevance_of(snap, question_vector(store, query))
    items = [turn_evidence(snap, snap.attrs[i]["turn_id"], s, retriever="oneshot") for i, s in seed]
    rels = [rel(ev) if ev is not None else 0.0 for ev in items]
    top = max(rels) or 1.0
    scored = []
    for order, ((i, s), r) in enumerate(zip(seed, rels)):
        p = prior(snap.text[i], snap.attrs[i], kind, informative=informative, full=informative_words, typed=answer_type)
        scored.append((round(s + (r / top) ** gate * p, 6), order, i))
    scored.sort(key=lambda x: (-x[0], x[1]))
    ranked = diversified(snap, [RankedTurn(i, v, None) for v, _, i in scored], redundancy, k)
    out = []
    for turn in ranked[:k]:
        ev = turn_evidence(snap, snap.attrs[turn.node]["turn_id"], turn.score, retriever="oneshot")
        if ev is not None:
            out.append(ev)
    return out
