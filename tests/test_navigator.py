"""The navigator graph in LLM mode, driven by scripted chat models (tests/fakes.py).

Routing, budgets, parallel explorers, reducers under ``Send``, malformed explorer output,
streaming and a scripted end-to-end run on the Ana/Ben fixture conversation.
"""

from __future__ import annotations

import asyncio
import json
import statistics

import pytest

from memgraph_agents.graphs.navigator import graph
from memgraph_agents.llm.structured import REPAIR_MARKER
from memgraph_agents.navigator import NavigatorContext, astream_navigate
from tests.fakes import (
    ScriptedChatModel,
    always_malformed,
    careful_navigator_responder,
    nav_step_override,
    task_text,
)
from tests.test_navigator_support import (
    SEARCH,
    build_memory,
    decisions,
    of_type,
    run_llm,
    scripted_step,
    step_prompts,
)

CAREFUL = careful_navigator_responder()
Q_PIXEL = "What did Pixel chew, and did Pixel pass his puppy training class?"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build_memory(tmp_path_factory.mktemp("nav") / "mem")


def test_graph_draws_the_real_topology():
    mermaid = graph.get_graph(xray=True).draw_mermaid()
    for edge in (
        "__start__ --> planner",
        "planner --> localize",
        "localize -.-> explore",
        "localize -.-> refine",
        "localize -.-> respond",
        "explore --> coordinate",
        "coordinate -.-> explore",
        "coordinate -.-> refine",
        "coordinate -.-> respond",
        "refine --> localize",
        "respond --> __end__",
    ):
        assert edge in mermaid, edge
    assert graph.builder.context_schema is NavigatorContext
    assert graph.checkpointer is None


def test_all_satisfied_goes_straight_to_the_responder(store):
    step = scripted_step(
        lambda n, p: {"action": "ANSWER", "satisfied_subgoals": [g["n"] for g in p["goals"]], "reason": "states it all"}
    )
    r, model = run_llm(store, nav_step_override(CAREFUL, step), Q_PIXEL)
    routes = of_type(r, "route")
    assert [x["to"] for x in routes] == ["respond"] and "every subgoal" in routes[0]["reason"]
    assert not of_type(r, "refine") and r.counters["rounds"] == 1
    assert all(r.satisfied) and r.answer
    assert r.counters["llm_calls"] == 3 == len(model.calls)  # plan, one explorer call, answer


def test_unsatisfied_subgoal_refines_once_then_responds(store):
    step = scripted_step(lambda n, p: {"action": "EXPAND", "satisfied_subgoals": [1], "reason": "partial"})
    r, model = run_llm(store, nav_step_override(CAREFUL, step), Q_PIXEL, max_refinements=1)
    assert [x["to"] for x in of_type(r, "route")][-2:] == ["refine", "respond"]
    assert len(of_type(r, "refine")) == 1 and r.counters["rounds"] == 2
    assert r.satisfied[0] and not all(r.satisfied)
    assert r.answer and r.evidence  # the responder answers with what it has
    refine_prompts = [t for t in map(task_text, model.calls) if "TASK: NAVIGATION REFINE" in t]
    assert len(refine_prompts) == 1 and "[open]" in refine_prompts[0]


def test_budget_exhausted_goes_to_the_responder_with_what_it_has(store):
    step = scripted_step(
        lambda n, p: {
            "action": "EXPAND",
            "next_nodes": [x["id"] for x in n["neighbours"]][:3],
            "satisfied_subgoals": [],
            "reason": "keep going",
        }
    )
    r, model = run_llm(store, nav_step_override(CAREFUL, step), Q_PIXEL, max_llm_calls=3, events_k=1, topics_p=0)
    assert len(model.calls) == r.counters["llm_calls"] == 3  # plan, one explorer, answer: the cap holds
    last = of_type(r, "route")[-1]
    assert last["to"] == "respond" and "budget" in last["reason"]
    assert r.evidence and r.answer
    r2, _ = run_llm(store, nav_step_override(CAREFUL, step), Q_PIXEL, max_steps=1, events_k=1, topics_p=0)
    assert of_type(r2, "route")[-1]["reason"] == "step budget exhausted" and r2.counters["steps"] == 1


@pytest.mark.parametrize("cap", [0, 1, 2, 3, 4, 5, 6])
def test_hard_cap_holds_with_repair_turns_and_fallbacks(store, cap):
    r, model = run_llm(
        store, nav_step_override(CAREFUL, always_malformed()), Q_PIXEL, max_llm_calls=cap, n_explorers=3, frontier=1
    )
    assert len(model.calls) <= cap and r.counters["llm_calls"] == len(model.calls)
    assert r.evidence  # offline fallbacks still collect evidence


def test_parallel_explorers_never_expand_one_node_twice(store):
    # Every explorer names every neighbour: the same nodes are proposed by several explorers.
    step = scripted_step(
        lambda n, p: {
            "action": "EXPAND",
            "next_nodes": [x["id"] for x in n["neighbours"]][:3],
            "satisfied_subgoals": [],
            "reason": "more",
        }
    )
    r, _ = run_llm(
        store,
        nav_step_override(CAREFUL, step),
        Q_PIXEL,
        n_explorers=3,
        frontier=1,
        max_llm_calls=30,
        next_floor=0.0,
        max_refinements=1,
    )
    nodes = [d["node"] for d in decisions(r)]
    assert len(nodes) == len(set(nodes)) and len(nodes) >= 4
    waves = of_type(r, "schedule")
    assert any(len(w["frontiers"]) > 1 for w in waves)  # explorers really ran side by side
    for w in waves:
        flat = [n for f in w["frontiers"] for n in f["nodes"]]
        assert len(flat) == len(set(flat))


def test_reducers_merge_parallel_explorer_writes(store):
    # Explorer 0 supports S1, explorer 1 supports S2, explorer 2 supports S3: the OR-merge
    # completes the vector in one wave; kept holds one item per node, in keeping order.
    seen: dict[str, int] = {}

    def step(messages):
        p = json.loads(scripted_step(lambda n, q: {"action": "EXPAND", "reason": "x"})(messages))
        for d in p["decisions"]:
            seen.setdefault(d["node_id"], len(seen) + 1)
            d["satisfied_subgoals"] = [seen[d["node_id"]]]
        return json.dumps(p)

    r, _ = run_llm(store, nav_step_override(CAREFUL, step), Q_PIXEL, n_explorers=3, frontier=1, events_k=3, topics_p=0)
    first_wave = [d for d in decisions(r) if d["wave"] == 1]
    assert len({d["explorer"] for d in first_wave}) == 3
    assert r.satisfied == [True, True, True]
    kept = [e.node_id for e in r.evidence if e.kind == "event"]  # then turns filling k
    assert kept == [d["node"] for d in sorted(first_wave, key=lambda d: d["rank"])]
    assert of_type(r, "route")[-1]["reason"] == "every subgoal is supported"


@pytest.mark.parametrize("kind", ["unknown_action", "invalid_json"])
def test_malformed_explorer_output_is_repaired(store, kind):
    def good(messages):
        return scripted_step(lambda n, p: {"action": "EXPAND", "satisfied_subgoals": [1, 2, 3], "reason": "ok"})(
            messages
        )

    def bad_once(messages):
        if any(REPAIR_MARKER in task_text([m]) for m in messages[1:]):
            return good(messages)
        if kind == "unknown_action":
            return good(messages).replace('"EXPAND"', '"MAYBE"')
        return good(messages)[:30]

    r, model = run_llm(store, nav_step_override(CAREFUL, bad_once), Q_PIXEL)
    assert any(d["source"] == "llm" for d in decisions(r))
    assert not of_type(r, "fallback") and r.counters["llm_failures"] >= 1
    assert any(REPAIR_MARKER in p for p in model.prompts)


@pytest.mark.parametrize(
    "broken", [always_malformed(), lambda m: '{"decisions": [{"node_id": "event:S1:1", "action": "PONDER"}]}']
)
def test_unusable_explorer_output_falls_back_to_the_offline_policy(store, broken):
    r, _ = run_llm(store, nav_step_override(CAREFUL, broken), Q_PIXEL)
    fb = of_type(r, "fallback")
    assert fb and fb[0]["role"] == "explorer"
    assert decisions(r) and all(d["source"] == "fallback" for d in decisions(r))
    assert r.evidence and r.answer


def test_unknown_node_ids_are_dropped_and_missing_nodes_decided_offline(store):
    def step(messages):
        p = json.loads(
            scripted_step(
                lambda n, q: {
                    "action": "EXPAND",
                    "next_nodes": ["event:NOPE", "ghost"],
                    "satisfied_subgoals": [1, 9],
                    "reason": "x",
                }
            )(messages)
        )
        p["decisions"] = p["decisions"][:1] + [{"node_id": "event:S99:1", "action": "SKIP"}]
        return json.dumps(p)

    r, _ = run_llm(store, nav_step_override(CAREFUL, step), Q_PIXEL, events_k=3, topics_p=0, max_refinements=0)
    notes = " ".join(e["reason"] for e in of_type(r, "note"))
    assert "unknown node 'event:S99:1'" in notes and "not its unvisited neighbours" in notes
    assert "offline policy decides" in notes
    ds = decisions(r)
    assert ds[0]["source"] == "llm" and ds[0].get("next") is None and ds[0]["supports"] == [0]
    assert {d["source"] for d in ds[1:]} == {"fallback"}
    assert all(d["node"].startswith("event:S") and "S99" not in d["node"] for d in ds)


def test_planner_failure_falls_back_to_offline_subgoals(store):
    def responder(messages):
        if "TASK: NAVIGATION PLAN" in task_text(messages):
            return '{"subgoals": ["only one"]}'  # fewer than 2: invalid, twice
        return CAREFUL(messages)

    r, _ = run_llm(store, responder, Q_PIXEL)
    assert of_type(r, "fallback")[0]["role"] == "planner"
    assert of_type(r, "plan")[0]["source"] == "offline" and r.subgoals[0] == Q_PIXEL


def test_scripted_end_to_end_run(store):
    """The careful model on the fixture: plan, one start, a hop along a shared entity, answer."""
    r, model = run_llm(store, CAREFUL, Q_PIXEL, events_k=1, topics_p=0)
    assert r.subgoals == [Q_PIXEL, "Pixel chew Pixel", "pass puppy training class"]
    assert [e.node_id for e in r.evidence if e.kind == "event"] == ["event:S2:1", "event:S1:1"]
    assert [e.kind for e in r.evidence[2:]] == ["turn"] * (len(r.evidence) - 2) and 2 < len(r.evidence) <= 10
    assert r.evidence[1].path == ["event:S2:1", "event:S1:1"]  # reached from the start node
    assert "D2:4" in r.evidence[0].turn_ids and "D1:3" in r.evidence[1].turn_ids  # provenance
    assert [(e["type"], e.get("node"), e.get("action")) for e in r.trace if e["type"] in ("decision", "route")] == [
        ("decision", "event:S2:1", "EXPAND"),
        ("decision", "event:S1:1", "ANSWER"),
        ("route", None, None),
    ]
    assert decisions(r)[0]["next"] == ["event:S1:1"] and decisions(r)[1]["via"] == 'shares "Pixel"'
    assert r.satisfied == [True, True, True]
    assert r.answer == "Pixel passed his puppy training class two days"
    c = r.counters
    assert (c["llm_calls"], c["steps"], c["rounds"]) == (4, 2, 1) and c["tokens"] > 0 and c["wall_ms"] > 0
    assert [p.split("\n", 1)[0] for p in model.prompts] == [
        "TASK: NAVIGATION PLAN",
        "TASK: NAVIGATION STEP",
        "TASK: NAVIGATION STEP",
        "TASK: NAVIGATION ANSWER",
    ]
    assert "[event:S1:1]" in step_prompts(model)[0]  # the neighbour was shown to the explorer
    # the best ranked turn belongs to the first kept event and carries its path
    assert r.ranking[0].turn_ids[0] in r.evidence[0].turn_ids and r.ranking[0].path[:1] == ["event:S2:1"]


def test_careful_model_median_calls_within_target(store):
    questions = [
        Q_PIXEL,
        "How long did Ben take to finish the Lisbon half marathon?",
        "Where does Ana work now and what does she do there?",
        "What is the name of Ana's puppy?",
        "How often does Ben train for the half marathon?",
    ]
    calls = [run_llm(store, careful_navigator_responder(), q)[0].counters["llm_calls"] for q in questions]
    assert statistics.median(calls) <= 5 and max(calls) <= NavigatorContext().max_llm_calls


def test_stream_shows_decisions_live(store):
    async def collect():
        model = ScriptedChatModel(responder=CAREFUL)
        out = []
        async for mode, chunk in astream_navigate(
            Q_PIXEL, store, context=NavigatorContext(policy="llm", events_k=1, topics_p=0, **SEARCH), llm=model
        ):
            out.append((mode, chunk))
        return out

    chunks = asyncio.run(collect())
    modes = [m for m, _ in chunks]
    assert modes[-1] == "result" and "custom" in modes and "updates" in modes
    custom = [c["navigator"] for m, c in chunks if m == "custom"]
    assert [e["node"] for e in custom if e["type"] == "decision"] == ["event:S2:1", "event:S1:1"]
    first_decision = modes.index("custom", modes.index("custom") + 1)
    assert first_decision < len(modes) - 1  # streamed before the end, not only in the result
    updates = [next(iter(c)) for m, c in chunks if m == "updates"]
    assert updates[:2] == ["planner", "localize"] and "explore" in updates and updates[-1] == "respond"


def test_llm_start_selection_is_one_call_within_the_budget(store):
    r, model = run_llm(store, CAREFUL, Q_PIXEL, start_selection="llm")
    loc = of_type(r, "localize")[0]
    assert loc["source"] == "llm" and 1 <= len(loc["start"]) <= 3  # the careful model picks three
    assert [p.split("\n", 1)[0] for p in model.prompts][:2] == ["TASK: NAVIGATION PLAN", "TASK: NAVIGATION START"]
    for cap in (2, 3, 4):
        _, m = run_llm(
            store, nav_step_override(CAREFUL, always_malformed()), Q_PIXEL, start_selection="llm", max_llm_calls=cap
        )
        assert len(m.calls) <= cap
