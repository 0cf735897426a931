"""The ``memorai`` generated-memory layer (the ``memorai`` preset). Entry point: ``build_layer``."""

from __future__ import annotations

from memgraph_agents.construct.memorai.layer import build_layer

__all__ = ["build_layer"]
