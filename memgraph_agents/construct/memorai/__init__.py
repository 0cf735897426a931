"""The ``memorai`` generated-memory layer (the ``memorai`` preset). Entry point: ``build_layer``.

``build_layer`` is imported on first use: it brings the LLM client stack (LangChain's chat
models), which the offline readers of this package's helpers (retrievers) never need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgraph_agents.construct.memorai.layer import build_layer

__all__ = ["build_layer"]


def __getattr__(name: str) -> Any:
    if name == "build_layer":
        # lazy: the layer imports its LLM steps: only when a preset builds it
        from memgraph_agents.construct.memorai.layer import build_layer

        return build_layer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
