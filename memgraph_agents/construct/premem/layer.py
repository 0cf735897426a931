"""The ``premem`` layer (PREMem, Kim et al., 2025): pre-storage reasoning, one session at a time.

Algorithm 1 of the paper, for session i:

1. extract memory fragments (``fragments.py``: LLM, or offline rules);
2. embed them and cluster them into C_i (``clusters.cluster_fragments``, silhouette);
3. link each new cluster to the earlier clusters of the persistent pool P_{i-1} whose
   centroid cosine is ≥ θ (``IngestParams.premem_link_threshold``), at most
   ``premem_max_links`` each; linked pool clusters leave the pool (``pool.py``);
4. with an LLM, reason over the linked pairs (``reasoning.py``): reasoning fragments along
   the five evolution patterns. Offline, or when the call fails, there is none.

Everything is owned by the session being ingested (``nodes.py`` lists the rows).
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.aio import off_loop
from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.premem.clusters import centroid, cluster_fragments, link_clusters
from memgraph_agents.construct.premem.fragments import session_fragments
from memgraph_agents.construct.premem.nodes import add_clusters, add_fragments, add_link, add_reasoning
from memgraph_agents.construct.premem.pool import committed_view, persistent_pool
from memgraph_agents.construct.premem.reasoning import LinkedPair, reason_over_links
from memgraph_agents.model.conversation import Session


async def build_layer(build: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    speakers = list(dict.fromkeys([*ctx.speakers, *session.participants]))
    fragments, notes = await session_fragments(session, ctx, speakers)
    build.notes.extend(notes)
    if not fragments:
        return build
    frag_nodes = add_fragments(build, session.id, fragments)

    p = ctx.params
    vecs = np.asarray(await off_loop(ctx.embedder.embed, [n.text for n in frag_nodes]), dtype=np.float64)
    groups = cluster_fragments(vecs, merge_threshold=ctx.cut(p.premem_link_threshold))
    centroids = np.array([centroid(vecs[rows]) for rows in groups])
    new_views = add_clusters(
        build, session.id, session.date.date().isoformat(), groups, fragments, frag_nodes, centroids
    )

    pool_idx, pool_vecs = await off_loop(persistent_pool, ctx)
    pairs: list[LinkedPair] = []
    for r, j, raw in link_clusters(centroids, pool_vecs, ctx.cut(p.premem_link_threshold), p.premem_max_links):
        sim = ctx.scaled(raw)
        old = committed_view(ctx.snapshot, int(pool_idx[j]))
        add_link(build, session.id, new_views[r], old, sim)
        pairs.append(LinkedPair(earlier=old, later=new_views[r], similarity=sim))

    insights, notes = await reason_over_links(pairs, ctx, session.id, speakers)
    build.notes.extend(notes)
    add_reasoning(build, session.id, insights)
    return build
