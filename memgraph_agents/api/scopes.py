"""One ranking over several namespaces (a user's, an agent's, a shared one).

Scores of one retriever on two graphs are not comparable: PPR spreads one unit of probability
over each graph, BM25 weights depend on each corpus, the navigator's priors on each pool. So
the lists are merged by rank, as reciprocal-rank fusion does (Cormack, Clarke & Büttcher,
SIGIR 2009: ``RRF(d) = sum_i 1 / (c + rank_i(d))`` with ``c = 60``): an item's fused value is
``1 / (60 + its rank in its own namespace)``, every namespace weighing the same. Items never
occur in two namespaces, so the order is by rank; items of equal rank go by their own score
(higher first, near-ties within ``model.ranking.TIE_EPS`` count as equal), then by the order
the namespaces were given in, then by node id. Each item keeps its retriever's score and says
its namespace (``Evidence.namespace``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.ranking import TIE_EPS

RRF_C = 60


def rrf_value(rank: int) -> float:
    """``1 / (c + rank)``, rank 1-based (Cormack et al. 2009)."""
    return 1.0 / (RRF_C + rank)


def merge_namespaces(ranked: Sequence[tuple[str, Sequence[Evidence]]], k: int) -> list[Evidence]:
    """The best ``k`` of per-namespace rankings ``[(namespace, evidence best first)]``, merged
    as the module docstring says; each item's ``namespace`` is set."""
    keyed = []
    for pos, (namespace, items) in enumerate(ranked):
        for rank, ev in enumerate(items, start=1):
            # Scores are bucketed by TIE_EPS so that float noise never reorders equal ranks.
            keyed.append(((-rrf_value(rank), -_bucket(ev.score), pos, ev.node_id), ev, namespace))
    keyed.sort(key=lambda x: x[0])
    return [ev.model_copy(update={"namespace": ns}) for _, ev, ns in keyed[:k]]


def _bucket(score: float) -> float:
    """The score in steps of ``TIE_EPS`` (NaN lowest)."""
    if math.isnan(score):
        return -math.inf
    return score if math.isinf(score) else float(round(score / TIE_EPS))
