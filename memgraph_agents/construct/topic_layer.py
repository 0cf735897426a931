"""Step 5: the topic layer (CompassMem): k-means over event embeddings, online assignment.

n = max(2, min(⌊events/5⌋, 50)) topics. Between re-clusterings a session's new events join
the nearest topic centroid at cosine >= the join threshold or open a new topic, and only the
topics they touch are rewritten (their node and the new ``member`` edges): a session's cost
does not grow with the namespace. Re-clustering (k-means over all events, every topic row
rewritten) is scheduled by drift: at most every T sessions, and only once the events added
since the last clustering are ``topic_drift`` of those it clustered, or half of the events
assigned online since then opened topics of their own. These counters ride in the attrs of
the topic rows (the row that has seen the most events holds the current ones). An append (a
chat turn) only ever assigns online; a replacement re-clusters (its old events' memberships
go with them). Topic rows are namespace-level (owner ``""``).
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


def recluster_due(n_events: int, clustered: int, opened: int, seq: int, every: int, drift: float) -> bool:
    """Whether this session re-clusters: never between the every-T ticks; on a tick when the
    memory drifted from its clustering (grew by ``drift`` of it, or online assignment keeps
    opening topics)."""
    if seq % every != 0:
        return False
    added = n_events - clustered
    return added >= drift * max(clustered, 1) or (added > 0 and opened * 2 > added)


def update_topics(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    snap = ctx.snapshot
    new_events = b.of_kind(NodeKind.EVENT)
    topics = [int(i) for i in snap.indices_of(NodeKind.TOPIC) if snap.owner[i] == TOPIC_OWNER]
    n_events = len(snap.indices_of(NodeKind.EVENT)) + len(new_events)
    if not n_events:
        return b
    # The drift counters ride on the topic rows: the row written last (most events seen) is current.
    state: dict = max((snap.attrs[i] for i in topics), key=lambda a: int(a.get("events_seen", 0)), default={})
    clustered, opened = int(state.get("clustered_events", 0)), int(state.get("opened_online", 0))
    # An append never re-clusters (that would cost all events on every chat turn); a
    # replacement always does: the old version's events keep no stale membership.
    replacing = bool(ctx.exclude) and not ctx.append
    if (
        not topics
        or replacing
        or (
            not ctx.append
            and recluster_due(
                n_events, clustered, opened, ctx.seq, ctx.params.topic_recluster_every, ctx.params.topic_drift
            )
        )
    ):
        return _recluster(b, ctx, new_events)
    if not new_events:
        return b
    vecs = ctx.embed_with_build([e.text for e in new_events], b)
    centroids = [np.asarray(snap.attrs[i].get("centroid", []), dtype=np.float64) for i in topics]
    sizes = [int(snap.attrs[i].get("size", 0)) for i in topics]
    ids = [snap.ids[i] for i in topics]
    texts = [snap.text[i] for i in topics]
    numbers = [int(t.rsplit(":", 1)[-1]) for t in ids if t.rsplit(":", 1)[-1].isdigit()]
    next_number = max(numbers, default=-1) + 1
    touched: dict[int, list[int]] = {}
    for r, ev in enumerate(new_events):
        valid = [k for k, c in enumerate(centroids) if c.shape == vecs[r].shape]
        k = (
            assign_online(vecs[r], np.array([centroids[j] for j in valid]), ctx.cut(ctx.params.topic_join_threshold))
            if valid
            else None
        )
        if k is None:
            opened += 1
            ids.append(node_id(NodeKind.TOPIC, str(next_number)))
            next_number += 1
            texts.append(ev.text[:300])
            centroids.append(np.asarray(vecs[r], dtype=np.float64))
            sizes.append(0)
            k = len(ids) - 1
        else:
            k = valid[k]
            centroids[k] = _normalise(centroids[k] * sizes[k] + vecs[r])
        sizes[k] += 1
        touched.setdefault(k, []).append(r)
    nodes: list[Node] = []
    edges: list[Edge] = []
    for k in sorted(touched):
        attrs = {
            "size": sizes[k],
            "centroid": [round(float(x), 6) for x in centroids[k]],
            "clustered_events": clustered,
            "opened_online": opened,
            "events_seen": n_events,
        }
        nodes.append(
            Node(id=ids[k], kind=NodeKind.TOPIC, text=texts[k], session_id=TOPIC_OWNER, embed=False, attrs=attrs)
        )
        edges.extend(
            Edge(
                src=ids[k],
                dst=new_events[r].id,
                kind=EdgeKind.MEMBER,
                session_id=TOPIC_OWNER,
                weight=float(vecs[r] @ centroids[k]),
            )
            for r in touched[k]
        )
    b.replace_nodes, b.replace_edges, b.replace_all_topics = nodes, edges, False
    return b


def _recluster(b: SessionBuild, ctx: BuildContext, new_events: list[Node]) -> SessionBuild:
    """k-means over every event; all topic rows rewritten."""
    snap = ctx.snapshot
    old_idx, old_vecs = ctx.existing(NodeKind.EVENT)
    ids = [snap.ids[i] for i in old_idx] + [e.id for e in new_events]
    vecs = np.vstack([old_vecs, ctx.embed_with_build([e.text for e in new_events], b)]) if new_events else old_vecs
    texts = [snap.text[i] for i in old_idx] + [e.text for e in new_events]
    labels, _ = kmeans_topics(vecs, topic_count(len(ids)))
    assignment = [int(x) for x in labels]
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
                attrs={
                    "size": len(rows),
                    "centroid": [round(float(x), 6) for x in centroid],
                    "clustered_events": len(ids),
                    "opened_online": 0,
                    "events_seen": len(ids),
                },
            )
        )
        edges.extend(
            Edge(src=tid, dst=ids[r], kind=EdgeKind.MEMBER, session_id=TOPIC_OWNER, weight=float(vecs[r] @ centroid))
            for r in rows
        )
    b.replace_nodes, b.replace_edges, b.replace_all_topics = nodes, edges, True
    return b
