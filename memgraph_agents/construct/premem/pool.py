"""PREMem's persistent pool, read from committed memory (the graph is the pool's state).

P_{i-1} = the clusters of earlier sessions that no later cluster has matched yet
(Kim et al., 2025, §3.2.1): a committed CLUSTER node without an incoming LINK edge. Keeping
the pool implicit in the graph means deleting a session also restores the pool: its LINK
edges go with it, and the clusters they retired are open to matching again.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.premem.reasoning import ClusterView
from memgraph_agents.model.graph import EdgeKind, NodeKind
from memgraph_agents.storage.snapshot import EDGE_CODE, GraphSnapshot


def persistent_pool(ctx: BuildContext) -> tuple[np.ndarray, np.ndarray]:
    """(snapshot indices, centroid vectors) of the committed clusters still in the pool."""
    idx, vecs = ctx.existing(NodeKind.CLUSTER)
    snap = ctx.snapshot
    matched = set(snap.dst[snap.ekind == EDGE_CODE[EdgeKind.LINK.value]].tolist())
    keep = np.array([int(i) not in matched for i in idx], dtype=bool)
    return idx[keep], vecs[keep]


def committed_view(snap: GraphSnapshot, i: int) -> ClusterView:
    """A committed cluster with its member fragments (in extraction order)."""
    members = snap.dst[(snap.src == i) & (snap.ekind == EDGE_CODE[EdgeKind.MEMBER.value])]
    frags = sorted((int(j) for j in members), key=lambda j: (cast(dict, snap.attrs[j]).get("index", 0), snap.ids[j]))
    owner = snap.owner[i]
    return ClusterView(
        id=snap.ids[i],
        session_id=owner,
        date=snap.session_date(owner) or "",
        fragment_ids=[snap.ids[j] for j in frags],
        fragment_lines=[f"{snap.attrs[j].get('category', '')} | {snap.text[j]}" for j in frags],
        fragment_turns=[list(snap.turn_ids[j]) for j in frags],
    )
