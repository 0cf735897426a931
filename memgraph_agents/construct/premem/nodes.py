"""PREMem rows: fragment, cluster and reasoning nodes and their edges, owned by the session.

* FRAGMENT ``fragment:<session>:<n>``: text ``key: content (time)``; attrs category, key,
  time, time_relation, index, builder; turn_ids = its source turns; EVIDENCE -> each turn.
* CLUSTER ``cluster:<session>:<n>``: text = its fragments' keys then contents, condensed;
  attrs size, keys, builder and ``centroid`` (the snapshot serves it as the cluster's
  vector, so linking compares centroids as the paper does); MEMBER -> each fragment.
* LINK new cluster -> earlier cluster, weight = centroid cosine.
* REASONING ``reasoning:<session>:<n>``: text ``key: content (time)``; attrs pattern, key,
  time, time_relation, clusters, builder; DERIVED -> every fragment it reasons over (of both
  clusters); turn_ids = the union of theirs. Owned by this session, so deleting it removes
  them, and deleting the earlier session removes them through their DERIVED edges.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.premem.model import Fragment
from memgraph_agents.construct.premem.reasoning import ClusterView, Insight
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind, node_id

MAX_CLUSTER_TEXT = 1000
MAX_CLUSTER_KEYS = 12


def _union(lists: list[list[str]]) -> list[str]:
    return list(dict.fromkeys(t for ts in lists for t in ts))


def add_fragments(b: SessionBuild, session_id: str, fragments: list[Fragment]) -> list[Node]:
    nodes = []
    for n, f in enumerate(fragments, start=1):
        fid = node_id(NodeKind.FRAGMENT, session_id, str(n))
        nodes.append(
            Node(
                id=fid,
                kind=NodeKind.FRAGMENT,
                text=f.text,
                session_id=session_id,
                turn_ids=f.turn_ids,
                attrs={
                    "category": f.category,
                    "key": f.key,
                    "time": f.time.text,
                    "time_relation": f.time.relation,
                    "index": n,
                    "builder": f.builder,
                },
            )
        )
        b.edges.extend(
            Edge(src=fid, dst=node_id(NodeKind.TURN, t), kind=EdgeKind.EVIDENCE, session_id=session_id, turn_ids=[t])
            for t in f.turn_ids
        )
    b.nodes.extend(nodes)
    return nodes


def cluster_text(fragments: list[Fragment]) -> str:
    """``key1; key2: content1 | content2 ...`` (distinct keys), cut at ``MAX_CLUSTER_TEXT``."""
    keys = list(dict.fromkeys(f.key for f in fragments))[:MAX_CLUSTER_KEYS]
    text = "; ".join(keys) + ": " + " | ".join(f.content for f in fragments)
    return text if len(text) <= MAX_CLUSTER_TEXT else text[: MAX_CLUSTER_TEXT - 1].rstrip() + "…"


def add_clusters(
    b: SessionBuild,
    session_id: str,
    date: str,
    groups: list[list[int]],
    fragments: list[Fragment],
    frag_nodes: list[Node],
    centroids: np.ndarray,
) -> list[ClusterView]:
    views = []
    for n, (rows, c) in enumerate(zip(groups, centroids), start=1):
        cid = node_id(NodeKind.CLUSTER, session_id, str(n))
        members = [fragments[r] for r in rows]
        keys = list(dict.fromkeys(f.key for f in members))[:MAX_CLUSTER_KEYS]
        b.nodes.append(
            Node(
                id=cid,
                kind=NodeKind.CLUSTER,
                text=cluster_text(members),
                session_id=session_id,
                turn_ids=_union([f.turn_ids for f in members]),
                attrs={
                    "size": len(rows),
                    "keys": keys,
                    "builder": members[0].builder,
                    "centroid": [round(float(x), 6) for x in c],
                },
            )
        )
        b.edges.extend(
            Edge(
                src=cid,
                dst=frag_nodes[r].id,
                kind=EdgeKind.MEMBER,
                session_id=session_id,
                turn_ids=fragments[r].turn_ids,
            )
            for r in rows
        )
        views.append(
            ClusterView(
                id=cid,
                session_id=session_id,
                date=date,
                fragment_ids=[frag_nodes[r].id for r in rows],
                fragment_lines=[f"{fragments[r].category} | {fragments[r].text}" for r in rows],
                fragment_turns=[fragments[r].turn_ids for r in rows],
            )
        )
    return views


def add_link(b: SessionBuild, session_id: str, new: ClusterView, old: ClusterView, similarity: float) -> None:
    b.edges.append(
        Edge(
            src=new.id,
            dst=old.id,
            kind=EdgeKind.LINK,
            session_id=session_id,
            weight=similarity,
            turn_ids=_union(new.fragment_turns + old.fragment_turns),
        )
    )


def add_reasoning(b: SessionBuild, session_id: str, insights: list[Insight]) -> None:
    turns_of: dict[str, list[str]] = {}
    for ins in insights:
        for view in (ins.pair.earlier, ins.pair.later):
            turns_of.update(zip(view.fragment_ids, view.fragment_turns))
    for n, ins in enumerate(insights, start=1):
        rid = node_id(NodeKind.REASONING, session_id, str(n))
        f = ins.fragment
        b.nodes.append(
            Node(
                id=rid,
                kind=NodeKind.REASONING,
                text=f.text,
                session_id=session_id,
                turn_ids=f.turn_ids,
                attrs={
                    "pattern": f.category,
                    "key": f.key,
                    "time": f.time.text,
                    "time_relation": f.time.relation,
                    "clusters": [ins.pair.earlier.id, ins.pair.later.id],
                    "builder": f.builder,
                },
            )
        )
        b.edges.extend(
            Edge(src=rid, dst=fid, kind=EdgeKind.DERIVED, session_id=session_id, turn_ids=turns_of[fid])
            for fid in ins.source_ids
        )
