"""Offline policy (docs/architecture.md, "Retrieval"): embedding-driven planning, keeping and refinement.

- plan: the question plus its clauses (split at "and", ";", "," before a wh-word…);
- keep a node when, for an unsatisfied subgoal, its relative similarity clears ``keep_sim``
  or (for the question itself) its one-shot score clears ``keep_os``; both are relative to
  what localisation found, so the thresholds mean the same for every question;
- a subgoal is satisfied when a kept node matches it nearly as well as the best match
  localisation found (``satisfy_sim``), or for the question when the node is near the top of
  the one-shot ranking (``satisfy_os``);
- follow the (≤ 3) neighbours with the best priority above ``next_floor``;
- refined query: the text of the unsatisfied subgoals.

Decisions for a whole frontier use the subgoal status at the start of the wave, as an LLM
deciding the frontier in one call does; that keeps parallel explorers deterministic.
"""

from __future__ import annotations

import re

from memgraph_agents.model.ranking import order_best_first
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.search import Decision, Search
from memgraph_agents.navigator.state import QueueEntry
from memgraph_agents.retrieval.event_view import Neighbour

_WH = r"(?:what|when|where|who|whom|which|why|how)"
_AUX = r"(?:did|does|do|is|was|were|has|had)"
_SPLIT = re.compile(rf"\s*(?:;|\?\s+|,?\s+and\s+(?=(?:{_WH}|{_AUX})\b)|,\s+(?={_WH}\b)|\s+as well as\s+)\s*", re.I)
_WORD = re.compile(r"[A-Za-z0-9']+")
MAX_SUBGOALS = 5


def plan(question: str) -> list[str]:
    """The question plus its clauses (each with at least three words)."""
    q = " ".join(question.split())
    clauses = [c.strip(" ,.?") for c in _SPLIT.split(q)]
    parts = [c for c in clauses if len(_WORD.findall(c)) >= 3]
    out = [q] + (parts if len(parts) > 1 else [])
    return list(dict.fromkeys(out))[:MAX_SUBGOALS]


def refine(subgoals: list[str], satisfied: list[bool], question: str) -> str:
    open_ = [s for s, ok in zip(subgoals, satisfied) if not ok]
    return " ".join(open_) if open_ else question


def decide(
    search: Search,
    entries: list[QueueEntry],
    satisfied: list[bool],
    ctx: NavigatorContext,
    visited: set[str],
    source: str = "offline",
) -> list[Decision]:
    """One decision per frontier node (the search is for the open subgoals only: those the
    seed ranking did not meet)."""
    idx = [search.idx(e["node"]) for e in entries]
    known = [i for i in idx if i is not None]
    dense = dict(zip(known, search.scorer.rel(known)))
    qi = search.q_index
    frontier = {e["node"] for e in entries}
    out = []
    for e, i in zip(entries, idx):
        if i is None:
            out.append(Decision(e["node"], "SKIP", [], [], "node no longer in memory", source, {}))
            continue
        sims = dense[i]
        os_ = search.scorer.os_score(i)
        open_ = [j for j, ok in enumerate(satisfied) if not ok]
        by_os = qi is not None and qi in open_ and os_ >= ctx.keep_os
        best_open = max((float(sims[j]) for j in open_), default=0.0)
        by_sim = best_open >= ctx.keep_sim
        scores = {"one_shot": round(os_, 3), "sim": round(best_open, 3)}
        if not (by_os or by_sim):
            why = f"not close to an open subgoal (sim {best_open:.2f}, one-shot {os_:.2f})"
            out.append(Decision(e["node"], "SKIP", [], [], why, source, scores))
            continue
        supports = [
            j for j in range(len(satisfied)) if sims[j] >= ctx.satisfy_sim or (j == qi and os_ >= ctx.satisfy_os)
        ]
        after = [ok or j in supports for j, ok in enumerate(satisfied)]
        why = f"high in the one-shot ranking ({os_:.2f})" if by_os else f"close to an open subgoal ({best_open:.2f})"
        nxt = follow(search, i, after, visited | frontier, ctx.next_floor)
        if all(after):
            out.append(Decision(e["node"], "ANSWER", [], supports, why + "; every subgoal supported", source, scores))
            continue
        out.append(Decision(e["node"], "EXPAND", nxt, supports, why, source, scores))
    return out


def follow(search: Search, i: int, satisfied: list[bool], exclude: set[str], floor: float, limit: int = 3) -> list[str]:
    """The best unvisited neighbours by priority (max relative similarity to open subgoals)."""
    nbs: list[Neighbour] = [n for n in search.view.neighbours.get(i, []) if search.snap.ids[n.node] not in exclude]
    if not nbs:
        return []
    r = search.rels([n.node for n in nbs])
    open_ = [j for j, ok in enumerate(satisfied) if not ok] or list(range(len(satisfied)))
    pr = r[:, open_].max(axis=1)
    order = order_best_first(pr, search.snap.id_rank[[n.node for n in nbs]])  # near-ties by node id
    return [search.snap.ids[nbs[k].node] for k in order[:limit] if pr[k] >= floor]
