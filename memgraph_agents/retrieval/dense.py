"""``dense``: nearest neighbours of the query embedding among chosen node kinds (turns by default).

Bi-encoder retrieval (Sentence-BERT, Reimers & Gurevych 2019; the offline model is MiniLM)::

    score(q, v) = cos(E(q), E(v)),   top-k over v of the chosen kinds

served by the namespace's Chroma index (HNSW, approximate). Evidence of a non-turn node carries
its provenance turns (``evidence.provenance``).

With an LLM and event / argument kinds (the ``emem`` preset), EMem's recall-oriented filter
(Zhou & Han 2025, §3.3) reads the top ``pool`` candidates: the ones it keeps come first, in
rank order, then the others — a bad filter reply costs order, never recall.
"""

from __future__ import annotations

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.evidence import to_evidence
from memgraph_agents.retrieval.lexical import dense_ranking
from memgraph_agents.retrieval.llm_steps import Candidate, recall_filter
from memgraph_agents.retrieval.protocols import RetrieverOptions
from memgraph_agents.storage.protocols import StoreReader

FILTERABLE = {"event", "argument"}


class DenseOptions(RetrieverOptions):
    kinds: tuple[str, ...] = ("turn",)  # node kinds searched (``emem``: events; ``premem``: fragments)
    pool: int = 30  # candidates the LLM recall filter reads


def dense(
    query: str,
    store: StoreReader,
    *,
    k: int = 10,
    options: DenseOptions | None = None,
    llm=None,
    usage=None,
    llm_timeout: float = 60.0,
) -> list[Evidence]:
    """The top-k nodes of ``options.kinds`` by cosine to the query (recall-filtered with an LLM, see above)."""
    opts = options or DenseOptions()
    kinds, pool = opts.kinds, opts.pool
    snap = store.snapshot()
    filtered = llm is not None and set(kinds) <= FILTERABLE
    ranking = dense_ranking(query, store, max(k, pool) if filtered else k, kinds, snap=snap)
    if filtered and ranking:
        # ``filtered``: every node here is an event or an argument
        cands = [
            Candidate(
                node_id=snap.ids[i],
                kind="event" if snap.kind_of(i) == "event" else "argument",
                text=snap.text[i],
                date=str(snap.attrs[i].get("time") or ""),
            )
            for i, _ in ranking
        ]
        kept = set(recall_filter(query, cands, llm, usage=usage, timeout=llm_timeout))
        ranking = [r for r in ranking if snap.ids[r[0]] in kept] + [r for r in ranking if snap.ids[r[0]] not in kept]
    return [to_evidence(snap, i, s, retriever="dense") for i, s in ranking[:k]]
