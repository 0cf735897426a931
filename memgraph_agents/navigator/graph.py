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


def build_navigator_graph(checkpointer=None):  # no annotations: the nodes take (state, config, runtime) untyped
    g = StateGraph(NavState, context_schema=NavigatorContext, input_schema=NavInput)
    g.add_node("planner", planner)
    g.add_node("localize", localize)
    g.add_node("explore", explore, input_schema=ExplorerInput)
    g.add_node("coordinate", coordinate)
    g.add_node("refine", refine)
    g.add_node("respond", respond)
    g.add_edge(START, "planner")
    g.add_edge("planner", "localize")
    g.add_conditional_edges("localize", route, PATHS)
    g.add_edge("explore", "coordinate")
    g.add_conditional_edges("coordinate", route, PATHS)
    g.add_edge("refine", "localize")
    g.add_edge("respond", END)
    return g.compile(checkpointer=checkpointer, name="navigator")


graph = build_navigator_graph()  # compiled once per process: every navigation runs this object
