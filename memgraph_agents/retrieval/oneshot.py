"""``oneshot``: the navigator's turn ranking without its search — the default retriever.

The navigator's margin over its seed came mostly from its ranking, not from the search
(BENCHMARKS.md), and that ranking needs no search. One pass::

    seed(t)  = RRF_k(ppr, dwpr, direct × relevance ranking)(t) / best           (k = rrf_k)
    base(t)  = seed(t) + support · corroboration(t)        (navigator.rank.rank_turns)
    score(t) = base(t) + (rel(t) / max rel)^gate · [informative · min(1, words(t) / L)
                                                    + answer_type · (a date asked and carried)]
    score(t) = asking · score(t)          when t mostly asks (``navigator.priors.asks_only``)

then MMR (``navigator.diverse``, λ = ``redundancy``) lets paraphrases give way.

* The seed fuses the two graph retrievers with the **direct match**: turns ranked by their
  relevance (``retrieval.relevance``: the question's cosine to the turn's best sentence, the
  conversation's speakers left out of the question). Reciprocal rank fusion (Cormack, Clarke
  & Büttcher 2009) with a sharp ``k = 10``: in a short chat every candidate sits in the top
  few dozen, and the usual ``k = 60`` would make them all alike.
* The turns that are **not evidence** (``retrieval.asking``: the agent's own words, the user's
  questions to it, the question itself stored before the recall) take no rank in the fused
  lists, so the statements rank as if they were not stored.
* **Corroboration** as the navigator scores it, with the events of the ``corroborate`` best
  seed turns standing in for the events its search would keep: a turn whose event neighbours
  them (a typed relation, a ``similar`` edge, a shared specific argument) gains up to
  ``support``. Multi-hop evidence is spread over sessions; this is what the search added.
* The priors of ``navigator.priors`` (informativeness, a date for a "when" question) are
  **gated by relevance**: a long, dated turn gains only as much as it matches the question, so
  it cannot top questions it does not answer (a hub of the graph would, with the priors added
  flat).
* A turn that **mostly asks** ("Wait, she is getting married? When?": a question and at most
  12 words besides) shares a question's words — the question word, the names, the topic —
  and every seed ranks it high, for every question of that shape, yet it states little; what
  it asks is answered by the turns around it, which keep their scores. Its score is scaled by
  ``asking`` (< 1: demoted, not removed, so it still shows where nothing better matches).

The constants were chosen on three conversations of LoCoMo's development split (conv-26,
conv-30, conv-41) and checked on the other four (BENCHMARKS.md, "A default ranking that
generalises"), among the settings that show the invented demo chat's answers.
"""

from __future__ import annotations

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
from memgraph_agents.retrieval.answer_aware import gated_terms, lexical_terms, ordered_head, reply_terms
from memgraph_agents.retrieval.asking import evidence_only
from memgraph_agents.retrieval.event_view import event_view
from memgraph_agents.retrieval.evidence import shared_evidence, turn_evidence
from memgraph_agents.retrieval.fusion_retriever import PARTS, turn_ranking
from memgraph_agents.retrieval.head_order import HeadWeights
from memgraph_agents.retrieval.priors import ASIDE_WORDS, asks_for, asks_only, prior
from memgraph_agents.retrieval.protocols import RetrieverOptions
from memgraph_agents.retrieval.rank import RankedTurn, diversified, rank_turns
from memgraph_agents.retrieval.relevance import question_vector, relevance_of, relevance_ranking
from memgraph_agents.retrieval.seeds import query_texts, query_vectors
from memgraph_agents.storage.protocols import StoreReader


class OneshotOptions(RetrieverOptions):
    """The one-pass ranking's constants (chosen on conv-26, conv-30, conv-41: see above)."""

    pool: int = 50  # turns taken from each fused ranking (at least k)
    rrf_k: int = 10
    direct: float = 1.0  # weight of the relevance ranking in the fusion (ppr and dwpr weigh 1)
    informative: float = 0.2
    informative_words: int = 40
    answer_type: float = 0.1
    gate: float = 2.0
    redundancy: float = 0.1
    corroborate: int = 5  # events of the best seed turns that corroborate their neighbours (0: off)
    support: float = 0.2
    support_cap: float = 3.0
    asking: float = 0.7  # factor on the score of a turn that mostly asks (``priors.asks_only``; 1: off)
    asking_words: int = ASIDE_WORDS  # words besides its questions such a turn may say
    # Answer-aware terms (``retrieval.answer_aware``; 0: off): the kind of value asked for, the
    # question's subject speaking, the reply to a turn asking what the question asks.
    kind: float = 0.0
    subject: float = 0.0
    reply: float = 0.0
    lexical: float = 0.0
    # The head's order (``retrieval.head_order``; all 0: off): its first ``head`` turns re-sorted
    # by relevance, the kind of value asked for, the question's own words, and asking.
    head: int = 10
    head_match: float = 0.5
    head_kind: float = 0.8
    head_words: float = 0.8
    head_asks: float = 0.3


def fused_seed(query: str, store: StoreReader, *, pool: int, rrf_k: int, direct: float) -> list[tuple[int, float]]:
    """``[(turn node index, score / best)]``: the RRF (constant ``rrf_k``) of the ``ppr`` and
    ``dwpr`` turn rankings and, weighted ``direct``, the relevance ranking (their ``pool`` best
    each), best first (``reciprocal_rank_fusion``'s tie rule)."""

    snap = store.snapshot()
    if not len(snap.ids):
        return []
    query_vectors(store.embedder, query_texts(query, snap))  # one model call for both parts
    lists = []
    for p in ("ppr", "dwpr"):
        fn, options = PARTS[p]
        lists.append(turn_ranking(fn(query, store, k=pool, options=options())))
    weights = [1.0, 1.0]
    if direct > 0:
        lists.append([t for t, _ in relevance_ranking(snap, question_vector(store, query), pool)])
        weights.append(direct)
    lists = [evidence_only(snap, query, ranked) for ranked in lists]  # the agent's own turns rank no seat
    fused = [
        (snap.index[f"turn:{t}"], s)
        for t, s in reciprocal_rank_fusion(lists, k=rrf_k, weights=weights)[:pool]
        if f"turn:{t}" in snap.index
    ]
    best = max((s for _, s in fused), default=0.0) or 1.0
    return [(i, s / best) for i, s in fused]


def corroborated(snap, seed: list[tuple[int, float]], n_events: int, *, support: float, cap: float) -> list[RankedTurn]:
    """The seed re-scored by corroboration (``navigator.rank.rank_turns``) with the events of
    the ``n_events`` best seed turns standing in for the events a search would keep: a turn
    whose event neighbours those events (typed relation, ``similar``, shared argument) gains."""
    view = event_view(snap)
    kept: list[int] = []
    for i, _ in seed:
        for e in view.events_of_turn.get(i, []):
            if e not in kept:
                kept.append(e)
        if len(kept) >= n_events:
            break
    return rank_turns(view, seed, kept[:n_events], support=support, cap=cap)


def _read_only(snap, i: int) -> Evidence | None:
    """The evidence of node ``i``'s turn as the snapshot shares it (``shared_evidence``: to read,
    not to hand out), ``None`` when the turn is not stored."""
    j = snap.index.get(f"turn:{snap.attrs[i]['turn_id']}")
    return None if j is None else shared_evidence(snap, j)


def oneshot(query: str, store: StoreReader, *, k: int = 10, options: OneshotOptions | None = None) -> list[Evidence]:
    """The top-k turns of the one-pass ranking above (ties: the seed's order)."""
    if k <= 0:
        return []
    o = options or OneshotOptions()
    snap = store.snapshot()
    seed = fused_seed(query, store, pool=max(o.pool, k), rrf_k=o.rrf_k, direct=o.direct)
    if not seed:
        return []
    kind = asks_for(query)
    rel = relevance_of(snap, question_vector(store, query))
    base = seed
    if o.corroborate > 0 and o.support > 0:
        ranked0 = corroborated(snap, seed, o.corroborate, support=o.support, cap=o.support_cap)
        base = [(t.node, t.score) for t in ranked0]
    items = [_read_only(snap, i) for i, _ in base]  # read for their relevance only
    rels = [rel(ev) if ev is not None else 0.0 for ev in items]
    top = max(rels) or 1.0
    by_node = {i: r / top for (i, _), r in zip(base, rels)}
    flat = reply_terms(snap, [i for i, _ in base], lambda i: by_node.get(i, 0.0), o.reply)
    for j in sorted(set(flat) - set(by_node)):  # a reply the pool missed enters with no seed score
        ev = _read_only(snap, j)
        base, rels = [*base, (j, 0.0)], [*rels, min(top, rel(ev)) if ev is not None else 0.0]
    gated = gated_terms(snap, query, [i for i, _ in base], kind=o.kind, subject=o.subject)
    words = lexical_terms(snap, query, [i for i, _ in base], o.lexical)
    scored = []
    for order, ((i, s), r) in enumerate(zip(base, rels)):
        p = prior(
            snap.text[i], snap.attrs[i], kind, informative=o.informative, full=o.informative_words, typed=o.answer_type
        )
        v = s + (r / top) ** o.gate * (p + gated.get(i, 0.0)) + flat.get(i, 0.0) + words.get(i, 0.0)
        if o.asking != 1.0 and asks_only(snap.text[i], snap.attrs[i].get("speaker"), aside=o.asking_words):
            v *= o.asking
        scored.append((round(v, 6), order, i))
    scored.sort(key=lambda x: (-x[0], x[1]))
    # The head is ordered whole whatever k is asked, so the first k of a request for k are the
    # first k of a request for more (the MMR picks are prefix-stable too).
    ranked = diversified(snap, [RankedTurn(i, v, None) for v, _, i in scored], o.redundancy, max(k, o.head))
    w = HeadWeights(match=o.head_match, kind=o.head_kind, words=o.head_words, asks=o.head_asks)
    pairs = [(t.node, t.score) for t in ranked]
    raw = {i: r for (i, _), r in zip(base, rels)}
    pairs = ordered_head(snap, query, pairs[: o.head], lambda i: raw.get(i, 0.0), w) + pairs[o.head :]
    out = []
    for node, score in pairs[:k]:
        ev = turn_evidence(snap, snap.attrs[node]["turn_id"], score, retriever="oneshot")
        if ev is not None:
            out.append(ev)
    return out
