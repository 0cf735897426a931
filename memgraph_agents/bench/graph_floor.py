"""The LangGraph floor of a navigator query: the navigator's graph with nodes that do nothing.

The default query runs the compiled navigator graph (``navigator.graph``); part of its CPU is
LangGraph's own (channels, the state's reducers, the conditional edges, the run's tasks), paid
whatever the nodes do. This measures that part: a graph of the same topology (the navigator's
nodes and edges, its ``PATHS`` and conditional routing), state schema (``NavState`` and its
reducers), input schema and context schema, whose nodes return a constant update and whose
routers go straight to ``respond`` (an easy question's path: planner → localize → respond),
invoked on the process's background loop as every navigation is. ``memgraph bench query``
reports its CPU per invoke next to the two sides, so a reader sees how much of the
default's cost the runtime the design names accounts for.
"""

from __future__ import annotations

import time

from memgraph_agents.aio import background
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.graph import build_navigator_graph


async def _planner(state) -> dict:
    return {"subgoals": [state["question"]], "satisfied": [False], "query": state["question"], "round": 0}


async def _localize(state) -> dict:
    return {"kept": {}, "refs": [0.0]}


async def _nothing(state) -> dict:
    return {}


async def _respond(state) -> dict:
    return {"answer": None}


def _route(state) -> str:
    return "respond"


def bare_navigator_graph():
    """The navigator's topology and schemas (``navigator.graph.build_navigator_graph``), compiled,
    with trivial nodes."""
    nodes = {"planner": _planner, "localize": _localize, "explore": _nothing, "coordinate": _nothing}
    nodes |= {"refine": _nothing, "respond": _respond}
    return build_navigator_graph(nodes=nodes, router=_route, name="bare-navigator")


def bare_graph_cpu_ms(runs: int = 200) -> float:
    """Mean CPU milliseconds (the whole process: every thread) of one invoke of
    ``bare_navigator_graph`` on the background loop, over ``runs`` invokes after a warm-up."""
    graph = bare_navigator_graph()
    ctx = NavigatorContext()

    async def one() -> None:
        await graph.ainvoke({"question": "q", "k": 10}, context=ctx)

    background.run(one())
    c0 = time.process_time()
    for _ in range(runs):
        background.run(one())
    return 1000 * (time.process_time() - c0) / runs
