"""The navigator's nodes ask a ``Policy``, record, and return: the offline and LLM policies
answer the same questions, the LLM one falls back to the offline one inside itself."""

from __future__ import annotations

import ast
import asyncio
import inspect
from pathlib import Path

import pytest

from memgraph_agents.navigator import nodes
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.frontier import start_entries
from memgraph_agents.navigator.policies.choose import policy_for
from memgraph_agents.navigator.policies.llm_policy import LLMPolicy
from memgraph_agents.navigator.policies.offline_policy import OfflinePolicy
from memgraph_agents.navigator.policies.protocol import Policy
from memgraph_agents.navigator.resources import Resources
from memgraph_agents.navigator.seeding import seeded_candidates
from tests.fakes import FakeBadRequestError, ScriptedChatModel
from tests.test_navigator_support import build_memory

QUESTION = "Where did Ben run his half marathon and what did Pixel learn?"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build_memory(tmp_path_factory.mktemp("policy") / "mem")


def _res(store, llm=None) -> Resources:
    return Resources(context=NavigatorContext(policy="llm" if llm else "offline"), store=store, llm=llm, timeout=5.0)


def test_both_policies_answer_the_protocols_questions():
    for cls in (OfflinePolicy, LLMPolicy):
        for name in ("plan", "select_start", "explore", "refine"):
            want = inspect.signature(getattr(Policy, name))
            got = inspect.signature(getattr(cls, name))
            assert list(got.parameters) == list(want.parameters), (cls.__name__, name)
            assert inspect.iscoroutinefunction(getattr(cls, name))


def test_the_run_picks_its_policy_from_its_model(store):
    assert isinstance(policy_for(_res(store)), OfflinePolicy)
    assert isinstance(policy_for(_res(store, ScriptedChatModel(responder=lambda m: "{}"))), LLMPolicy)


@pytest.mark.parametrize("name", ["explore", "localize"])
def test_the_nodes_read_ask_record_return(name):
    """A node is short: its policy decides, the bookkeeping lives in frontier.py / seeding.py."""
    tree = ast.parse(Path(inspect.getfile(nodes)).read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.AsyncFunctionDef) and n.name == name)
    assert fn.end_lineno - fn.lineno + 1 <= 40


def test_a_failing_model_falls_back_to_the_offline_choice_inside_the_llm_policy(store):
    model = ScriptedChatModel(responder=lambda m: FakeBadRequestError())  # a 400: no retry helps
    res, off = _res(store, model), _res(store)
    state = {"question": QUESTION, "subgoals": [QUESTION], "round": 0}
    search, cands, _ = seeded_candidates(state, off, QUESTION)
    satisfied = [False]
    entries = start_entries(search, cands, [c for c, _ in cands[:3]], satisfied, 0)
    where = {"round_": 0, "wave": 1, "explorer": 0}
    args = {"satisfied": satisfied, "kept": {}, "visited": set(), "where": where}
    got = asyncio.run(LLMPolicy(res).explore(search, entries, allowance=1, **args))
    want = asyncio.run(OfflinePolicy(off).explore(search, entries, allowance=0, **args))
    assert [(d.node, d.action, d.next) for d in got.value] == [(d.node, d.action, d.next) for d in want.value]
    assert got.source == "fallback" and {d.source for d in got.value} == {"fallback"}
    assert [e["type"] for e in got.events] == ["fallback"] and got.events[0]["role"] == "explorer"
    assert got.usage is not None and got.usage.snapshot()["calls"] >= 1
    # no allowance: the model is not asked at all
    before = len(model.calls)
    quiet = asyncio.run(LLMPolicy(res).explore(search, entries, allowance=0, **args))
    assert len(model.calls) == before and quiet.events == [] and quiet.source == "fallback"
    # the planner's fallback is the offline plan
    plan = asyncio.run(LLMPolicy(res).plan(QUESTION, allowance=1))
    assert plan.value == asyncio.run(OfflinePolicy(off).plan(QUESTION, allowance=0)).value
    assert plan.source == "offline" and plan.events[0]["role"] == "planner"
