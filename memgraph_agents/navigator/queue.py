"""The global priority queue and wave scheduling (CompassMem's coordination).

Priority of a candidate u = max over *unsatisfied* subgoals j of its similarity to h_j
(CompassMem eq. 11), relative to the best similarity localisation found for h_j so subgoals
are comparable. The coordinator recomputes priorities whenever subgoals become satisfied.

Scheduling claims nodes before any explorer runs: a wave's frontiers are disjoint and the
claimed ids enter ``visited`` in the same update, so parallel explorers can never expand
one node twice. Explorers per wave are limited by the step budget and, with an LLM, by the
calls left: each explorer is one call (plus a repair turn when the budget allows it).
"""

from __future__ import annotations

import math

from memgraph_agents.navigator.state import Assignment, QueueEntry


def priority(rels: list[float], satisfied: list[bool]) -> float:
    """Best relative similarity to an open subgoal; with every subgoal supported the search is
    filling the evidence the caller asked for, and every subgoal counts."""
    open_ = [r for r, s in zip(rels, satisfied) if not s] or list(rels)
    return max(open_) if open_ else 0.0


def reprioritise(
    queue: dict[str, QueueEntry], satisfied: list[bool], visited: set[str], floor: float
) -> tuple[dict[str, QueueEntry], list[str]]:
    """(entries whose priority changed, ids to drop: visited, or below ``floor``)."""
    changed: dict[str, QueueEntry] = {}
    drop: list[str] = []
    for node, e in queue.items():
        p = priority(e.get("rels", []), satisfied) if e.get("relation") != "start" else e.get("priority", 0.0)
        if node in visited or p < floor:
            drop.append(node)
        elif abs(p - e.get("priority", 0.0)) > 1e-9:
            changed[node] = {**e, "priority": p}
    return changed, drop


def order(entries: list[QueueEntry]) -> list[QueueEntry]:
    return sorted(entries, key=lambda e: (-e.get("priority", 0.0), e["node"]))


def schedule(
    entries: list[QueueEntry],
    *,
    n_explorers: int,
    frontier: int,
    steps_left: int,
    calls_left: int | None,
    one_per_explorer: bool = False,
) -> list[Assignment]:
    """Split the best queue entries into at most ``n_explorers`` disjoint frontiers.

    ``calls_left`` is ``None`` offline (no LLM cost: every explorer gets nodes while there are
    some). With an LLM, as few explorers as cover the wave (``frontier`` nodes each), and a
    repair allowance only from calls that are left over.
    """
    ranked = order(entries)
    if steps_left <= 0 or not ranked or (calls_left is not None and calls_left <= 0):
        return []
    if calls_left is None or one_per_explorer:
        n = min(n_explorers, len(ranked))
    else:
        n = min(n_explorers, calls_left, math.ceil(min(len(ranked), n_explorers * frontier) / frontier))
    take = ranked[: min(len(ranked), n * frontier, steps_left)]
    n = min(n, len(take))
    out: list[Assignment] = []
    spare = 0 if calls_left is None else calls_left - n
    for i in range(n):
        mine = list(range(i, len(take), n))  # round-robin: every explorer gets a fair mix
        allowance = 0
        if calls_left is not None:
            allowance = 1 + (1 if spare > 0 else 0)
            spare -= allowance - 1
        out.append(Assignment(explorer=i, entries=[take[j] for j in mine], ranks=mine, allowance=allowance))
    return out
