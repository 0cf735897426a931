"""The ``premem`` generated-memory layer (the ``premem`` preset). Entry point: ``build_layer``."""

from memgraph_agents.construct.premem.layer import build_layer

__all__ = ["build_layer"]
