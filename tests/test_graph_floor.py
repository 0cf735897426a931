"""``bench.graph_floor``: the navigator's graph with trivial nodes is the navigator's graph."""

from __future__ import annotations

from memgraph_agents.aio import background
from memgraph_agents.bench.graph_floor import bare_graph_cpu_ms, bare_navigator_graph
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.graph import graph


def _shape(compiled) -> tuple[set[str], set[tuple[str, str, bool]]]:
    drawn = compiled.get_graph()
    return set(drawn.nodes), {(e.source, e.target, e.conditional) for e in drawn.edges}


def test_the_bare_graph_has_the_navigators_nodes_edges_and_schemas():
    bare = bare_navigator_graph()
    assert _shape(bare) == _shape(graph)
    assert set(bare.builder.channels) == set(graph.builder.channels)  # the same state keys and reducers
    assert bare.builder.context_schema is graph.builder.context_schema
    assert bare.builder.input_schema is graph.builder.input_schema


def test_the_bare_graph_runs_the_easy_path_and_is_timed():
    out = background.run(bare_navigator_graph().ainvoke({"question": "q", "k": 3}, context=NavigatorContext()))
    assert out["subgoals"] == ["q"] and out["answer"] is None
    assert bare_graph_cpu_ms(runs=5) > 0
