"""The topology of every exported graph (and the step table of the ingest pipeline), as Mermaid,
against a snapshot (``tests/__snapshots__/test_graph_topology.ambr``), like LangGraph's own
prebuilt tests: a change to a graph's nodes or edges shows up as a diff in review.

After an intended change, update the snapshots and commit them with the change:

    python -m pytest tests/test_graph_topology.py --snapshot-update
"""

from __future__ import annotations

import pytest

from memgraph_agents.debug.graphs import EXPORTED, load_graph


@pytest.mark.parametrize("name", list(EXPORTED))
def test_exported_graph_topology(name, snapshot):
    assert load_graph(name).get_graph().draw_mermaid(with_styles=False) == snapshot


def test_ingest_pipeline_topology(snapshot):
    from memgraph_agents.construct.pipeline.sequence import describe

    assert describe() == snapshot
