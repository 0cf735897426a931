"""The navigator's final ranking, computed by the Responder at the end of a search: the seed
ranking (the localize node's retrieval ranking, ``one_shot``) with the turns the explorers found
fused in, without displacing strong seeds::

    ranking = seed[:seed_keep] + explored + seed[seed_keep:]

``explored`` is one turn of each kept event (keeping order): the turn that best matches the
subgoals the event was kept for (what the search looked for and the seed did not meet), else its
best turn (one-shot score, then cosine to the question); none when that turn is already among
the seed's ``H`` best, at most
``H - seed_keep`` of them (``H = FINISH_HEAD``, 10, whatever k is asked: prefix-stable in k), each scored as the seed turn it goes before (scores stay
non-increasing). A turn of a kept event carries the path that reached it. A search that kept
nothing (an easy question: the seed met every subgoal) returns the seed ranking itself. It is part of the graph's output (``ranking``,
``kept_ranking``: plain ``Evidence`` dumps), so a run of the graph itself (LangGraph Studio)
returns what ``navigate`` and ``Memory.search`` return.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from memgraph_agents.model.depth import FINISH_HEAD, RANK_DEPTH
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.ranking import exact_dots
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.search import Search
from memgraph_agents.retrieval.evidence import turn_evidence
from memgraph_agents.retrieval.finish import finish
from memgraph_agents.retrieval.validity import annotate


def kept_paths(search: Search, state: Mapping[str, Any]) -> dict[str, list[str]]:
    """Turn id -> the path to it through the first kept event (keeping order) it belongs to."""
    snap = search.snap
    out: dict[str, list[str]] = {}
    for it in sorted((state.get("kept") or {}).values(), key=lambda it: list(it["order"])):
        i = snap.index.get(it["node"])
        for t in search.view.turns.get(i, []) if i is not None else []:
            tid = snap.attrs[t]["turn_id"]
            out.setdefault(tid, [*(it.get("path") or [it["node"]]), f"turn:{tid}"])
    return out


def explored_turns(search: Search, state: Mapping[str, Any], exclude: set[str]) -> list[str]:
    """One turn of each kept event, in keeping order, skipping the turns in ``exclude`` (an event
    whose chosen turn is excluded adds nothing): the turn that best matches the subgoals the
    event was kept for (``supports``: the seed cannot know which turn of an event a search
    needed; ties by the order below), else its best turn (one-shot score, then cosine to the
    question)."""
    snap, out, seen = search.snap, [], set(exclude)
    for it in sorted((state.get("kept") or {}).values(), key=lambda it: list(it["order"])):
        i = snap.index.get(it["node"])
        turns = search.scorer.turn_order(i, search.qv) if i is not None else []
        turns = for_subgoals(search, turns, [j for j in it.get("supports") or [] if j != search.q_index])
        tid = snap.attrs[turns[0]]["turn_id"] if turns else None
        if tid is not None and tid not in seen:
            seen.add(tid)
            out.append(tid)
    return out


def for_subgoals(search: Search, turns: list[int], goals: list[int]) -> list[int]:
    """``turns`` re-sorted by their best exact cosine to the subgoals ``goals`` (stable: ties keep
    the given order); unchanged without such subgoals or comparable vectors."""
    h, vecs = search.scorer.h, search.snap.vectors()
    goals = [j for j in goals if 0 <= j < len(h)]
    if not goals or len(turns) < 2 or vecs.ndim != 2 or vecs.shape[1] != h.shape[1]:
        return turns
    best = [max(float(exact_dots(vecs, h, [t], np.full(1, j, dtype=np.int64))[0]) for j in goals) for t in turns]
    return [turns[n] for n in sorted(range(len(turns)), key=lambda n: (-round(best[n], 6), n))]


def ranking(search: Search, state: Mapping[str, Any], ctx: NavigatorContext) -> tuple[list[Evidence], list[Evidence]]:
    """(every ranked turn, the ranking's turns of kept events): the seed ranking with the
    explored turns fused in after its ``seed_keep`` first turns; the first ``FINISH_HEAD`` finished as
    every retriever's head is (``registry.retrieve``), the rest of the pool following, marked."""
    snap, store = search.snap, search.res.store
    seed = [(str(t), float(s)) for t, s in state.get("one_shot") or [] if f"turn:{t}" in snap.index]
    # The fusion and the finishing step work on a fixed head, not on the k asked, so the first k
    # items of a request for k are the first k of a request for more (``model.depth``).
    head_n = FINISH_HEAD
    keep = min(ctx.seed_keep, head_n)
    found = explored_turns(search, state, {t for t, _ in seed[:head_n]})[: max(0, head_n - keep)]
    at = seed[keep][1] if keep < len(seed) else (seed[-1][1] if seed else 0.0)
    fused = [*seed[:keep], *((t, at) for t in found)]
    moved = set(found)
    fused += [(t, s) for t, s in seed[keep:] if t not in moved]
    paths = kept_paths(search, state)
    out: list[Evidence] = []
    for tid, score in fused:
        item = turn_evidence(snap, tid, score, retriever="navigator", path=paths.get(tid) or [f"turn:{tid}"])
        if item is not None:
            out.append(item)
    head = finish(state.get("question") or "", store, out[:RANK_DEPTH])
    shown = {ev.node_id for ev in head}
    out = head + annotate(snap, [ev for ev in out[RANK_DEPTH:] if ev.node_id not in shown])
    return out, [ev for ev in out if ev.turn_ids and ev.turn_ids[0] in paths]
