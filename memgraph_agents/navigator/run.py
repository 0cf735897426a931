"""Public API: ``navigate`` / ``anavigate`` / ``astream_navigate`` and the ``navigator`` retriever.

``navigate(question, store, context=..., llm=...)`` runs the navigator graph on a store and
returns a ``NavigationResult``: the answer (LLM mode), the kept evidence with provenance,
the trace and the counters. The ``navigator`` retriever (registered for ``memgraph bench``)
ranks turns: each kept event's best turn(s) in keeping order, then the rest of the one-shot
ranking it started from, so k is never spent on one long event.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, Field

from memgraph_agents.aio import off_loop, run_sync
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.graph import graph
from memgraph_agents.navigator.resources import LLM_KEY, STORE_KEY
from memgraph_agents.navigator.trace import format_trace
from memgraph_agents.retrieval.evidence import turn_evidence
from memgraph_agents.retrieval.registry import register_retriever
from memgraph_agents.storage.protocols import StoreReader


class NavigationResult(BaseModel):
    question: str
    answer: str | None = None
    evidence: list[Evidence] = Field(default_factory=list, description="kept events, in keeping order")
    ranking: list[Evidence] = Field(default_factory=list, description="turns: kept first, then the one-shot tail")
    subgoals: list[str] = Field(default_factory=list)
    satisfied: list[bool] = Field(default_factory=list)
    trace: list[dict[str, Any]] = Field(default_factory=list)
    counters: dict[str, float] = Field(default_factory=dict)
    policy: str = "offline"  # "llm", "offline", or "offline (LLM failed)" when no LLM call gave a usable reply
    fallbacks: list[str] = Field(default_factory=list, description="roles that fell back to the offline policy, why")

    def trace_lines(self) -> list[str]:
        return format_trace(self.trace)


def _context(store: StoreReader, context: NavigatorContext | None, llm) -> NavigatorContext:
    ctx = context or NavigatorContext()
    if ctx.policy == "llm" and llm is None:
        raise ValueError("navigator policy 'llm' needs a chat model (llm=...)")
    return ctx


def _config(store: StoreReader, llm, ctx: NavigatorContext) -> dict:
    return {"configurable": {STORE_KEY: store, LLM_KEY: None if ctx.policy == "offline" else llm},
            "recursion_limit": 4 * (ctx.max_steps + 10)}


def _inputs(question: str, k: int) -> dict:
    if not question or not question.strip():
        raise ValueError("the question is empty")
    return {"question": question, "k": k, "started": time.time()}


def rank_turns(store: StoreReader, state: dict, *, k: int, turns_per_event: int, turn_ratio: float) -> list[Evidence]:
    """Kept events' best turns in keeping order, then the tail (the one-shot ranking).

    A kept event contributes its best turn, and up to ``turns_per_event`` in all whose one-shot
    score is at least ``turn_ratio`` of that best one: a long event does not spend k, and a
    turn the one-shot ranking thought little of does not push a better one out of the top.
    """
    snap = store.snapshot()
    score = {t: float(s) for t, s in state.get("one_shot") or []}
    out: list[Evidence] = []
    seen: set[str] = set()
    for ev in state.get("evidence") or []:
        best = score.get(ev.turn_ids[0], 0.0) if ev.turn_ids else 0.0
        chosen = ev.turn_ids[:1] + [t for t in ev.turn_ids[1:turns_per_event]
                                    if best > 0 and score.get(t, 0.0) >= turn_ratio * best]
        for t in chosen:
            item = turn_evidence(snap, t, ev.score, retriever="navigator", path=[*ev.path, f"turn:{t}"])
            if item is not None and t not in seen:
                seen.add(t)
                out.append(item)
    for t, s in state.get("one_shot") or []:
        if t not in seen:
            item = turn_evidence(snap, t, float(s), retriever="navigator", path=[f"turn:{t}"])
            if item is not None:
                seen.add(t)
                out.append(item)
    return out[: max(k, len(out))]


def _result(store: StoreReader, state: dict, ctx: NavigatorContext, policy: str, k: int, wall: float) -> NavigationResult:
    from memgraph_agents.navigator.trace import sort_key

    counters = dict(state.get("counters") or {})
    counters.update(rounds=state.get("round", 0) + 1, wall_ms=round(wall * 1000, 1))
    counters.setdefault("llm_calls", 0)
    counters.setdefault("steps", 0)
    counters["tokens"] = counters.get("input_tokens", 0) + counters.get("output_tokens", 0)
    trace = sorted(state.get("trace") or [], key=sort_key)
    fallbacks = [str(e.get("reason", "")) for e in trace if e.get("type") == "fallback" and e.get("llm_failed")]
    if policy == "llm" and counters["llm_calls"] <= counters.get("llm_failures", 0):
        policy = "offline (LLM failed)"  # every request failed or was unusable: say so, not "llm"
    return NavigationResult(question=state.get("question", ""), answer=state.get("answer"),
                            evidence=state.get("evidence") or [],
                            ranking=rank_turns(store, state, k=k, turns_per_event=ctx.turns_per_event,
                                               turn_ratio=ctx.turn_ratio),
                            subgoals=state.get("subgoals") or [], satisfied=state.get("satisfied") or [],
                            trace=trace, counters=counters, policy=policy, fallbacks=fallbacks)


async def anavigate(question: str, store: StoreReader, *, context: NavigatorContext | None = None, llm=None,
                    k: int = 10) -> NavigationResult:
    ctx = _context(store, context, llm)
    t0 = time.perf_counter()
    state = await graph.ainvoke(_inputs(question, k), config=_config(store, llm, ctx), context=ctx)
    policy = "offline" if ctx.policy == "offline" or llm is None else "llm"
    return await off_loop(_result, store, state, ctx, policy, k, time.perf_counter() - t0)  # reads the store


def navigate(question: str, store: StoreReader, *, context: NavigatorContext | None = None, llm=None,
             k: int = 10) -> NavigationResult:
    """Blocking ``anavigate`` (safe inside a running event loop: it then uses a worker thread)."""
    return run_sync(anavigate(question, store, context=context, llm=llm, k=k))


async def astream_navigate(question: str, store: StoreReader, *, context: NavigatorContext | None = None, llm=None,
                           k: int = 10) -> AsyncIterator[tuple[str, Any]]:
    """Watch a search live: yields ``("custom", {"navigator": event})`` for every decision and
    ``("updates", {node: update})`` after every node, then ``("result", NavigationResult)``."""
    ctx = _context(store, context, llm)
    t0 = time.perf_counter()
    state: dict[str, Any] = {}
    async for mode, chunk in graph.astream(_inputs(question, k), config=_config(store, llm, ctx), context=ctx,
                                           stream_mode=["custom", "updates", "values"]):
        if mode == "values":
            state = chunk
            continue
        yield mode, chunk
    policy = "offline" if ctx.policy == "offline" or llm is None else "llm"
    yield "result", await off_loop(_result, store, state, ctx, policy, k, time.perf_counter() - t0)


@register_retriever("navigator")
def navigator(query: str, store: StoreReader, *, k: int = 10, llm=None, **params: Any) -> list[Evidence]:
    """Retriever contract: ranked turn evidence (offline policy unless ``llm`` is given)."""
    ctx = NavigatorContext(**{"policy": "llm" if llm is not None else "offline", **params})
    return navigate(query, store, context=ctx, llm=llm, k=k).ranking[:k]
