"""The navigator's turn ranking: the seed ranking re-scored by the evidence the search kept.

Multi-hop evidence is spread over sessions, and the seed (the RRF of ``ppr`` and ``dwpr``)
ranks each turn on its own. The search links them: a turn whose event is a graph neighbour
(a typed relation, a ``similar`` edge, a shared specific argument) of events the explorers
kept is corroborated by them. Each turn scores::

    score(t) = seed(t) + support · min(Σ_{e ∋ t} Σ_{n ∈ N(e) ∩ kept} seed(n), cap) / cap

with ``seed`` normalised by the best seed score (an event's seed is its best turn's). The
candidates are the seed pool plus every turn of a kept event (a neighbour the seed never
reached can enter). Ties: the seed order, then node order, so the ranking is deterministic.

Then ``diversified`` reorders by MMR (``retrieval.diverse``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from memgraph_agents.model.ranking import order_best_first, ranks_by
from memgraph_agents.retrieval.diverse import mmr_order
from memgraph_agents.retrieval.event_view import EventView
from memgraph_agents.storage.snapshot import GraphSnapshot


@dataclass(frozen=True)
class RankedTurn:
    node: int  # turn node index
    score: float
    event: int | None  # the kept event it belongs to (None: a seed turn outside kept events)


def support_scores(view: EventView, seed: dict[int, float], kept: list[int], cap: float) -> dict[int, float]:
    """Per turn (node index), its corroboration by kept neighbours in [0, 1]."""
    kept_set = set(kept)
    event_seed = {e: max((seed.get(t, 0.0) for t in view.turns.get(e, [])), default=0.0) for e in kept}
    out: dict[int, float] = {}
    for e in dict.fromkeys(n.node for k in kept for n in view.neighbours.get(k, [])):
        s = sum(event_seed[n.node] for n in view.neighbours.get(e, []) if n.node in kept_set)
        if s > 0:
            for t in view.turns.get(e, []):
                out[t] = out.get(t, 0.0) + s
    for k in kept:  # a kept event is supported by its kept neighbours too
        s = sum(event_seed[n.node] for n in view.neighbours.get(k, []) if n.node in kept_set)
        if s > 0:
            for t in view.turns.get(k, []):
                out.setdefault(t, s)
    return {t: min(s, cap) / cap for t, s in out.items()}


def rank_turns(
    view: EventView, seed: list[tuple[int, float]], kept: list[int], *, support: float, cap: float
) -> list[RankedTurn]:
    """Seed pool ∪ kept events' turns, by seed score plus ``support`` × corroboration."""
    seed_score = dict(seed)
    order = {t: r for r, (t, _) in enumerate(seed)}
    owner: dict[int, int] = {}
    for e in kept:
        for t in view.turns.get(e, []):
            owner.setdefault(t, e)
    boost = support_scores(view, seed_score, kept, cap) if support > 0 else {}
    cands = list(dict.fromkeys([*order, *owner]))
    scored = [(seed_score.get(t, 0.0) + support * boost.get(t, 0.0), t) for t in cands]
    # Best first; near-ties (TIE_EPS: float noise in the seed scores) by seed rank, then node.
    tiebreak = ranks_by([order.get(t, len(order)) for _, t in scored], [t for _, t in scored])
    scored = [scored[int(j)] for j in order_best_first([s for s, _ in scored], tiebreak)]
    return [RankedTurn(t, round(s, 6), owner.get(t)) for s, t in scored]


def diversified(snap: GraphSnapshot, ranked: list[RankedTurn], lam: float, k: int) -> list[RankedTurn]:
    """``ranked`` reordered by MMR (``retrieval.diverse``): paraphrases of a turn already ranked
    give way to different turns. Each turn's score becomes its marginal value, so the scores
    still decrease down the ranking. Without turn vectors (or ``lam <= 0``) it is unchanged."""
    vecs = snap.vectors()
    if lam <= 0 or len(ranked) < 2 or vecs.ndim != 2 or vecs.shape[0] <= max(r.node for r in ranked):
        return ranked
    cal = getattr(snap, "calibration", None)  # a stand-in snapshot without one: cosines as they are
    order, values = mmr_order(
        [r.score for r in ranked],
        vecs[[r.node for r in ranked]],
        lam,
        picks=k,
        to_reference=cal.doc.to_reference if cal is not None else None,
    )
    return [replace(ranked[i], score=round(v, 6)) for i, v in zip(order, values)]
