"""The navigator (docs/architecture.md, "Retrieval"): CompassMem-style search over the event graph.

Use ``navigate(question, store)`` for a ``NavigationResult`` (answer, evidence, trace,
counters), ``astream_navigate`` to watch the search live, or the ``navigator`` retriever.
The state machine itself is ``memgraph_agents.navigator.graph.graph`` (exported as
``memgraph_agents.graphs.navigator:graph``).
"""

from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.run import NavigationResult, anavigate, astream_navigate, navigate, navigator

__all__ = ["NavigatorContext", "NavigationResult", "anavigate", "astream_navigate", "navigate", "navigator"]
