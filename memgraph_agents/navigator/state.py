"""The navigator's LangGraph state and its explicit reducers (explorers run in parallel and merge through them).

Parallel explorers (``Send``) write the same keys in one super-step; every such key has a
reducer that is order-independent, so the merge does not depend on which explorer finished
first. Node ids (not snapshot indices) are stored, so the state is plain JSON-able data.

- ``satisfied``  elementwise OR (a subgoal, once supported, stays supported);
- ``refs``       elementwise max (best similarity seen per subgoal);
- ``visited``    set union (order of first claim kept);
- ``kept``       union by node id: the earliest keep wins its place, supports are unioned;
- ``queue``      the global priority queue, updated by ``push`` / ``set`` / ``pop`` ops;
- ``trace``      concatenation (each event carries round/wave/explorer/rank to sort by);
- ``counters``   sums (LLM calls, tokens, steps, fallbacks).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from typing_extensions import TypedDict

from memgraph_agents.llm.usage import add_counts


class QueueEntry(TypedDict, total=False):
    node: str
    priority: float  # max over unsatisfied subgoals of the relative similarity
    rels: list[float]  # relative similarity per subgoal (priority is recomputed from it)
    os: float  # one-shot score of the node's best turn (normalised)
    parent: str | None
    relation: str  # how it was reached: "start", "follow_up", "similar", 'shares "x"'
    path: list[str]  # node ids from the start node to this one
    round: int


class KeptItem(TypedDict, total=False):
    node: str
    order: list[int]  # [round, wave, rank]: the keeping order
    supports: list[int]  # subgoal indices (0-based) the node supports
    action: str  # EXPAND | ANSWER
    reason: str
    score: float
    explorer: int
    path: list[str]


class Assignment(TypedDict):
    explorer: int
    entries: list[QueueEntry]
    ranks: list[int]
    allowance: int  # LLM calls this explorer may make (repair included); 0 offline


class QueueOp(TypedDict, total=False):
    push: dict[str, QueueEntry]  # add, or raise an entry's priority
    set: dict[str, QueueEntry]  # replace (re-prioritisation by the coordinator)
    pop: list[str]  # remove (assigned to an explorer, visited, or dropped)


def or_merge(a: list[bool] | None, b: list[bool] | None) -> list[bool]:
    if not a or b is None or len(a) != len(b):
        return list(b if b is not None else a or [])
    return [x or y for x, y in zip(a, b)]


def max_merge(a: list[float] | None, b: list[float] | None) -> list[float]:
    if not a or b is None or len(a) != len(b):
        return list(b if b is not None else a or [])
    return [max(x, y) for x, y in zip(a, b)]


def union(a: list[str] | None, b: list[str] | None) -> list[str]:
    return list(dict.fromkeys([*(a or []), *(b or [])]))


def merge_kept(a: dict[str, KeptItem] | None, b: dict[str, KeptItem] | None) -> dict[str, KeptItem]:
    out = dict(a or {})
    for node, item in (b or {}).items():
        old = out.get(node)
        if old is None:
            out[node] = item
            continue
        first, second = (old, item) if list(old["order"]) <= list(item["order"]) else (item, old)
        out[node] = {**first, "supports": sorted(set(first.get("supports", [])) | set(second.get("supports", [])))}
    return out


def queue_reducer(a: dict[str, QueueEntry] | None, op: QueueOp | None) -> dict[str, QueueEntry]:
    out = dict(a or {})
    if not op:
        return out
    for node, e in (op.get("push") or {}).items():
        if node not in out or e.get("priority", 0.0) > out[node].get("priority", 0.0):
            out[node] = e
    out.update(op.get("set") or {})
    for node in op.get("pop") or []:
        out.pop(node, None)
    return out


class NavInput(TypedDict, total=False):
    """What a caller (or Studio's input form) gives the graph; the rest of the state is the run's."""

    question: str
    k: int  # evidence items wanted (the retriever's k)


class NavState(TypedDict, total=False):
    # input
    question: str
    k: int  # evidence items wanted (the retriever's k)
    # planning
    subgoals: list[str]
    satisfied: Annotated[list[bool], or_merge]
    query: str  # this round's query: the question, then the refined query
    round: int
    wave: int
    # localisation
    one_shot: list[list[Any]]  # [[turn id, normalised score]] for the question, best first
    candidates: list[list[Any]]  # round-0 localisation candidates [[event id, score]] (fallback)
    refs: Annotated[list[float], max_merge]
    # exploration
    queue: Annotated[dict[str, QueueEntry], queue_reducer]
    visited: Annotated[list[str], union]
    assignments: list[Assignment]
    kept: Annotated[dict[str, KeptItem], merge_kept]
    next: str  # explore | refine | respond: the coordinator's routing decision
    # output
    trace: Annotated[list[dict[str, Any]], operator.add]
    counters: Annotated[dict[str, float], add_counts]
    answer: str | None
    evidence: list[dict[str, Any]]  # ``Evidence.model_dump(mode="json")`` of the kept evidence
    ranking: list[dict[str, Any]]  # the final turn ranking, best first (its first k: the evidence), as JSON
    kept_ranking: list[dict[str, Any]]  # the ranking's turns of kept events, as JSON
    started: float
    wall_ms: float


class ExplorerInput(TypedDict, total=False):
    """What ``Send`` hands one explorer: its frontier and a read-only view of the search."""

    question: str
    k: int
    query: str
    subgoals: list[str]
    satisfied: list[bool]
    refs: list[float]
    one_shot: list[list[Any]]
    kept: dict[str, KeptItem]
    visited: list[str]
    round: int
    wave: int
    assignment: Assignment
