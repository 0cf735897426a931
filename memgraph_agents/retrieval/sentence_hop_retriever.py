"""``sentence_hop`` (SGMem): top sentences, h hops on the sentence kNN graph, scored turns.

Sentences whose similarity clears γ (sim + 1 ≥ γ) seed; h = 1 hop on the kNN graph gathers
their neighbours; each sentence maps to its turn (the chunk); a turn scores the mean
similarity of its gathered sentences. Turns that the hops do not reach are appended in
dense order so a caller always gets k items.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.sentence_hop import sentence_hop as hop
from memgraph_agents.retrieval.evidence import to_evidence
from memgraph_agents.retrieval.seeds import OTHER_SPEAKER, node_similarities, speaker_weights
from memgraph_agents.storage.snapshot import EDGE_CODE


def sentence_bm25(snap):
    """BM25 over sentence texts, built once per snapshot."""
    from memgraph_agents.retrieval.algorithms.lexical import BM25Index

    return snap.derived(("bm25", "sentence"), lambda: BM25Index([snap.text[i] for i in snap.indices_of(NodeKind.SENTENCE)]))


def _sentence_graph(snap):
    def build():
        sents = snap.indices_of(NodeKind.SENTENCE)
        pos = np.full(len(snap.ids), -1, dtype=np.int64)
        pos[sents] = np.arange(len(sents))
        m = (snap.ekind == EDGE_CODE["similar"]) & (pos[snap.src] >= 0) & (pos[snap.dst] >= 0)
        n = len(sents)
        knn = sp.csr_matrix((np.ones(int(m.sum())), (pos[snap.src[m]], pos[snap.dst[m]])), shape=(n, n))
        knn = knn.maximum(knn.T).tocsr()
        turn_of = np.array([snap.index.get(f"turn:{snap.attrs[i]['turn_id']}", -1) for i in sents], dtype=np.int64)
        return sents, knn, turn_of

    return snap.derived("sentence_graph", build)


def sentence_hop(query: str, store, *, k: int = 10, top_n: int = 15, gamma: float = 1.2, hops: int = 1,
                 other_speaker: float = OTHER_SPEAKER, lexical: float = 0.3) -> list[Evidence]:
    snap = store.snapshot()
    sims = node_similarities(snap, store.embedder.embed_one(query))
    sents, knn, turn_of = _sentence_graph(snap)
    if not len(sents):
        return []
    rel = sims[sents].astype(np.float64)
    if lexical > 0:  # cosine plus a max-normalised BM25 term, so exact names and numbers count
        lex = sentence_bm25(snap).scores(query)
        if lex.max() > 0:
            rel = rel + lexical * lex / lex.max()
    ranked = hop(rel, knn, turn_of, top_n=top_n, gamma=gamma, hops=hops)
    sw = speaker_weights(query, snap, other_speaker) if other_speaker < 1 else None
    if sw is not None:  # the speaker prior (see ``speaker_weights``) re-orders the chunks
        ranked = sorted(((t, s * sw[t], js) for t, s, js in ranked), key=lambda r: -r[1])
    out = [to_evidence(snap, int(t), s, retriever="sentence_hop",
                       path=[snap.ids[sents[j]] for j in js[:3]] + [snap.ids[t]]) for t, s, js in ranked[:k]]
    if len(out) < k:  # fill from the best remaining sentences' turns
        have = {e.node_id for e in out}
        for j in np.argsort(-sims[sents], kind="stable"):
            t = int(turn_of[j])
            if t >= 0 and snap.ids[t] not in have:
                have.add(snap.ids[t])
                out.append(to_evidence(snap, t, float(sims[sents[j]]) - 1.0, retriever="sentence_hop"))
                if len(out) >= k:
                    break
    return out
