"""The localize node's work besides choosing starts: the seed ranking, which subgoals it meets,
the candidate events, and the answer when the seed already meets every subgoal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from memgraph_agents.model.depth import FINISH_HEAD
from memgraph_agents.navigator.localize import candidates, one_shot, rank_events, seed_meets
from memgraph_agents.navigator.resources import embed_texts
from memgraph_agents.navigator.search import Search, build_search
from memgraph_agents.navigator.trace import event


def seeded_candidates(
    state: Mapping[str, Any], res, query: str
) -> tuple[Search, list[tuple[int, float]], dict[str, Any]]:
    """Seed ranking for ``query``, the search view, the candidates and the state update."""
    ctx = res.context
    ranked = one_shot(query, res.store, retriever=ctx.seed_retriever, pool=max(ctx.seed_pool, state.get("k") or 0))
    snap = res.store.snapshot()
    update: dict[str, Any] = {}
    if state.get("round", 0) == 0:  # the question's own ranking: turn scores and the answer's ranking
        update["one_shot"] = [[snap.attrs[i]["turn_id"], round(s, 5)] for i, s in ranked]
        state = {**state, "one_shot": update["one_shot"]}
    search = build_search(state, res)
    if state.get("round", 0) == 0:
        # Which subgoals the seed's best turns already meet, judged at a fixed depth (not the k
        # asked): whether Explorers search must not depend on how much is asked, or a request
        # for 50 would reshuffle the first 10 of a request for 10.
        update["satisfied"] = seed_meets(snap, search.scorer.h, [i for i, _ in ranked], FINISH_HEAD, ctx.seed_meets)
    view, vecs = search.view, snap.vectors()
    qv = embed_texts(res.store.embedder, [query])[0]
    cos = vecs[view.events] @ qv if len(view.events) and vecs.shape[1] == qv.shape[0] else np.zeros(len(view.events))
    cos = snap.calibration.query.to_reference(cos)  # DENSE_SHARE weighs a cosine of the reference scale
    exclude = {snap.index[v] for v in state.get("visited") or [] if v in snap.index}
    cands = candidates(rank_events(view, dict(ranked), cos, snap.id_rank), view, ctx.events_k, ctx.topics_p, exclude)
    if cands:  # the best similarity localisation finds per subgoal: what "relative" is relative to
        best = search.scorer.sims([c for c, _ in cands]).max(axis=0)
        refs = [max(float(a), b) for a, b in zip(best, state.get("refs") or [0.0] * len(best))]
        search.scorer.refs[:] = refs
        update["refs"] = refs
    return search, cands, update


def merged_status(state: Mapping[str, Any], update: Mapping[str, Any], n: int) -> list[bool]:
    """The subgoal status after localisation: what was met before or is met by the seed now."""
    satisfied = list(state.get("satisfied") or [False] * n)
    if "satisfied" in update:
        satisfied = [a or b for a, b in zip(satisfied, update["satisfied"])]
    return satisfied


def seed_event(update: Mapping[str, Any], k: int, query: str, where: Mapping[str, Any]) -> dict[str, Any]:
    """The localize event of an easy question: the seed ranking's ``k`` best turns answer it."""
    seed = [(f"turn:{tid}", score) for tid, score in update.get("one_shot", [])[:k]]
    return event(
        "localize",
        **where,
        query=query,
        source="seed",
        candidates=[n for n, _ in seed],  # what the run answers with: inspectable like any path
        start=[],
        scores={n: round(sc, 3) for n, sc in seed},
    )
