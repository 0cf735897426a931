"""The navigator's offline policy, reducers, queue scheduling, retriever contract and CLI."""

from __future__ import annotations

import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.llm.usage import add_counts
from memgraph_agents.model.evidence import flatten_turns
from memgraph_agents.navigator import NavigatorContext, navigate, navigator
from memgraph_agents.navigator.localize import one_shot
from memgraph_agents.navigator.policies import offline
from memgraph_agents.navigator.queue import reprioritise, schedule
from memgraph_agents.navigator.state import max_merge, merge_kept, or_merge, queue_reducer, union
from memgraph_agents.registry import RETRIEVERS, retrieve
from tests.test_navigator_support import NS, SEARCH, build_memory, decisions, of_type, strip_timing


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    root = tmp_path_factory.mktemp("navoff") / "mem"
    return root, build_memory(root)


@pytest.fixture(scope="module")
def store(memory):
    return memory[1]


# --------------------------------------------------------------------------- reducers


def test_reducers_are_explicit_and_order_independent():
    assert or_merge([True, False, False], [False, False, True]) == [True, False, True]
    assert or_merge(None, [False, False]) == [False, False] and or_merge([True], [False, False]) == [False, False]
    assert max_merge([0.2, 0.9], [0.5, 0.1]) == [0.5, 0.9]
    assert union(["a", "b"], ["b", "c"]) == ["a", "b", "c"]
    a = {"x": {"node": "x", "order": [0, 1, 2], "supports": [0]}}
    b = {
        "x": {"node": "x", "order": [0, 1, 0], "supports": [1]},
        "y": {"node": "y", "order": [0, 2, 0], "supports": []},
    }
    ab, ba = merge_kept(a, b), merge_kept(b, a)
    assert ab == ba and ab["x"]["order"] == [0, 1, 0] and ab["x"]["supports"] == [0, 1] and set(ab) == {"x", "y"}
    q = queue_reducer({}, {"push": {"n": {"node": "n", "priority": 0.5}}})
    q = queue_reducer(q, {"push": {"n": {"node": "n", "priority": 0.4}, "m": {"node": "m", "priority": 0.9}}})
    assert q["n"]["priority"] == 0.5 and set(q) == {"n", "m"}  # a push only raises a priority
    q = queue_reducer(q, {"set": {"n": {"node": "n", "priority": 0.1}}, "pop": ["m"]})
    assert q == {"n": {"node": "n", "priority": 0.1}}
    assert add_counts({"llm_calls": 2}, {"llm_calls": 1, "steps": 3}) == {"llm_calls": 3, "steps": 3}


def test_schedule_claims_disjoint_frontiers_within_budgets():
    entries = [{"node": f"n{i}", "priority": 1 - i / 10, "rels": [1 - i / 10]} for i in range(7)]
    offline_wave = schedule(entries, n_explorers=3, frontier=2, steps_left=10, calls_left=None)
    assert [len(a["entries"]) for a in offline_wave] == [2, 2, 2]
    assert [e["node"] for e in offline_wave[0]["entries"]] == ["n0", "n3"]  # round-robin, best first
    flat = [e["node"] for a in offline_wave for e in a["entries"]]
    assert len(set(flat)) == len(flat) == 6
    assert (
        len(
            [
                e
                for a in schedule(entries, n_explorers=3, frontier=2, steps_left=4, calls_left=None)
                for e in a["entries"]
            ]
        )
        == 4
    )
    llm_wave = schedule(entries, n_explorers=3, frontier=5, steps_left=20, calls_left=2)
    assert len(llm_wave) == 2 and sum(a["allowance"] for a in llm_wave) <= 2  # no repair without spare calls
    one = schedule(entries[:3], n_explorers=3, frontier=5, steps_left=20, calls_left=4)
    assert len(one) == 1 and one[0]["allowance"] == 2
    assert schedule(entries, n_explorers=3, frontier=5, steps_left=20, calls_left=0) == []
    changed, drop = reprioritise(
        {
            "a": {"node": "a", "rels": [0.9, 0.3], "priority": 0.9},
            "b": {"node": "b", "rels": [0.2, 0.95], "priority": 0.95},
        },
        [True, False],
        visited={"c"},
        floor=0.5,
    )
    assert changed == {} and drop == ["a"]  # a only served the satisfied subgoal


# --------------------------------------------------------------------------- offline policy


def test_offline_plan_is_the_question_plus_its_clauses():
    q = "When did Ben run the Lisbon half marathon and what was his time?"
    assert offline.plan(q) == [q, "When did Ben run the Lisbon half marathon", "what was his time"]
    assert offline.plan("What is Ana's puppy called?") == ["What is Ana's puppy called?"]
    assert offline.refine(["q", "a", "b"], [True, False, True], "q") == "a"


def test_offline_policy_is_deterministic(store):
    q = "When did Ben run the Lisbon half marathon and what was his time?"
    runs = [navigate(q, store) for _ in range(3)]
    runs.append(navigate(q, store, context=NavigatorContext(policy="offline")))
    assert len({strip_timing(r.trace) for r in runs}) == 1
    assert len({tuple(e.node_id for e in r.ranking) for r in runs}) == 1
    r = runs[0]
    assert r.answer is None and r.policy == "offline" and r.counters["llm_calls"] == 0
    assert [e["type"] for e in r.trace][:2] == ["plan", "localize"]
    first = [d for d in decisions(r) if d["wave"] == 1]
    assert len({d["explorer"] for d in first}) == len(first) == 3  # one start node per explorer


def test_offline_refines_unsatisfied_subgoals_then_responds(store):
    q = "When did Ben run the Lisbon half marathon and what was his time?"
    r = navigate(q, store, context=NavigatorContext(policy="offline", satisfy_sim=9.0, satisfy_os=9.0, **SEARCH))
    refines = of_type(r, "refine")
    assert len(refines) == 1 and refines[0]["query"] == " ".join(r.subgoals)
    assert r.counters["rounds"] == 2 and of_type(r, "route")[-1]["to"] == "respond"
    nodes = [d["node"] for d in decisions(r)]
    assert len(nodes) == len(set(nodes))  # round 2 starts from nodes not visited in round 1


def test_budget_of_steps_holds_offline(store):
    r = navigate("Where does Ana work?", store, context=NavigatorContext(policy="offline", max_steps=2))
    assert r.counters["steps"] <= 2 and len(decisions(r)) <= 2


def test_nothing_kept_falls_back_to_the_candidates(store):
    ctx = NavigatorContext(policy="offline", keep_os=9.0, keep_sim=9.0, **SEARCH)
    r = navigate("Where does Ana work?", store, context=ctx)
    assert not [d for d in decisions(r) if d["action"] != "SKIP"]
    assert r.evidence and of_type(r, "fallback")[0]["role"] == "responder"


# --------------------------------------------------------------------------- retriever contract


def test_navigator_is_a_registered_retriever_ranking_turns(store):
    assert RETRIEVERS["navigator"].target == f"{navigator.__module__}:{navigator.__name__}"
    q = "What did Pixel chew?"
    ev = navigator(q, store, k=6)
    turns = [e.turn_ids[0] for e in ev]
    assert len(ev) == 6 and all(e.kind == "turn" and len(e.turn_ids) == 1 for e in ev) and len(set(turns)) == 6
    r = navigate(q, store, context=NavigatorContext(**SEARCH))
    kept = {k["node"] for k in r.trace if k.get("type") == "decision" and k.get("action") != "SKIP"}
    # kept-only ranking: the ranking's turns of kept events, each carrying its event's path
    assert r.kept_ranking and all(e.path[0] in kept and e.path[-1] == e.node_id for e in r.kept_ranking)
    assert [e.node_id for e in r.ranking if e in r.kept_ranking] == [e.node_id for e in r.kept_ranking]
    scores = [e.score for e in r.ranking]
    assert scores == sorted(scores, reverse=True)
    # Its ranking is the seed retriever's (the localize node) with the explored turns fused in
    # after its strong head; a question the seed already meets gets the seed ranking itself.
    seed = [store.snapshot().attrs[i]["turn_id"] for i, _ in one_shot(q, store, retriever="oneshot", pool=50)]
    assert [e.turn_ids[0] for e in r.ranking[:5]] == seed[:5]
    easy = navigate(q, store)
    assert not decisions(easy) and of_type(easy, "route")[0]["reason"] == "the seed ranking meets every subgoal"
    assert flatten_turns(navigator(q, store, k=10), 10) == flatten_turns(retrieve("oneshot", q, store, k=10), 10)


def test_navigator_honours_k(store):
    n_turns = len(store.snapshot().indices_of("turn"))
    for k in (3, 8, 50):
        want = min(k, n_turns)
        assert len(navigator("What did Pixel chew?", store, k=k)) == want
    all_turns = {store.snapshot().attrs[i]["turn_id"] for i in store.snapshot().indices_of("turn")}
    for k in (1, 3, 8):  # kept events, then other turns: k items, unless they already hold every turn
        r = navigate("What did Pixel chew?", store, k=k)
        assert len({e.node_id for e in r.evidence}) == len(r.evidence) <= k
        assert len(r.evidence) == k or {t for e in r.evidence for t in e.turn_ids} == all_turns


def test_empty_question_is_refused(store):
    with pytest.raises(ValueError):
        navigate("  ", store)


# --------------------------------------------------------------------------- CLI


def test_cli_ask_navigator_prints_evidence_and_the_path(memory, capsys):
    root, _ = memory
    code = main(
        [
            "--embeddings",
            "hash",
            "--data-dir",
            str(root),
            "ask",
            "What did Pixel chew?",
            "--namespace",
            NS,
            "--retriever",
            "navigator",
            "--trace",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "navigator, offline" in out and "path:" in out
    assert "plan (offline)" in out and "localize" in out and "route → respond: the seed ranking meets" in out
    assert "D2:" in out or "D1:" in out  # evidence lines cite turns
