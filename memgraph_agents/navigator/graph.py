"""The navigator graph: CompassMem as a LangGraph state machine — the one that runs.

    START → planner → localize ⇉ explore ×N ─→ coordinate ⇉ explore ×N   (keep exploring)
                         ↑                         ├──→ refine → localize
                         └─────────────────────────┴──→ respond → END

Every door (``Memory.search`` / ``ask``, the agent tools, ``MemgraphStore``, MCP, the CLI) runs
this compiled graph through ``navigator.run``; there is no second runtime. ``localize`` and
``coordinate`` fan out one wave of explorers with ``Send`` (disjoint frontiers claimed in the
same update, so no node is expanded twice); explorers merge through the reducers of
``NavState``. Both conditional edges declare their ``path_map``, so
``graph.get_graph(xray=True)`` draws the real topology. The input is ``NavInput``
(``{question, k}``: what Studio's form shows); parameters are the run context
(``NavigatorContext``). Compiled once per process (this module's ``graph``, imported lazily by
the first navigation) and without a checkpointer (``langgraph dev`` brings its own); its state
is plain data (``navigator.state``), so any checkpointer stores it.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.nodes import coordinate, dispatch, explore, localize, planner, refine
from memgraph_agents.navigator.respond import respond
from memgraph_agents.navigator.state import ExplorerInput, NavInput, NavState

PATHS = {"explore": "explore", "refine": "refine", "respond": "respond"}


def route(state: NavState) -> list[Send] | str:
    """The decision of ``localize`` / ``coordinate``: one ``Send`` per explorer of the wave, or a node."""
    step = dispatch(state)
    return [Send("explore", p) for p in step] if isinstance(step, list) else step


# node name -> function: the graph's one table (``bench.graph_floor`` compiles the same topology
# with trivial nodes to measure LangGraph's own share of a query)
NODES = {
    "planner": planner,
    "localize": localize,
    "explore": explore,
    "coordinate": coordinate,
    "refine": refine,
    "respond": respond,
}


def build_navigator_graph(checkpointer=None, *, nodes=NODES, router=route, name="navigator"):
    # no annotations on nodes/router: the nodes take (state, config, runtime) untyped
    g = StateGraph(NavState, context_schema=NavigatorContext, input_schema=NavInput)
    for node, fn in nodes.items():
        g.add_node(node, fn, input_schema=ExplorerInput if node == "explore" else None)  # explorers get their Send
    g.add_edge(START, "planner")
    g.add_edge("planner", "localize")
    g.add_conditional_edges("localize", router, PATHS)
    g.add_edge("explore", "coordinate")
    g.add_conditional_edges("coordinate", router, PATHS)
    g.add_edge("refine", "localize")
    g.add_edge("respond", END)
    return g.compile(checkpointer=checkpointer, name=name)


graph = build_navigator_graph()  # compiled once per process: every navigation runs this object
