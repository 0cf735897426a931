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

import numpy as np

from memgraph_agents.aio import off_loop
from memgraph_agents.errors import LLMError
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.depth import FINISH_HEAD
from memgraph_agents.navigator import budget
from memgraph_agents.navigator.localize import candidates, one_shot, rank_events, seed_meets, select_start
from memgraph_agents.navigator.policies import offline
from memgraph_agents.navigator.queue import priority, reprioritise, schedule
from memgraph_agents.navigator.resources import embed_texts, resources
from memgraph_agents.navigator.search import Search, build_search
from memgraph_agents.navigator.state import ExplorerInput, KeptItem, NavState, QueueEntry
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


def _fallback(role: str, err: Exception, **where: Any) -> dict[str, Any]:
    why = " ".join(str(err).split())[:200]
    return event("fallback", reason=f"{role}: {type(err).__name__}: {why}", role=role, llm_failed=True, **where)


async def planner(state: NavState, config, runtime) -> dict:
    question = " ".join(state["question"].split())
    if not question:
        raise ValueError("the question is empty")
    usage, source, events = None, "offline", []
    subgoals = offline.plan(question)
    res = await off_loop(_resources_prefetched, runtime, config, [question, *subgoals])  # one hand-off offline
    allow = budget.allowance(budget.calls_left(state, res.context), keep=2)
    if not res.offline and allow:
        from memgraph_agents.navigator.policies import llm as llm_policy  # LangChain's chat stack: only with a model

        usage = LLMUsage()
        try:
            search = await off_loop(build_search, {"question": question}, res, subgoals=[question])
            subgoals = await llm_policy.plan(search, model=res.llm, allowance=allow, usage=usage, timeout=res.timeout)
            source = "llm"
        except LLMError as e:
            events.append(_fallback("planner", e))
    if not res.offline:  # the model's subgoals (offline: embedded with the resources already)
        await off_loop(_prefetch, res, [question, *subgoals])
    events.append(event("plan", source=source, subgoals=subgoals))
    return {
        "question": question,
        "subgoals": subgoals,
        "satisfied": [False] * len(subgoals),
        "query": question,
        "round": 0,
        "wave": 0,
        "started": state.get("started") or time.time(),
        "trace": emit(runtime, events),
        "counters": _usage(usage),
    }


def _resources_prefetched(runtime, config, goals: list[str]):
    """The run's resources; offline, with ``goals``' query texts embedded too (``_prefetch``)."""
    res = resources(runtime, config)
    if res.offline:
        _prefetch(res, goals)
    return res


def _prefetch(res, goals: list[str]) -> None:
    """Embed every query-side text of the search (goals and their mentions) in one call (blocking):
    localisation, explorers and the seed retrievers then find them in the LRU."""
    snap = res.store.snapshot()
    embed_texts(res.store.embedder, list(dict.fromkeys(t for g in goals for t in query_texts(g, snap))))


def _with_resources(runtime, config, fn, state, *args):
    """The run's resources and ``fn(state, res, *args)``, in one hand-off off the loop."""
    res = resources(runtime, config)
    return res, fn(state, res, *args)


def _entry(
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


def _candidates(state: Mapping[str, Any], res, query: str) -> tuple[Search, list[tuple[int, float]], dict[str, Any]]:
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


async def localize(state: NavState, config, runtime) -> dict:
    """Candidates for this round's query, start nodes, and the first wave of explorers."""
    query = state.get("query") or state["question"]
    res, (search, cands, update) = await off_loop(_with_resources, runtime, config, _candidates, state, query)
    ctx, rnd, wave = res.context, state.get("round", 0), state.get("wave", 0)
    snap, ids = search.snap, [c for c, _ in cands]
    satisfied = list(state.get("satisfied") or [False] * len(search.subgoals))
    if "satisfied" in update:
        satisfied = [a or b for a, b in zip(satisfied, update["satisfied"])]
    if rnd == 0 and all(satisfied):  # an easy question: the seed ranking is the answer
        k = state.get("k") or ctx.top_k or 10
        seed = [(f"turn:{tid}", score) for tid, score in update.get("one_shot", [])[:k]]
        events = [
            event(
                "localize",
                round_=rnd,
                wave=wave,
                query=query,
                source="seed",
                candidates=[n for n, _ in seed],  # what the run answers with: inspectable like any path
                start=[],
                scores={n: round(sc, 3) for n, sc in seed},
            ),
        ]
        update.update(_route(events, state, "respond", "the seed ranking meets every subgoal", []))
        update["trace"] = emit(runtime, events)
        return update
    usage, events, source = None, [], "score"
    start = select_start(cands, search.view, ctx.n_explorers if res.offline else ctx.max_start)
    allow = 0 if res.offline else budget.allowance(budget.explore_calls(state, ctx), keep=1)
    if ctx.start_selection == "llm" and len(cands) > 1 and allow:
        from memgraph_agents.navigator.policies import llm as llm_policy  # LangChain's chat stack: only with a model

        usage = LLMUsage()
        try:
            start = await llm_policy.select_start(
                search,
                ids,
                satisfied=satisfied,
                max_start=ctx.max_start,
                model=res.llm,
                allowance=allow,
                usage=usage,
                timeout=res.timeout,
            )
            source = "llm"
        except LLMError as e:
            events.append(_fallback("start selection", e, round_=rnd, wave=wave))
    top = (cands[0][1] if cands else 1.0) or 1.0
    score = dict(cands)
    starts = [
        _entry(
            search,
            i,
            r,
            satisfied,
            prio=round(score[i] / top, 4),
            parent=None,
            relation="start",
            path=[snap.ids[i]],
            rnd=rnd,
        )
        for i, r in zip(start, search.rels(start) if start else [])
    ]
    if rnd == 0:
        update["candidates"] = [[snap.ids[c], round(s, 4)] for c, s in cands]
    events.append(
        event(
            "localize",
            round_=rnd,
            wave=wave,
            query=query,
            source=source,
            candidates=[snap.ids[c] for c in ids],
            start=[e["node"] for e in starts],
            scores={snap.ids[c]: round(s, 3) for c, s in cands},
        )
    )
    visited = set(state.get("visited") or [])
    pending = [e for n, e in (state.get("queue") or {}).items() if n not in visited]
    counters = _usage(usage)
    spent = {
        **state,
        "satisfied": satisfied,
        "counters": {
            **(state.get("counters") or {}),
            "llm_calls": budget.calls_used(state) + counters.get("llm_calls", 0),
        },
    }
    update.update(
        _dispatch(
            spent,
            ctx,
            res.offline,
            pending + starts,
            events,
            rnd,
            reason_empty="no candidate to start from",
        )
    )
    update["trace"] = emit(runtime, events)
    update["counters"] = counters
    return update


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
    """One explorer: decide its whole frontier (one LLM call, or the offline policy)."""
    res, search = await off_loop(_with_resources, runtime, config, build_search, inp)
    ctx, a = res.context, inp["assignment"]
    rnd, wave, who = inp.get("round", 0), inp.get("wave", 0), a["explorer"]
    satisfied = list(inp.get("satisfied") or [False] * len(search.subgoals))
    visited = set(inp.get("visited") or [])
    usage, events = None, []
    notes: list[str] = []
    decisions = None
    if not res.offline and a["allowance"] > 0:
        from memgraph_agents.navigator.policies import llm as llm_policy  # LangChain's chat stack: only with a model

        usage = LLMUsage()
        try:
            decisions, notes = await llm_policy.explore(
                search,
                a["entries"],
                satisfied=satisfied,
                kept=inp.get("kept") or {},
                visited=visited,
                ctx=ctx,
                model=res.llm,
                allowance=a["allowance"],
                usage=usage,
                timeout=res.timeout,
            )
        except LLMError as e:
            events.append(_fallback("explorer", e, round_=rnd, wave=wave, explorer=who))
    if decisions is None:
        decisions = await off_loop(
            offline.decide,
            search,
            a["entries"],
            satisfied,
            ctx,
            visited,
            source="offline" if res.offline else "fallback",
        )
    for note in notes:
        events.append(event("note", round_=rnd, wave=wave, explorer=who, reason=note))
    kept: dict[str, KeptItem] = {}
    pushes: dict[str, QueueEntry] = {}
    status = list(satisfied)
    for d, entry, rank in zip(decisions, a["entries"], a["ranks"]):
        status = [ok or j in d.supports for j, ok in enumerate(status)]
        scores = d.scores or {"priority": round(entry.get("priority", 0.0), 3)}
        i = search.idx(d.node)
        events.append(
            event(
                "decision",
                round_=rnd,
                wave=wave,
                explorer=who,
                rank=rank,
                node=d.node,
                action=d.action,
                reason=d.reason,
                source=d.source,
                scores=scores,
                subgoals=status,
                supports=d.supports,
                next=d.next or None,
                via=entry.get("relation"),
                date=search.date(i) if i is not None else None,
                snippet=search.text(i, 60) if i is not None else None,
            )
        )
        if d.action == "SKIP":
            continue
        kept[d.node] = KeptItem(
            node=d.node,
            order=[rnd, wave, rank],
            supports=d.supports,
            action=d.action,
            reason=d.reason,
            score=float(entry.get("priority", 0.0)),
            explorer=who,
            path=list(entry.get("path") or [d.node]),
        )
        nbs = {search.snap.ids[n.node]: n for n in search.view.neighbours.get(i, [])} if i is not None else {}
        nxt = [j for n in d.next if n not in visited and (j := search.idx(n)) is not None]
        for n, r in zip(nxt, search.rels(nxt) if nxt else []):
            nid = search.snap.ids[n]
            label = nbs[nid].relation if nid in nbs else "named"
            pushed = _entry(
                search,
                n,
                r,
                status,
                parent=d.node,
                relation=label,
                path=[*(entry.get("path") or [d.node]), nid],
                rnd=rnd,
            )
            if nid not in pushes or pushed["priority"] > pushes[nid]["priority"]:
                pushes[nid] = pushed
    return {
        "kept": kept,
        "satisfied": status,
        "queue": {"push": pushes},
        "trace": emit(runtime, events),
        "counters": _usage(usage, steps=len(decisions)),
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
    """Gap-aware refinement: a new query aimed at the unsatisfied subgoals; next round."""
    res = await off_loop(resources, runtime, config)
    ctx = res.context
    satisfied = state.get("satisfied") or []
    query = offline.refine(state.get("subgoals") or [], satisfied, state["question"])
    usage, events, source = None, [], "offline"
    allow = budget.allowance(budget.calls_left(state, ctx), keep=2)
    if not res.offline and allow:
        from memgraph_agents.navigator.policies import llm as llm_policy  # LangChain's chat stack: only with a model

        usage = LLMUsage()
        try:
            query = await llm_policy.refine(
                await off_loop(build_search, state, res),
                query=state.get("query") or state["question"],
                satisfied=satisfied,
                kept=state.get("kept") or {},
                model=res.llm,
                allowance=allow,
                usage=usage,
                timeout=res.timeout,
            )
            source = "llm"
        except LLMError as e:
            events.append(_fallback("refiner", e, round_=state.get("round", 0), wave=state.get("wave", 0)))
    rnd = state.get("round", 0) + 1
    events.append(event("refine", round_=rnd, wave=state.get("wave", 0), source=source, query=query))
    return {"query": query, "round": rnd, "trace": emit(runtime, events), "counters": _usage(usage)}
