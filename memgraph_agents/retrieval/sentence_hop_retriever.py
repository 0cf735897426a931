"""``sentence_hop`` (SGMem, Wu et al., "SGMem: Sentence Graph Memory for Long-Term
Conversational Agents", §3.4): top sentences, h hops on the sentence kNN graph, scored turns.

Per sentence c the relevance is the cosine plus a max-normalised BM25 term (so exact names
and numbers count)::

    rel(q, c) = cos(q, c) + λ · BM25(q, c) / max_c' BM25(q, c'),   λ = ``lexical`` (0.3)

Sentences with rel + 1 ≥ γ (at most ``top_n``) seed C_q; h hops on the kNN graph gather
C* = C_q ∪ N_h(C_q); each sentence maps to its turn (the chunk), and a turn scores

    score(t) = (1/|C*_t|) Σ_{c ∈ C*_t} rel(q, c)

times the speaker prior (``seeds.speaker_weights``; applied so that it always lowers a
score, negative ones included). Turns the hops do not reach are appended in best-sentence
cosine order, scored below every reached turn, so a caller gets k items when there are k turns.

Generated memory (SGMem §3.4 "Collect Relevant Context": the context is the union of the top
chunks K* and the top summaries M*, facts F* and insights I*): with ``generated = G > 0``,
the top-G nodes of each kind in ``generated_kinds`` by cosine to the query are appended
*after* the k chunks, best first, each as its own ``Evidence`` (kind summary / fact /
insight, provenance = the node's turns). They never displace a chunk, so turn recall@k of
the chunk ranking is the same with or without them. Their score is ``floor + cos − 1`` with
``floor`` = min(0, last chunk score): below every chunk, so the list stays sorted, and the
cosine is recoverable. ``generated = 0`` (the default) keeps the plain chunk ranking; the
``sgmem`` preset turns it on.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from memgraph_agents.model.depth import GENERATED_KINDS
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.model.ranking import order_best_first, ranks_by
from memgraph_agents.retrieval.algorithms.lexical import BM25Index
from memgraph_agents.retrieval.algorithms.sentence_hop import sentence_hop as hop
from memgraph_agents.retrieval.evidence import to_evidence, top_indices
from memgraph_agents.retrieval.protocols import RetrieverOptions
from memgraph_agents.retrieval.seeds import (
    OTHER_SPEAKER,
    node_similarities,
    query_texts,
    query_vectors,
    sentence_turns,
    speaker_weights,
)
from memgraph_agents.storage.protocols import StoreReader
from memgraph_agents.storage.snapshot import EDGE_CODE


def sentence_bm25(snap) -> BM25Index:
    """BM25 over sentence texts (in ``sentence_turns`` order), built once per snapshot."""
    return snap.derived(
        ("bm25", "sentence"), lambda: BM25Index([snap.text[i] for i in snap.indices_of(NodeKind.SENTENCE)])
    )


def _sentence_graph(snap) -> tuple[np.ndarray, sp.csr_matrix, np.ndarray]:
    """``(sentence indices, symmetric kNN adjacency among them, turn index per sentence)``, once per snapshot."""

    def build():
        sents, turn_of = sentence_turns(snap)
        pos = np.full(len(snap.ids), -1, dtype=np.int64)
        pos[sents] = np.arange(len(sents))
        m = (snap.ekind == EDGE_CODE["similar"]) & (pos[snap.src] >= 0) & (pos[snap.dst] >= 0)
        n = len(sents)
        knn = sp.csr_matrix((np.ones(int(m.sum())), (pos[snap.src[m]], pos[snap.dst[m]])), shape=(n, n))
        return sents, knn.maximum(knn.T).tocsr(), turn_of

    return snap.derived("sentence_graph", build)


def _penalise(score: float, weight: float) -> float:
    """``score · weight`` for a score ≥ 0; a negative score is pushed down by the same share."""
    return score - (1.0 - weight) * abs(score)


def generated_evidence(
    snap, sims: np.ndarray, per_kind: int, kinds: tuple[str, ...], floor: float, exclude: set[str]
) -> list[Evidence]:
    """The top ``per_kind`` nodes of each of ``kinds`` by cosine, merged best first (ties: kind
    order, then node order), scored ``floor + cos − 1`` (see the module docstring)."""
    picked: list[tuple[float, int, int]] = []
    for rank, kind in enumerate(kinds):
        idx = snap.indices_of(kind)
        if not len(idx) or per_kind <= 0:
            continue
        for i in idx[top_indices(sims[idx], per_kind, tiebreak=snap.id_rank[idx])]:
            if snap.ids[i] not in exclude:
                picked.append((float(sims[i]), rank, int(i)))
    # Best cosine first; near-ties (within TIE_EPS, not BLAS noise) by kind order, then node id.
    tiebreak = ranks_by([p[1] for p in picked], [int(snap.id_rank[p[2]]) for p in picked])
    picked = [picked[int(j)] for j in order_best_first([p[0] for p in picked], tiebreak)]
    return [to_evidence(snap, i, floor + min(cos, 1.0) - 1.0, retriever="sentence_hop") for cos, _, i in picked]


class SentenceHopOptions(RetrieverOptions):
    top_n: int = 15  # seed sentences at most
    gamma: float = 1.2  # a sentence seeds when rel + 1 >= gamma
    hops: int = 1  # hops on the sentence kNN graph
    other_speaker: float = OTHER_SPEAKER  # the speaker prior (1.0: off)
    lexical: float = 0.3  # weight of the max-normalised BM25 term
    generated: int = 0  # generated-memory items per kind after the k chunks (``sgmem``: 3)
    generated_kinds: tuple[str, ...] = GENERATED_KINDS


def sentence_hop(
    query: str, store: StoreReader, *, k: int = 10, options: SentenceHopOptions | None = None
) -> list[Evidence]:
    """The top-k turns by SGMem sentence hops, then ``generated`` items of each generated-memory
    kind (see the module docstring)."""
    o = options or SentenceHopOptions()
    top_n, gamma, hops, other_speaker, lexical = o.top_n, o.gamma, o.hops, o.other_speaker, o.lexical
    generated, generated_kinds = o.generated, o.generated_kinds
    snap = store.snapshot()
    if k <= 0:
        return []
    sents, knn, turn_of = _sentence_graph(snap)
    if not len(sents):
        return []
    # the question's texts in one model call (the relevance of the items reads its neutral form)
    sims = node_similarities(snap, query_vectors(store.embedder, query_texts(query, snap))[0])
    rel = sims[sents].astype(np.float64)
    if lexical > 0:
        lex = sentence_bm25(snap).scores(query)
        if lex.max() > 0:
            rel = rel + lexical * lex / lex.max()
    ranked = hop(
        rel, knn, turn_of, top_n=top_n, gamma=gamma, hops=hops, tiebreak=snap.id_rank[sents], chunk_rank=snap.id_rank
    )
    sw = speaker_weights(query, snap, other_speaker) if other_speaker < 1 else None
    if sw is not None:  # the speaker prior re-orders the chunks (stable for equal scores)
        ranked = [(t, _penalise(s, sw[t]), js) for t, s, js in ranked]
        ranked = [ranked[int(j)] for j in order_best_first([r[1] for r in ranked])]  # near-ties keep their order
    out = [
        to_evidence(
            snap, int(t), s, retriever="sentence_hop", path=[snap.ids[sents[j]] for j in js[:3]] + [snap.ids[t]]
        )
        for t, s, js in ranked[:k]
    ]
    if len(out) < k:  # fill from the best remaining sentences' turns, below every ranked score
        floor = min(0.0, min((e.score for e in out), default=0.0))
        have = {e.node_id for e in out}
        for j in order_best_first(sims[sents], snap.id_rank[sents]):
            t = int(turn_of[j])
            if t >= 0 and snap.ids[t] not in have:
                have.add(snap.ids[t])
                out.append(
                    to_evidence(snap, t, floor + min(float(sims[sents[j]]), 1.0) - 1.0, retriever="sentence_hop")
                )
                if len(out) >= k:
                    break
    if generated > 0:
        floor = min(0.0, out[-1].score if out else 0.0)
        out += generated_evidence(snap, sims, generated, tuple(generated_kinds), floor, {e.node_id for e in out})
    return out
