"""The ``sgmem`` generated-memory layer (issue 7). Entry point: ``build_layer``."""

from __future__ import annotations

from memgraph_agents.construct.sgmem.layer import build_layer

__all__ = ["build_layer"]
