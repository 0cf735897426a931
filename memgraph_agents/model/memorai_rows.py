"""What a MemORAI layer's rows mean to a reader: the edge of a segment's turns and a triple's text.

Shared by the layer that writes them (``construct.memorai.write``) and the retrievers that read
them (``retrieval.memorai_graph``), so a query imports neither side's machinery.
"""

from __future__ import annotations

from memgraph_agents.model.graph import EdgeKind

SEGMENT_EDGE = EdgeKind.MEMBER  # segment -> turn


def triple_text(subject: str, label: str, obj: str) -> str:
    """The description of a triple edge: ``Ana adopted Pixel`` (label ``adopted``)."""
    return f"{subject} {label.replace('_', ' ')} {obj}"
