"""Localisation (CompassMem §4.3.2): where exploration starts.

The localize node is a retrieval node: the retriever the configuration names
(``seed_retriever``, from ``Settings.localize``; by default ``oneshot``, the best one-shot
ranking here) ranks the turns, and that ranking is both the search's seed and the answer's
ranking (``navigator.turn_ranking``), so the navigator starts from one-shot quality. Its ``k``
best turns are checked against the Planner's subgoals (``seed_meets``): explorers search only
for the subgoals they do not meet. An event scores its best turn's normalised one-shot score,
plus a small
share of its own cosine to the query (a tie-break, and a score for events the one-shot pool
does not reach). Candidates are the best ``k`` events plus the best event of each of the
first ``p`` distinct topics met walking down that ranking (CompassMem: k = 5, p = 5), which
keeps one semantic aspect from crowding out the others.
"""

from __future__ import annotations

from collections.abc import Set

import numpy as np

from memgraph_agents.model.graph import NodeKind
from memgraph_agents.model.ranking import exact_dots, order_best_first
from memgraph_agents.registry import get_retriever
from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
from memgraph_agents.retrieval.event_view import EventView
from memgraph_agents.retrieval.fusion_retriever import PARTS, fused_turns
from memgraph_agents.storage.protocols import StoreReader
from memgraph_agents.storage.snapshot import GraphSnapshot

DENSE_SHARE = 0.05  # weight of the event's own cosine next to its one-shot score
TOPIC_WALK = 4  # walk at most TOPIC_WALK * k events looking for new topics
DIVERSITY = 0.95  # offline start selection: a topic already chosen costs 5% (breaks near-ties)
RRF_K = 60  # reciprocal rank fusion constant when several seed retrievers are fused


def one_shot(query: str, store: StoreReader, *, retriever: str, pool: int) -> list[tuple[int, float]]:
    """``[(turn node index, normalised score)]`` from the seed retriever, best first.

    ``retriever`` may name several retrievers joined by ``+``: their turn rankings are fused
    by reciprocal rank (k = 60), exactly the registered ``fusion`` retriever for ``ppr+dwpr``.
    """

    snap = store.snapshot()
    names = tuple(n.strip() for n in retriever.split("+") if n.strip())
    if len(names) > 1 and all(n in PARTS for n in names):
        fused = fused_turns(query, store, parts=names, pool=pool)
        return _normalised([(snap.index[f"turn:{t}"], s) for t, s in fused if f"turn:{t}" in snap.index])
    if len(names) > 1:
        lists = [[i for i, _ in one_shot(query, store, retriever=n, pool=pool)] for n in names]
        return _normalised(reciprocal_rank_fusion(lists, k=RRF_K)[:pool])
    ranked: list[tuple[int, float]] = []
    seen: set[int] = set()
    for ev in get_retriever(names[0] if names else retriever)(query, store, k=pool):
        for t in ev.turn_ids:  # a retriever returning events contributes their turns
            i = snap.index.get(f"turn:{t}")
            if i is not None and i not in seen:
                seen.add(i)
                ranked.append((i, float(ev.score)))
    return _normalised(ranked)


def seed_meets(snap: GraphSnapshot, subgoals: np.ndarray, seed: list[int], k: int, share: float) -> list[bool]:
    """Per subgoal (a row of ``subgoals``: unit vectors), whether the seed's ``k`` best turns
    (``seed``: node indices, best first) meet it::

        met(j) = max_{t ∈ seed[:k]} cos(t, g_j) ≥ share · max_{t ∈ turns} cos(t, g_j)

    The closest turn in memory is what a search for ``g_j`` could find at best; when the seed
    already holds one nearly as close, exploring for ``g_j`` cannot add a better match. Exact
    float64 dots (``model.ranking.exact_dots``), so the verdict does not depend on BLAS rounding.
    Without comparable vectors every subgoal counts as met (there is nothing to search with)."""
    g = np.atleast_2d(np.asarray(subgoals, dtype=np.float32))
    vecs, turns = snap.vectors(), snap.indices_of(NodeKind.TURN)
    head = list(seed[:k])
    if not len(turns) or not head or vecs.ndim != 2 or vecs.shape[1] != g.shape[1]:
        return [True] * len(g)
    out = []
    to_ref = snap.calibration.query.to_reference  # ``share`` is a ratio of reference-scale cosines
    for j in range(len(g)):
        best = float(to_ref(float(exact_dots(vecs, g, turns, np.full(len(turns), j)).max())))
        mine = float(to_ref(float(exact_dots(vecs, g, head, np.full(len(head), j)).max())))
        out.append(best <= 0 or mine >= share * best)
    return out


def _normalised(ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
    top = max((s for _, s in ranked), default=0.0)
    if top <= 0:  # rank-based when scores are not positive
        return [(i, 1.0 / (1 + r)) for r, (i, _) in enumerate(ranked)]
    return [(i, max(s, 0.0) / top) for i, s in ranked]


def rank_events(
    view: EventView, one_shot_scores: dict[int, float], event_cosines: np.ndarray, id_rank: np.ndarray | None = None
) -> list[tuple[int, float]]:
    """Every event with its localisation score, best first (near-ties: by ``id_rank``, the
    snapshot's node-id ranks; else graph order)."""
    out = []
    for e, cos in zip(view.events, event_cosines):
        best = max((one_shot_scores.get(t, 0.0) for t in view.turns.get(int(e), [])), default=0.0)
        out.append((int(e), best + DENSE_SHARE * float(cos)))
    keys = None if id_rank is None else id_rank[[e for e, _ in out]] if out else None
    return [out[int(j)] for j in order_best_first([s for _, s in out], keys)]


def candidates(
    ranking: list[tuple[int, float]], view: EventView, k: int, p: int, exclude: Set[int] = frozenset()
) -> list[tuple[int, float]]:
    """Top-``k`` events plus the first event of each of the first ``p`` distinct topics."""
    ranking = [(e, s) for e, s in ranking if e not in exclude]
    chosen = ranking[:k]
    topics = {view.topic.get(e, -1 - e) for e, _ in chosen}
    have = {e for e, _ in chosen}
    for e, s in ranking[k : TOPIC_WALK * max(k, p)]:
        if len(topics) >= p:
            break
        t = view.topic.get(e, -1 - e)
        if t not in topics and e not in have:
            topics.add(t)
            have.add(e)
            chosen.append((e, s))
    return chosen


def select_start(cands: list[tuple[int, float]], view: EventView, n: int) -> list[int]:
    """Offline start selection: greedy by score, a topic already chosen costs ``DIVERSITY``."""
    left = list(cands)
    picked: list[int] = []
    used: set[int] = set()

    def value(i: int) -> tuple[float, int]:
        e, s = left[i]
        return (s * (DIVERSITY if view.topic.get(e) in used else 1.0), -i)

    while left and len(picked) < n:
        best = max(range(len(left)), key=value)
        e, _ = left.pop(best)
        picked.append(e)
        if e in view.topic:
            used.add(view.topic[e])
    return picked
