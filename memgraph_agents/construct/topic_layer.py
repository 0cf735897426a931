"""Step 5: the topic layer (CompassMem): k-means over event embeddings, online assignment.

n = max(2, min(⌊events/5⌋, 50)) topics; a new event joins the nearest topic at cosine >=
the join threshold or opens a new topic; every T ingested sessions all events are
re-clustered. Topic rows are namespace-level (owner ``""``) and rewritten wholesale.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.topics import assign_online, kmeans_topics, topic_count
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import TOPIC_OWNER, Edge, EdgeKind, Node, NodeKind, node_id
from memgraph_agents.model.ranking import ranks_of, top_k


def _normalise(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v)
    return v / n if n else v


def update_topics(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    snap = ctx.snapshot
    old_idx, old_vecs = ctx.existing(NodeKind.EVENT)
    new_events = b.of_kind(NodeKind.EVENT)
    ids = [snap.ids[i] for i in old_idx] + [e.id for e in new_events]
    if not ids:
        return b
    vecs = np.vstack([old_vecs, ctx.embedder.embed([e.text for e in new_events])]) if new_events else old_vecs
    texts = [snap.text[i] for i in old_idx] + [e.text for e in new_events]

    # Current membership from the committed topic -> event member edges.
    topic_of: dict[str, str] = {snap.ids[e]: snap.ids[t] for e, t in snap.event_topic.items()}
    topic_ids = sorted(set(topic_of.values()))
    # An append (a chat turn) never re-clusters: that would cost all events on every turn.
    recluster = not topic_ids or (not ctx.append and ctx.seq % ctx.params.topic_recluster_every == 0)

    if recluster:
        labels, _ = kmeans_topics(vecs, topic_count(len(ids)))
        assignment = [int(x) for x in labels]
    else:
        pos = {t: k for k, t in enumerate(topic_ids)}
        assignment = [pos.get(topic_of.get(i, ""), -1) for i in ids]
        # A topic whose members all went (deleted or fused events) gets a zero centroid: it attracts nothing.
        centroids = [
            _normalise(vecs[m].mean(0)) if any(m) else np.zeros(vecs.shape[1], vecs.dtype)
            for m in ([a == k for a in assignment] for k in range(len(topic_ids)))
        ]
        for r in range(len(ids)):
            if assignment[r] >= 0:
                continue
            k = assign_online(vecs[r], np.array(centroids), ctx.params.topic_join_threshold) if centroids else None
            if k is None:
                centroids.append(vecs[r])
                k = len(centroids) - 1
            assignment[r] = int(k)

    nodes: list[Node] = []
    edges: list[Edge] = []
    for k in sorted(set(assignment)):
        rows = [r for r, a in enumerate(assignment) if a == k]
        centroid = _normalise(vecs[rows].mean(0))
        central = rows[int(top_k(vecs[rows] @ centroid, 1, tiebreak=ranks_of([ids[r] for r in rows]))[0])]
        tid = node_id(NodeKind.TOPIC, str(k))
        nodes.append(
            Node(
                id=tid,
                kind=NodeKind.TOPIC,
                text=texts[central][:300],
                session_id=TOPIC_OWNER,
                embed=False,
                attrs={"size": len(rows), "centroid": [round(float(x), 6) for x in centroid]},
            )
        )
        edges.extend(
            Edge(src=tid, dst=ids[r], kind=EdgeKind.MEMBER, session_id=TOPIC_OWNER, weight=float(vecs[r] @ centroid))
            for r in rows
        )
    b.replace_nodes, b.replace_edges = nodes, edges
    return b
