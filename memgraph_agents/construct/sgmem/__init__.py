"""The ``sgmem`` generated-memory layer (the ``sgmem`` preset). Entry point: ``build_layer``."""

from memgraph_agents.construct.sgmem.layer import build_layer

__all__ = ["build_layer"]
