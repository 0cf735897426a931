"""The navigator graph's nodes (wired in ``memgraph_agents.navigator.graph``).

    planner → localize ⇉ explore (×N, Send) → coordinate ─┬─⇉ explore   (keep exploring)
                 ↑                                         ├─→ refine → localize
                 └─────────────────────────────────────────┴─→ respond

Each node is a function of the state (or of its ``Send`` payload), the run ``config``
(live store / model) and the ``runtime`` (context = parameters, stream writer). Routing
decisions are taken by ``localize`` / ``coordinate`` and written to ``next`` with their
reason in the trace; ``dispatch`` only reads them, so every decision is visible.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from memgraph_agents.aio import off_loop
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.navigator import budget
from memgraph_agents.navigator.frontier import record_decisions, start_entries
from memgraph_agents.navigator.policies import offline
from memgraph_agents.navigator.policies.choose import policy_for
from memgraph_agents.navigator.queue import reprioritise, schedule
from memgraph_agents.navigator.resources import embed_texts, resources
from memgraph_agents.navigator.search import build_search
from memgraph_agents.navigator.seeding import merged_status, seed_event, seeded_candidates
from memgraph_agents.navigator.state import ExplorerInput, NavState, QueueEntry
from memgraph_agents.navigator.trace import emit, event
from memgraph_agents.retrieval.seeds import query_texts


def _usage(u: LLMUsage | None, **extra: float) -> dict[str, float]:
    out: dict[str, float] = dict(extra)
    if u is not None:
        s = u.snapshot()
        out.update(
            llm_calls=s["calls"],
            llm_failures=s["failures"],
            llm_retries=s["retries"],
            input_tokens=s["input_tokens"],
            output_tokens=s["output_tokens"],
        )
    return out


async def planner(state: NavState, config, runtime) -> dict:
    """The question's subgoals (the policy's plan), every query-side text embedded once."""
    question = " ".join(state["question"].split())
    if not question:
        raise ValueError("the question is empty")
    # Every query-side text this search embeds (question, subgoals, their argument mentions):
    # one model call; localisation, explorers and the seed retrievers find them in the LRU.
    # Offline the plan is the offline policy's, so its texts go with the resources (one hand-off).
    first = [question, *offline.plan(question)]
    res, prefetched = await off_loop(_resources_prefetched, runtime, config, first)
    allow = budget.allowance(budget.calls_left(state, res.context), keep=2)
    chosen = await policy_for(res).plan(question, allowance=allow)
    if not prefetched or chosen.value != first[1:]:  # a model's subgoals: embedded now
        await off_loop(_prefetch, res, [question, *chosen.value])
    events = [*chosen.events, event("plan", source=chosen.source, subgoals=chosen.value)]
    return {
        "question": question,
        "subgoals": chosen.value,
        "satisfied": [False] * len(chosen.value),
        "query": question,
        "round": 0,
        "wave": 0,
        "started": state.get("started") or time.time(),
        "trace": emit(runtime, events),
        "counters": _usage(chosen.usage),
    }


def _resources_prefetched(runtime, config, goals: list[str]):
    """The run's resources and, offline, ``goals``' query texts embedded (``_prefetch``), in one
    hand-off; whether they were."""
    res = resources(runtime, config)
    if res.offline:
        _prefetch(res, goals)
    return res, res.offline


def _with_resources(runtime, config, fn, state, *args):
    """The run's resources and ``fn(state, res, *args)``, in one hand-off off the loop."""
    res = resources(runtime, config)
    return res, fn(state, res, *args)


def _prefetch(res, goals: list[str]) -> None:
    """Embed every query-side text of the search (goals and their mentions) in one call (blocking):
    localisation, explorers and the seed retrievers then find them in the LRU."""
    snap = res.store.snapshot()
    embed_texts(res.store.embedder, list(dict.fromkeys(t for g in goals for t in query_texts(g, snap))))


async def localize(state: NavState, config, runtime) -> dict:
    """Candidates for this round's query, start nodes (the policy's), and the first wave of explorers."""
    query = state.get("query") or state["question"]
    res, (search, cands, update) = await off_loop(_with_resources, runtime, config, seeded_candidates, state, query)
    ctx, rnd, where = (
        res.context,
        state.get("round", 0),
        {"round_": state.get("round", 0), "wave": state.get("wave", 0)},
    )
    satisfied = merged_status(state, update, len(search.subgoals))
    if rnd == 0 and all(satisfied):  # an easy question: the seed ranking is the answer
        events = [seed_event(update, state.get("k") or ctx.top_k or 10, query, where)]
        update.update(_route(events, state, "respond", "the seed ranking meets every subgoal", []))
        return {**update, "trace": emit(runtime, events)}
    allow = 0 if res.offline else budget.allowance(budget.explore_calls(state, ctx), keep=1)
    chosen = await policy_for(res).select_start(search, cands, satisfied=satisfied, allowance=allow, where=where)
    starts = start_entries(search, cands, chosen.value, satisfied, rnd)
    ids = search.snap.ids
    if rnd == 0:
        update["candidates"] = [[ids[c], round(s, 4)] for c, s in cands]
    events = [
        *chosen.events,
        event(
            "localize",
            **where,
            query=query,
            source=chosen.source,
            candidates=[ids[c] for c, _ in cands],
            start=[e["node"] for e in starts],
            scores={ids[c]: round(s, 3) for c, s in cands},
        ),
    ]
    visited = set(state.get("visited") or [])
    pending = [e for n, e in (state.get("queue") or {}).items() if n not in visited]
    counters = _usage(chosen.usage)
    used = budget.calls_used(state) + counters.get("llm_calls", 0)
    spent = {**state, "satisfied": satisfied, "counters": {**(state.get("counters") or {}), "llm_calls": used}}
    update.update(_dispatch(spent, ctx, res.offline, pending + starts, events, rnd, "no candidate to start from"))
    return {**update, "trace": emit(runtime, events), "counters": counters}


def _dispatch(
    state: Mapping[str, Any],
    ctx,
    offline_mode: bool,
    entries: list[QueueEntry],
    events: list,
    rnd: int,
    reason_empty: str,
) -> dict:
    """Assign the next wave (claiming its nodes) or decide where to go instead: every subgoal
    supported (by the seed or by kept evidence) ends the search."""
    satisfied = state.get("satisfied") or []
    wave = state.get("wave", 0) + 1
    if satisfied and all(satisfied):
        return _route(events, state, "respond", "every subgoal is supported", entries)
    steps_left = ctx.max_steps - budget.steps_used(state)
    calls = None if offline_mode else budget.explore_calls(state, ctx)
    assignments = schedule(
        entries, n_explorers=ctx.n_explorers, frontier=ctx.frontier, steps_left=steps_left, calls_left=calls
    )
    if assignments:
        claimed = [e["node"] for a in assignments for e in a["entries"]]
        events.append(
            event(
                "schedule",
                round_=rnd,
                wave=wave,
                frontiers=[
                    {"explorer": a["explorer"], "nodes": [e["node"] for e in a["entries"]]} for a in assignments
                ],
                queue=len(entries) - len(claimed),
            )
        )
        rest = {e["node"]: e for e in entries if e["node"] not in claimed}
        return {
            "assignments": assignments,
            "visited": claimed,
            "wave": wave,
            "next": "explore",
            "queue": {"set": rest, "pop": claimed},
        }
    if steps_left <= 0:
        return _route(events, state, "respond", "step budget exhausted", entries)
    why = "LLM call budget for exploring exhausted" if entries and calls is not None and calls <= 0 else reason_empty
    if budget.can_refine(state, ctx, offline_mode):
        open_ = [f"S{j + 1}" for j, ok in enumerate(satisfied) if not ok]
        return _route(events, state, "refine", f"{why}; open: {', '.join(open_)}", entries)
    last = "no refinement left" if state.get("round", 0) >= ctx.max_refinements else "no budget to refine"
    return _route(events, state, "respond", f"{why}; {last}", entries)


def _route(events: list, state: Mapping[str, Any], to: str, reason: str, entries: list[QueueEntry]) -> dict:
    events.append(event("route", round_=state.get("round", 0), wave=state.get("wave", 0), to=to, reason=reason))
    return {"assignments": [], "next": to, "queue": {"pop": [e["node"] for e in entries]}}


async def explore(inp: ExplorerInput, config, runtime) -> dict:
    """One explorer: the policy decides its whole frontier (one LLM call, or offline); recorded."""
    res, search = await off_loop(_with_resources, runtime, config, build_search, inp)
    a = inp["assignment"]
    where = {"round_": inp.get("round", 0), "wave": inp.get("wave", 0), "explorer": a["explorer"]}
    satisfied = list(inp.get("satisfied") or [False] * len(search.subgoals))
    visited = set(inp.get("visited") or [])
    chosen = await policy_for(res).explore(
        search,
        a["entries"],
        satisfied=satisfied,
        kept=inp.get("kept") or {},
        visited=visited,
        allowance=0 if res.offline else a["allowance"],
        where=where,
    )
    got = record_decisions(search, chosen.value, a, satisfied, visited, where)
    return {
        "kept": got.kept,
        "satisfied": got.status,
        "queue": {"push": got.pushes},
        "trace": emit(runtime, [*chosen.events, *got.events]),
        "counters": _usage(chosen.usage, steps=len(chosen.value)),
    }


async def coordinate(state: NavState, config, runtime) -> dict:
    """After a wave: re-prioritise the merged queue, then schedule the next wave or route."""
    res = await off_loop(resources, runtime, config)
    ctx, rnd = res.context, state.get("round", 0)
    satisfied = state.get("satisfied") or []
    visited = set(state.get("visited") or [])
    changed, drop = reprioritise(state.get("queue") or {}, satisfied, visited, ctx.next_floor)
    entries = [changed.get(n, e) for n, e in (state.get("queue") or {}).items() if n not in drop]
    events: list = []
    update = _dispatch(
        state,
        ctx,
        res.offline,
        entries,
        events,
        rnd,
        reason_empty="queue exhausted",
    )
    update["queue"] = {**update["queue"], "pop": sorted({*update["queue"].get("pop", []), *drop})}
    update["trace"] = emit(runtime, events)
    return update


def dispatch(state: Mapping[str, Any]) -> list[ExplorerInput] | str:
    """Read the decision taken by ``localize`` / ``coordinate``: a wave of explorer inputs (one
    ``Send`` each in the graph), or the next node."""
    if state.get("next") == "explore" and state.get("assignments"):
        shared = {
            k: state.get(k)
            for k in (
                "question",
                "k",
                "query",
                "subgoals",
                "satisfied",
                "refs",
                "one_shot",
                "kept",
                "visited",
                "round",
                "wave",
            )
        }
        return [{**shared, "assignment": a} for a in state["assignments"]]  # type: ignore[typeddict-item]
    nxt = state.get("next")
    return nxt if nxt is not None and nxt in ("refine", "respond") else "respond"


async def refine(state: NavState, config, runtime) -> dict:
    """Gap-aware refinement: the policy's new query aimed at the unsatisfied subgoals; next round."""
    res = await off_loop(resources, runtime, config)
    where = {"round_": state.get("round", 0), "wave": state.get("wave", 0)}
    allow = budget.allowance(budget.calls_left(state, res.context), keep=2)
    chosen = await policy_for(res).refine(state, satisfied=state.get("satisfied") or [], allowance=allow, where=where)
    rnd = state.get("round", 0) + 1
    events = [
        *chosen.events,
        event("refine", round_=rnd, wave=state.get("wave", 0), source=chosen.source, query=chosen.value),
    ]
    return {"query": chosen.value, "round": rnd, "trace": emit(runtime, events), "counters": _usage(chosen.usage)}
