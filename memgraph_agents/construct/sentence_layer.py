"""Step 6: the sentence layer (SGMem): rule-based sentences per turn, kNN ``similar`` edges.

Only the new sentences' neighbours are computed (against all sentences, old and new), so an
ingest step costs O(new × all), never all × all.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.sentences import turn_sentences
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind, node_id
from memgraph_agents.model.ranking import top_k_named_rows


def add_sentences(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    new: list[Node] = []
    for t in b.of_kind(NodeKind.TURN):
        for i, text in enumerate(turn_sentences(t.attrs["speaker"], t.text), start=1):
            sid = node_id(NodeKind.SENTENCE, t.attrs["turn_id"], str(i))
            new.append(
                Node(
                    id=sid,
                    kind=NodeKind.SENTENCE,
                    text=text,
                    session_id=session.id,
                    turn_ids=[t.attrs["turn_id"]],
                    attrs={"turn_id": t.attrs["turn_id"], "index": i},
                )
            )
            b.edges.append(
                Edge(src=t.id, dst=sid, kind=EdgeKind.CONTAINS, session_id=session.id, turn_ids=[t.attrs["turn_id"]])
            )
    b.nodes.extend(new)
    k = ctx.params.sentence_knn
    if not new or k == 0:
        return b
    new_vecs = ctx.embedder.embed([n.text for n in new])
    idx, old_vecs = ctx.existing(NodeKind.SENTENCE)
    all_vecs = np.vstack([old_vecs, new_vecs])
    sims = new_vecs @ all_vecs.T
    offset = len(idx)
    ids = ctx.snapshot.ids

    def name(j: int) -> str:
        return ids[idx[j]] if j < offset else new[j - offset].id

    def names(cand: np.ndarray) -> list[str]:
        return [name(int(j)) for j in cand]

    # Near-ties (e.g. two sentences with the same text) go to the smaller id: never to the
    # row order or to float noise from the vector backend (model.ranking). Only the
    # candidates are ranked by id, not every stored sentence (``top_k_named``).
    seen: set[tuple[str, str]] = set()
    rows = np.arange(len(new))
    sims[rows, offset + rows] = -np.inf  # not its own neighbour
    for r, best in enumerate(top_k_named_rows(sims, k, names)):
        for j in best:
            a, c = new[r].id, name(int(j))
            pair = (min(a, c), max(a, c))
            if pair in seen or not np.isfinite(sims[r, j]):
                continue
            seen.add(pair)
            b.edges.append(
                Edge(
                    src=a,
                    dst=c,
                    kind=EdgeKind.SIMILAR,
                    label="sentence",
                    session_id=session.id,
                    weight=float(sims[r, j]),
                )
            )
    return b
