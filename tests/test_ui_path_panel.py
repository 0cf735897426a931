"""The search page's path panel: a run that stopped after localize shows the ranking it answered
with (seed turns, seed scores, why it stopped) instead of an empty drawing; a run that explored
keeps its drawing; without the [draw] extra the page says how to get the picture."""

from __future__ import annotations

import re
import sys

from memgraph_agents import Memory
from memgraph_agents.api.results import AskResult
from memgraph_agents.examples import sample_conversation
from memgraph_agents.navigator.run import NavigationResult
from memgraph_agents.ui.path_panel import seed_ranking, stopped_after_localize
from tests.test_ui import client, text

QUESTION = "Where will the wedding take place now?"


def _demo(tmp_path) -> Memory:
    mem = Memory(tmp_path / "mem", embeddings="hash", llm="none")
    mem.add(sample_conversation(), namespace="demo")
    return mem


def test_a_run_that_stopped_after_localize_shows_its_seed_ranking(tmp_path):
    mem = _demo(tmp_path)
    asked = mem.ask(QUESTION, namespace="demo", k=5)
    assert asked.navigation is not None and stopped_after_localize(asked.navigation)
    page = client(mem).get("/ns/demo/search", params={"q": QUESTION, "k": "5"})
    assert page.status_code == 200
    panel = page.text[page.text.index('class="seed-ranking"') :]
    shown = text(page)
    assert "The navigator stopped after localize" in shown and "the seed ranking meets every subgoal" in shown
    seeds = next(e for e in asked.navigation.trace if e["type"] == "localize")["scores"]
    first = asked.navigation.ranking[0]
    tid = first.turn_ids[0]
    row = re.search(rf'href="/ns/demo/item/{re.escape(tid)}" class="id">{re.escape(tid)}</a></td><td>([0-9.]+)', panel)
    assert row and float(row.group(1)) == round(seeds[first.node_id], 3)
    assert '<iframe class="trace"' not in page.text  # no empty frame


def test_a_run_that_explored_keeps_its_drawing():
    explored = NavigationResult(
        question="q",
        trace=[
            {"type": "localize", "round": 0, "candidates": ["turn:S1:1"], "scores": {"turn:S1:1": 0.5}},
            {"type": "decision", "round": 0, "action": "EXPAND", "node": "event:S1:1"},
        ],
    )
    result = AskResult(question="q", namespace="demo", retriever="navigator", navigation=explored)
    assert not stopped_after_localize(explored) and seed_ranking("demo", result) is None
    assert seed_ranking("demo", AskResult(question="q", namespace="demo", retriever="bm25")) is None


def test_without_the_draw_extra_the_page_says_how_to_get_the_picture(tmp_path, monkeypatch):
    mem = _demo(tmp_path)
    monkeypatch.setitem(sys.modules, "networkx", None)  # import networkx: ImportError, as without [draw]
    shown = text(client(mem).get("/ns/demo/search", params={"q": QUESTION}))
    assert 'pip install "memgraph-agents[draw]"' in shown.replace("&quot;", '"')
    assert "The navigator stopped after localize" in shown
