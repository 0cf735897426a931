"""``bm25`` and ``hybrid`` (dense + BM25, reciprocal-rank fusion) over turns.

``bm25``: Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and
Beyond", 2009) over the turn texts, Lucene variant with k1 = 1.5, b = 0.75::

    score(q, t) = Σ_{w ∈ q} IDF(w) · f(w, t)·(k1 + 1) / (f(w, t) + k1·(1 − b + b·|t| / avgdl))

(tokens: lowercase, stopwords removed, Porter-stemmed; see ``algorithms.lexical``). A query
of stopwords only, or of words no turn contains, gets no BM25 hit.

``hybrid``: the dense cosine ranking (Chroma) and the BM25 ranking of the top ``pool`` turns,
fused by reciprocal rank (Cormack, Clarke & Büttcher, SIGIR 2009) with k = 60::

    RRF(t) = 1 / (k + rank_dense(t)) + 1 / (k + rank_bm25(t))
"""

from __future__ import annotations

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
from memgraph_agents.retrieval.bm25_rank import bm25_ranking
from memgraph_agents.retrieval.evidence import to_evidence
from memgraph_agents.retrieval.protocols import RetrieverOptions
from memgraph_agents.retrieval.relevance import question_vector
from memgraph_agents.storage.protocols import StoreReader

SPEAKER_PREFIXED = {"turn", "sentence"}  # node kinds embedded as "Speaker: text"


def dense_ranking(query: str, store: StoreReader, k: int, kinds=("turn",), snap=None) -> list[tuple[int, float]]:
    """``[(node index in snap, cosine)]`` of the dense top-k over ``kinds`` (Chroma).

    Turns and sentences are stored as ``"Speaker: text"``, so a question naming a speaker
    matches every turn of that speaker alike; over them the question is embedded with the
    conversation's speakers replaced by "someone" (``relevance.neutral_question``, as relevance
    reads it): on LoCoMo's development split, turn recall@10 0.606 instead of 0.467 on the
    conversations nothing was tuned on (BENCHMARKS.md). Other kinds get the question as asked.
    Hits the snapshot does not hold (a session committed after ``snap`` was taken) are dropped.
    """
    snap = snap if snap is not None else store.snapshot()
    if k <= 0:
        return []
    if set(kinds) <= SPEAKER_PREFIXED:
        vector = question_vector(store, query)
    else:
        vector = store.embedder.embed_one(query)
    hits = store.search(vector, k, list(kinds))
    return [(snap.index[n], s) for n, s in hits if n in snap.index]


class BM25Options(RetrieverOptions):
    """``bm25`` has no parameters (k1 = 1.5, b = 0.75 are the index's)."""


class HybridOptions(RetrieverOptions):
    pool: int = 50  # turns taken from each ranking (at least k)
    rrf_k: int = 60  # reciprocal-rank fusion constant


def bm25(query: str, store: StoreReader, *, k: int = 10, options: BM25Options | None = None) -> list[Evidence]:
    """The top-k turns by BM25."""
    snap = store.snapshot()
    return [to_evidence(snap, i, s, retriever="bm25") for i, s in bm25_ranking(query, snap, k)]


def hybrid(query: str, store: StoreReader, *, k: int = 10, options: HybridOptions | None = None) -> list[Evidence]:
    """Dense + BM25 over turns fused by reciprocal rank (Cormack et al. 2009, k = 60).

    Each ranking contributes its top ``max(pool, k)``, so a large ``k`` is still filled.
    """
    if k <= 0:
        return []
    opts = options or HybridOptions()
    snap = store.snapshot()
    pool = max(opts.pool, k)
    fused = reciprocal_rank_fusion(
        [[i for i, _ in dense_ranking(query, store, pool, snap=snap)], [i for i, _ in bm25_ranking(query, snap, pool)]],
        k=opts.rrf_k,
    )
    return [to_evidence(snap, i, s, retriever="hybrid") for i, s in fused[:k]]
