"""The search's bookkeeping: queue entries for start nodes and followed neighbours, and what an
explorer's decisions record (kept evidence, pushed neighbours, subgoal status, trace events).

Pure functions of the search view and the decisions, so the ``explore`` and ``localize`` nodes
only ask their policy, record, and return.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memgraph_agents.navigator.queue import priority
from memgraph_agents.navigator.search import Decision, Search
from memgraph_agents.navigator.state import Assignment, KeptItem, QueueEntry
from memgraph_agents.navigator.trace import event


def queue_entry(
    search: Search,
    i: int,
    rels,
    satisfied: list[bool],
    *,
    parent: str | None,
    relation: str,
    path: list[str],
    rnd: int,
    prio: float | None = None,
) -> QueueEntry:
    """Node ``i`` as a queue entry: its relative similarity per subgoal and its priority."""
    r = [round(float(x), 4) for x in rels]
    return QueueEntry(
        node=search.snap.ids[i],
        rels=r,
        priority=priority(r, satisfied) if prio is None else prio,
        os=round(search.scorer.os_score(i), 4),
        parent=parent,
        relation=relation,
        path=path,
        round=rnd,
    )


def start_entries(
    search: Search, cands: list[tuple[int, float]], start: list[int], satisfied: list[bool], rnd: int
) -> list[QueueEntry]:
    """The chosen start events as queue entries, prioritised by their localisation score."""
    top = (cands[0][1] if cands else 1.0) or 1.0
    score = dict(cands)
    return [
        queue_entry(
            search,
            i,
            r,
            satisfied,
            prio=round(score[i] / top, 4),
            parent=None,
            relation="start",
            path=[search.snap.ids[i]],
            rnd=rnd,
        )
        for i, r in zip(start, search.rels(start) if start else [])
    ]


@dataclass
class Recorded:
    """What one explorer's decisions leave in the state."""

    kept: dict[str, KeptItem]
    pushes: dict[str, QueueEntry]
    status: list[bool]
    events: list[dict[str, Any]]


def _decision_event(
    search: Search, d: Decision, entry: QueueEntry, rank: int, status: list[bool], where: Mapping[str, Any]
) -> dict[str, Any]:
    i = search.idx(d.node)
    return event(
        "decision",
        **where,
        rank=rank,
        node=d.node,
        action=d.action,
        reason=d.reason,
        source=d.source,
        scores=d.scores or {"priority": round(entry.get("priority", 0.0), 3)},
        subgoals=status,
        supports=d.supports,
        next=d.next or None,
        via=entry.get("relation"),
        date=search.date(i) if i is not None else None,
        snippet=search.text(i, 60) if i is not None else None,
    )


def _pushes(search: Search, d: Decision, entry: QueueEntry, status: list[bool], visited: set[str], rnd: int):
    """The unvisited neighbours ``d`` names as next, as queue entries labelled by their edge."""
    i = search.idx(d.node)
    nbs = {search.snap.ids[n.node]: n for n in search.view.neighbours.get(i, [])} if i is not None else {}
    nxt = [j for n in d.next if n not in visited and (j := search.idx(n)) is not None]
    base = list(entry.get("path") or [d.node])
    for n, r in zip(nxt, search.rels(nxt) if nxt else []):
        nid = search.snap.ids[n]
        label = nbs[nid].relation if nid in nbs else "named"
        yield queue_entry(search, n, r, status, parent=d.node, relation=label, path=[*base, nid], rnd=rnd)


def record_decisions(
    search: Search,
    decisions: Sequence[Decision],
    assignment: Assignment,
    satisfied: list[bool],
    visited: set[str],
    where: Mapping[str, Any],
) -> Recorded:
    """Walk the decisions in frontier order: each updates the subgoal status, is traced, and
    (unless SKIP) keeps its node and queues the neighbours it names (the higher priority wins)."""
    out = Recorded({}, {}, list(satisfied), [])
    rnd, who = int(where.get("round_", 0)), int(where.get("explorer", 0))
    for d, entry, rank in zip(decisions, assignment["entries"], assignment["ranks"]):
        out.status = [ok or j in d.supports for j, ok in enumerate(out.status)]
        out.events.append(_decision_event(search, d, entry, rank, out.status, where))
        if d.action == "SKIP":
            continue
        out.kept[d.node] = KeptItem(
            node=d.node,
            order=[rnd, int(where.get("wave", 0)), rank],
            supports=d.supports,
            action=d.action,
            reason=d.reason,
            score=float(entry.get("priority", 0.0)),
            explorer=who,
            path=list(entry.get("path") or [d.node]),
        )
        for pushed in _pushes(search, d, entry, out.status, visited, rnd):
            nid = pushed["node"]
            if nid not in out.pushes or pushed["priority"] > out.pushes[nid]["priority"]:
                out.pushes[nid] = pushed
    return out
