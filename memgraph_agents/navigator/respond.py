"""The Responder (it answers from kept evidence only) and the evidence it works from.

Kept events become ``Evidence`` in keeping order, each with its provenance turns ordered
best first (one-shot score, then cosine to the question) and the path that reached it. When
nothing was kept, the round-0 localisation candidates stand in. With an LLM the Responder
answers from the raw turns of that evidence, with their dates; offline it returns the
evidence itself for the calling agent's own LLM.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from memgraph_agents.aio import off_loop
from memgraph_agents.errors import LLMError
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.navigator import budget
from memgraph_agents.navigator.resources import resources
from memgraph_agents.navigator.search import Search, build_search
from memgraph_agents.navigator.state import NavState
from memgraph_agents.navigator.trace import emit, event
from memgraph_agents.navigator.turn_ranking import ranking
from memgraph_agents.retrieval.evidence import to_evidence, turn_evidence
from memgraph_agents.retrieval.validity import annotate

MAX_ANSWER_TURNS = 40  # raw turns shown to the answering model


def build_evidence(search: Search, state: Mapping[str, Any]) -> tuple[list[Evidence], bool]:
    """(evidence in keeping order, whether it is the candidate fallback)."""
    snap = search.snap
    items = sorted((state.get("kept") or {}).values(), key=lambda k: list(k["order"]))
    fallback = not items
    if fallback:
        items = [{"node": n, "score": s, "path": [n]} for n, s in state.get("candidates") or []]
    out = []
    for k in items:
        i = snap.index.get(k["node"])
        if i is None:
            continue
        turns = [snap.attrs[t]["turn_id"] for t in search.scorer.turn_order(i, search.qv)]
        out.append(
            to_evidence(
                snap,
                i,
                float(k.get("score", 0.0)),
                retriever="navigator",
                path=list(k.get("path") or []),
                turn_ids=turns or None,
            )
        )
    return out, fallback


def evidence_text(search: Search, evidence: list[Evidence], limit: int = MAX_ANSWER_TURNS) -> str:
    """Raw turns of the evidence, ``[2 March 2024 | S1:3] Maya: …``, in evidence order; a turn
    a later statement replaced says so (``Evidence.cite``)."""
    snap, lines, seen = search.snap, [], set()
    for ev in evidence:
        for t in ev.turn_ids:
            if t in seen:
                continue
            item = turn_evidence(snap, t, 0.0, retriever="navigator")
            if item is None:
                continue
            seen.add(t)
            lines.append(annotate(snap, [item])[0].cite(human=True))
            if len(lines) >= limit:
                return "\n".join(lines)
    return "\n".join(lines) or "(no excerpt was found)"


def _gathered(runtime, config, state: NavState):
    """Resources, search, evidence and (offline, where no answer comes between) the ranking: one hand-off."""
    res = resources(runtime, config)
    search = build_search(state, res)
    found = build_evidence(search, state)
    return res, search, found, ranking(search, state, res.context) if res.offline else None


async def respond(state: NavState, config, runtime) -> dict:
    res, search, (evidence, fallback), ranked = await off_loop(_gathered, runtime, config, state)
    events = []
    rnd, wave = state.get("round", 0), state.get("wave", 0)
    if fallback and evidence:
        events.append(
            event(
                "fallback",
                round_=rnd,
                wave=wave,
                role="responder",
                reason="nothing was kept: answering from the localisation candidates",
            )
        )
    answer, usage, source = None, None, "offline"
    allow = budget.allowance(budget.calls_left(state, res.context))
    if not res.offline and allow:
        from memgraph_agents.navigator.policies import (
            llm as llm_policy,
        )  # lazy: LangChain's chat stack, only with a model

        usage = LLMUsage()
        try:
            text = await off_loop(evidence_text, search, evidence)
            got = await llm_policy.answer(
                search,
                text,
                model=res.llm,
                allowance=allow,
                usage=usage,
                timeout=res.timeout,
                slot=res.slot,
                prompt_name=res.context.answer_prompt,
            )
            answer, source = " ".join(got.answer.split()), "llm"
        except LLMError as e:
            why = f"responder: {type(e).__name__}: {e}"[:200]
            events.append(event("fallback", round_=rnd, wave=wave, role="responder", reason=why, llm_failed=True))
    elif not res.offline:
        events.append(event("budget", round_=rnd, wave=wave, reason="no LLM call left for the answer"))
    events.append(
        event("answer", round_=rnd, wave=wave, source=source, answer=answer, kept=len(state.get("kept") or {}))
    )
    counters = {}
    if usage is not None:
        s = usage.snapshot()
        counters = {
            "llm_calls": s["calls"],
            "llm_failures": s["failures"],
            "llm_retries": s["retries"],
            "input_tokens": s["input_tokens"],
            "output_tokens": s["output_tokens"],
        }
    wall = 1000 * (time.time() - state["started"]) if state.get("started") else 0.0
    ranked, kept_only = ranked if ranked is not None else await off_loop(ranking, search, state, res.context)
    return {
        "answer": answer,
        # state is plain data: evidence as JSON dumps
        "evidence": [ev.model_dump(mode="json") for ev in evidence],
        "ranking": [ev.model_dump(mode="json") for ev in ranked],
        "kept_ranking": [ev.model_dump(mode="json") for ev in kept_only],
        "wall_ms": round(wall, 1),
        "trace": emit(runtime, events),
        "counters": counters,
    }
