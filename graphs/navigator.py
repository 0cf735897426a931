"""The navigator graph, exported for ``langgraph.json`` / Studio (built in ``memgraph_agents.navigator.graph``).

The navigator package runs the graph itself (``navigate``), so the graph lives there: the
navigator layer never imports ``graphs/``.
"""

from memgraph_agents.navigator.graph import PATHS, build_navigator_graph, graph

__all__ = ["PATHS", "build_navigator_graph", "graph"]
