"""Public API: ``navigate`` / ``anavigate`` / ``astream_navigate`` and the ``navigator`` retriever.

``navigate(question, store, context=..., llm=..., config=...)`` runs the compiled navigator
graph (``navigator.graph``) on a store — the one runtime of every door; ``astream_navigate``
streams the same run — and returns a ``NavigationResult``: the answer (LLM mode), the kept evidence with provenance
(``k`` items), the trace and the counters. The ``navigator`` retriever (the registry's
``navigator``) ranks turns: the seed pool and the kept events' turns, each scored by its
seed score plus its corroboration by kept neighbours (``retrieval.rank``) plus the turn priors
(``retrieval.priors``: informativeness, a date for a "when" question), then reordered so that
paraphrases of better-ranked turns give way (MMR, ``retrieval.diverse``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

from pydantic import BaseModel, Field

import memgraph_agents.navigator.graph as graph_module  # ``graph_module.graph`` read per run: a caller may swap it
from memgraph_agents.aio import background, off_loop
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.resources import LLM_KEY, STORE_KEY
from memgraph_agents.navigator.trace import format_trace, sort_key
from memgraph_agents.storage.protocols import StoreReader


class NavigationResult(BaseModel):
    question: str
    answer: str | None = None
    evidence: list[Evidence] = Field(
        default_factory=list, description="kept events in keeping order, then the best other turns, k in all"
    )
    ranking: list[Evidence] = Field(default_factory=list, description="turns: seed pool and kept events, re-scored")
    kept_ranking: list[Evidence] = Field(default_factory=list, description="the ranking's turns of kept events")
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


# What a caller's run config may bring to the graph: tracing (a LangSmith or console tracer sees
# every node). Its ``configurable`` stays out: inside an agent's graph it carries that run's
# internals (checkpointer, stream), which would make this search a subgraph of it.
TRACING_KEYS = ("callbacks", "tags", "metadata", "run_name", "max_concurrency")


def _config(store: StoreReader, llm, ctx: NavigatorContext, config: Mapping[str, Any] | None = None) -> dict:
    """The run config: the caller's tracing keys, the live store and model, the step limit."""
    user = {key: config[key] for key in TRACING_KEYS if config and config.get(key) is not None}
    if isinstance(user.get("metadata"), Mapping):  # a parent graph's run keys are not this run's
        user["metadata"] = {
            m: v for m, v in user["metadata"].items() if not str(m).startswith(("langgraph_", "checkpoint_"))
        }
    configurable = {STORE_KEY: store, LLM_KEY: None if ctx.policy == "offline" else llm}
    return {**user, "configurable": configurable, "recursion_limit": 4 * (ctx.max_steps + 10)}


def _inputs(question: str, k: int) -> dict:
    if not question or not question.strip():
        raise ValueError("the question is empty")
    return {"question": question, "k": k}


def _evidence(state: dict, ranked: list[Evidence], k: int) -> list[Evidence]:
    """Kept events in keeping order; when the search kept fewer than ``k``, the best ranked
    turns outside them fill the rest, so a caller asking for k items gets k."""
    kept = [Evidence.model_validate(ev) for ev in state.get("evidence") or []]
    covered = {t for ev in kept for t in ev.turn_ids}
    extra = [ev for ev in ranked if not covered.intersection(ev.turn_ids)]
    return kept[:k] if len(kept) >= k else [*kept, *extra[: k - len(kept)]]


def _result(
    store: StoreReader, state: dict, ctx: NavigatorContext, policy: str, k: int, wall: float
) -> NavigationResult:
    counters = dict(state.get("counters") or {})
    counters.update(rounds=state.get("round", 0) + 1, wall_ms=round(wall * 1000, 1))
    counters.setdefault("llm_calls", 0)
    counters.setdefault("steps", 0)
    counters["tokens"] = counters.get("input_tokens", 0) + counters.get("output_tokens", 0)
    trace = sorted(state.get("trace") or [], key=sort_key)
    ranked = [Evidence.model_validate(ev) for ev in state.get("ranking") or []]
    kept_only = [Evidence.model_validate(ev) for ev in state.get("kept_ranking") or []]
    counters["kept"] = len(state.get("kept") or {})
    fallbacks = [str(e.get("reason", "")) for e in trace if e.get("type") == "fallback" and e.get("llm_failed")]
    if policy == "llm" and counters["llm_calls"] <= counters.get("llm_failures", 0):
        policy = "offline (LLM failed)"  # every request failed or was unusable: say so, not "llm"
    return NavigationResult(
        question=state.get("question", ""),
        answer=state.get("answer"),
        evidence=_evidence(state, ranked, k),
        ranking=ranked,
        kept_ranking=kept_only,
        subgoals=state.get("subgoals") or [],
        satisfied=state.get("satisfied") or [],
        trace=trace,
        counters=counters,
        policy=policy,
        fallbacks=fallbacks,
    )


def _policy(ctx: NavigatorContext, llm) -> str:
    """The policy a run used: the LLM's only when one was asked for and given."""
    return "offline" if ctx.policy == "offline" or llm is None else "llm"


async def anavigate(
    question: str,
    store: StoreReader,
    *,
    context: NavigatorContext | None = None,
    llm=None,
    k: int = 10,
    config: Mapping[str, Any] | None = None,
) -> NavigationResult:
    """Run the compiled navigator graph (``navigator.graph.graph``) on ``store``; ``config`` is a
    LangChain run config (``callbacks``, ``tags``, ``metadata``…) passed to the graph."""

    ctx = _context(store, context, llm)
    t0 = time.perf_counter()
    state = await graph_module.graph.ainvoke(_inputs(question, k), config=_config(store, llm, ctx, config), context=ctx)
    policy = _policy(ctx, llm)
    return await off_loop(_result, store, state, ctx, policy, k, time.perf_counter() - t0)  # reads the store


def navigate(
    question: str,
    store: StoreReader,
    *,
    context: NavigatorContext | None = None,
    llm=None,
    k: int = 10,
    config: Mapping[str, Any] | None = None,
) -> NavigationResult:
    """Blocking ``anavigate`` on the process's shared background loop (no event loop is started
    per question; safe inside a running event loop)."""
    return background.run(anavigate(question, store, context=context, llm=llm, k=k, config=config))


async def astream_navigate(
    question: str,
    store: StoreReader,
    *,
    context: NavigatorContext | None = None,
    llm=None,
    k: int = 10,
    config: Mapping[str, Any] | None = None,
) -> AsyncIterator[tuple[str, Any]]:
    """Watch a search live: yields ``("custom", {"navigator": event})`` for every decision and
    ``("updates", {node: update})`` after every node, then ``("result", NavigationResult)``:
    the same compiled graph and run as ``anavigate``, streamed."""

    ctx = _context(store, context, llm)
    t0 = time.perf_counter()
    state: dict[str, Any] = {}
    async for mode, chunk in graph_module.graph.astream(
        _inputs(question, k),
        config=_config(store, llm, ctx, config),
        context=ctx,
        stream_mode=["custom", "updates", "values"],
    ):
        if mode == "values":
            state = chunk
            continue
        yield mode, chunk
    policy = _policy(ctx, llm)
    yield "result", await off_loop(_result, store, state, ctx, policy, k, time.perf_counter() - t0)


def navigator(
    query: str, store: StoreReader, *, k: int = 10, options: NavigatorContext | None = None, llm=None
) -> list[Evidence]:
    """Retriever contract: ranked turn evidence; ``options`` are the search parameters (policy
    ``auto`` by default: the LLM policy when ``llm`` is given, else offline)."""
    return navigate(query, store, context=options, llm=llm, k=k).ranking[:k]
