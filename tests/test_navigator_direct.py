"""``navigate`` runs the navigator's nodes without the LangGraph runtime (``navigator.direct``);
``astream_navigate`` runs the compiled graph. Both must give the same result, offline and in
LLM mode (scripted models), through refinement rounds, budgets and parallel explorer waves."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from memgraph_agents.navigator import NavigationResult, NavigatorContext, astream_navigate, navigate
from memgraph_agents.navigator.direct import _initial, run_direct
from tests.fakes import ScriptedChatModel, careful_navigator_responder
from tests.test_navigator_support import build_memory, decisions, strip_timing

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

Q_TWO = "When did Ben run the Lisbon half marathon and what was his time?"
Q_PIXEL = "What did Pixel chew, and did Pixel pass his puppy training class?"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build_memory(tmp_path_factory.mktemp("navdirect") / "mem")


def _via_graph(question: str, store, context: NavigatorContext, llm=None, k: int = 10) -> NavigationResult:
    async def run() -> NavigationResult:
        result = None
        async for mode, chunk in astream_navigate(question, store, context=context, llm=llm, k=k):
            if mode == "result":
                result = chunk
        assert isinstance(result, NavigationResult)
        return result

    return asyncio.run(run())


def _comparable(r: NavigationResult) -> dict[str, Any]:
    out = r.model_dump(mode="json")
    out["counters"].pop("wall_ms")
    out["trace"] = strip_timing(r.trace)
    return out


CASES = [
    (Q_TWO, {}),
    (Q_TWO, {"satisfy_sim": 9.0, "satisfy_os": 9.0}),  # a refinement round
    ("Where does Ana work?", {"max_steps": 2}),  # the step budget ends it
    ("Where does Ana work?", {"keep_os": 9.0, "keep_sim": 9.0}),  # nothing kept: candidates
    ("What is the name of Ana's puppy?", {"events_k": 1, "topics_p": 0}),
]


@pytest.mark.parametrize("question,params", CASES)
def test_offline_direct_run_equals_the_graph(store, question, params):
    ctx = NavigatorContext(policy="offline", **params)
    direct = navigate(question, store, context=ctx, k=5)
    graph = _via_graph(question, store, ctx, k=5)
    assert direct.ranking and decisions(direct)  # a real search, not two empty results
    assert _comparable(direct) == _comparable(graph)


@pytest.mark.parametrize("params", [{"events_k": 1, "topics_p": 0}, {}, {"start_selection": "llm"}])
def test_llm_direct_run_equals_the_graph(store, params):
    ctx = NavigatorContext(policy="llm", **params)
    runs = []
    for run in (lambda m: navigate(Q_PIXEL, store, context=ctx, llm=m), lambda m: _via_graph(Q_PIXEL, store, ctx, m)):
        model = ScriptedChatModel(responder=careful_navigator_responder())
        runs.append((run(model), sorted(model.prompts)))
    (direct, prompts_direct), (graph, prompts_graph) = runs
    assert direct.counters["llm_calls"] >= 3 and direct.answer
    assert _comparable(direct) == _comparable(graph)
    assert prompts_direct == prompts_graph


def test_parallel_explorers_merge_through_the_reducers(store):
    r = navigate(Q_TWO, store, context=NavigatorContext(policy="offline"))
    first = [d for d in decisions(r) if d["wave"] == 1]
    assert len({d["explorer"] for d in first}) == len(first) == 3  # one wave, three explorers


def test_reducer_keys_start_empty_and_a_doubly_written_plain_key_is_refused():
    state = _initial({"question": "q", "k": 3})
    assert state["trace"] == [] and state["kept"] == {} and state["counters"] == {} and "answer" not in state

    from memgraph_agents.navigator import direct

    state = _initial({"question": "q"})
    with pytest.raises(RuntimeError, match="two tasks of one step wrote 'next'"):
        direct._apply(state, [{"next": "respond"}, {"next": "refine"}])
    direct._apply(state, [{"trace": [{"a": 1}]}, {"trace": [{"b": 2}]}])
    assert json.dumps(state["trace"]) == '[{"a": 1}, {"b": 2}]'


def test_recursion_limit_is_enforced(store):
    from memgraph_agents.navigator.resources import LLM_KEY, STORE_KEY

    config = {"configurable": {STORE_KEY: store, LLM_KEY: None}, "recursion_limit": 2}
    with pytest.raises(RuntimeError, match="recursion limit of 2"):
        asyncio.run(run_direct({"question": Q_TWO, "k": 3, "started": 0.0}, config, NavigatorContext(policy="offline")))
