"""Relevance: how well an evidence item matches the question, comparable across questions.

A retriever's ``score`` orders one ranking (a cosine, a PageRank mass, a reciprocal rank, a
sum of priors) and means nothing across questions. ``relevance`` does::

    relevance(q, item) = max(0, max_{s ∈ S(item)} cos(E(q), E(s)))

where ``S(item)`` is the item's node and, for each of its first ``TURNS`` provenance turns,
the turn and its sentences (the sentence layer): the best-matching sentence, so a long turn
that says one relevant thing is not diluted by the rest (SGMem's sentence-level matching).
Cosines of unit MiniLM vectors; in [0, 1]. The question is embedded with the conversation's
speakers named in it replaced by "someone" (``neutral_question``): every turn and sentence is
embedded as ``"Speaker: text"``, so a question naming a speaker would match all of that
speaker's turns alike, whatever they say. Unrelated chat then sits near 0.1-0.3, a sentence
on the question's topic near 0.5 and above (the relevance floor of ``Memory.search`` is read
on this scale: BENCHMARKS.md).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.ranking import top_k
from memgraph_agents.retrieval.evidence import incident
from memgraph_agents.retrieval.seeds import (
    neutral_question,
    node_similarities,
    query_texts,
    query_vectors,
    sentence_turns,
)
from memgraph_agents.storage.snapshot import KIND_CODE, GraphSnapshot

TURNS = 6  # provenance turns of an item (events span several) whose sentences count


def relevance_of(snap: GraphSnapshot, query_vector: np.ndarray) -> Callable[[Evidence], float]:
    """``rel(item)`` for one question (``query_vector``: its unit vector); cached per node id."""
    vecs = snap.vectors()
    indptr, children = incident(snap, "contains", outgoing=True)
    sentence = KIND_CODE["sentence"]
    seen: dict[str, float] = {}
    q = np.asarray(query_vector, dtype=np.float32)

    def rows(ev: Evidence) -> list[int]:
        out = []
        i = snap.index.get(ev.node_id)
        if i is not None:
            out.append(i)
        for t in ev.turn_ids[:TURNS]:
            j = snap.index.get(f"turn:{t}")
            if j is None:
                continue
            out.append(j)
            out += [int(c) for c in children[indptr[j] : indptr[j + 1]] if snap.kind[c] == sentence]
        return out

    def rel(ev: Evidence) -> float:
        if ev.node_id not in seen:
            r = [i for i in rows(ev) if i < len(vecs)]
            best = float((vecs[r] @ q).max()) if r and vecs.ndim == 2 and vecs.shape[1] == q.shape[0] else 0.0
            best = snap.calibration.query.to_reference(best) if r else best  # one scale for every model
            seen[ev.node_id] = round(min(1.0, max(0.0, best)), 4)
        return seen[ev.node_id]

    return rel


def question_vector(store, query: str) -> np.ndarray:
    """The unit vector of the question as relevance reads it (``neutral_question``), embedded in
    the question's one model call (``seeds.query_texts``: the retriever's texts with it)."""
    snap = store.snapshot()
    texts = query_texts(query, snap)
    return query_vectors(store.embedder, texts)[texts.index(neutral_question(query, snap))]


_RECENT = 4  # question vectors whose turn relevances a snapshot keeps (the gate and the seed share one)


def turn_relevance(snap: GraphSnapshot, query_vector: np.ndarray) -> np.ndarray:
    """Per node, the relevance of a turn (its own cosine or its best sentence's, as
    ``relevance_of`` scores a turn item); ``-inf`` for the other nodes. Kept per snapshot for the
    last few question vectors, so the relevance gate and the ranking pay one pass over the vectors."""

    q = np.asarray(query_vector, dtype=np.float32)
    lock, recent = snap.derived("turn_relevance", lambda: (threading.Lock(), OrderedDict()))
    key = q.tobytes()
    with lock:
        hit = recent.get(key)
    if hit is not None:
        return hit
    sims = node_similarities(snap, q).astype(np.float64)
    best = np.full(len(snap.ids), -np.inf)
    turns = snap.indices_of("turn")
    best[turns] = sims[turns]
    sents, turn_of = sentence_turns(snap)
    ok = turn_of >= 0
    np.maximum.at(best, turn_of[ok], sims[sents[ok]])
    with lock:
        recent[key] = best
        while len(recent) > _RECENT:
            recent.popitem(last=False)
    return best


def relevance_ranking(snap: GraphSnapshot, query_vector: np.ndarray, pool: int) -> list[tuple[str, float]]:
    """``[(turn id, relevance)]``: the ``pool`` turns of best relevance (``turn_relevance``),
    best first, near-ties by node id."""

    turns = snap.indices_of("turn")
    if not len(turns):
        return []
    best = turn_relevance(snap, query_vector)
    mask = np.zeros(len(snap.ids), dtype=bool)
    mask[turns] = True
    top = top_k(best, pool, tiebreak=snap.id_rank, mask=mask)
    return [(snap.attrs[int(i)]["turn_id"], float(min(1.0, max(0.0, best[i])))) for i in top]
