"""Deterministic rankings (model.ranking): near-ties go by id, whatever the row order or float noise."""

from __future__ import annotations

import numpy as np
import pytest

from memgraph_agents.model.ranking import TIE_EPS, order_best_first, ranks_of, sort_pairs, top_k
from memgraph_agents.retrieval.algorithms.lexical import BM25Index


def _pick(ids, scores, k):
    return [ids[i] for i in top_k(np.array(scores), k, tiebreak=ranks_of(ids))]


@pytest.mark.parametrize("seed", range(5))
def test_near_ties_go_by_id_in_any_row_order_and_under_float_noise(seed):
    rng = np.random.default_rng(seed)
    ids = ["sent:S2:3:1", "sent:S1:4:1", "sent:S1:1:2", "sent:S3:1:1", "sent:S1:9:1"]
    scores = [0.83, 0.83, 0.5, 0.83, 0.2]  # three sentences with the same text: equal cosines
    want = ["sent:S1:4:1", "sent:S2:3:1"]
    perm = rng.permutation(len(ids))
    noisy = [scores[i] + rng.uniform(-TIE_EPS / 10, TIE_EPS / 10) for i in perm]  # backend float noise
    assert _pick([ids[i] for i in perm], noisy, 2) == want
    assert _pick(ids, scores, 2) == want


def test_real_differences_still_rank_by_score_and_nan_never_wins():
    ids = ["b", "a", "c", "d"]
    assert _pick(ids, [0.9, 0.9 - 10 * TIE_EPS, float("nan"), 0.1], 4) == ["b", "a", "d"]
    assert list(order_best_first([0.1, 0.5, 0.5], ranks_of(["z", "y", "x"]))) == [2, 1, 0]
    assert _pick(ids, [0.9, 0.8, 0.7, 0.6], 2) == ["b", "a"]
    assert top_k(np.array([1.0, 2.0]), 5, mask=np.array([True, False])).tolist() == [0]


def test_vector_store_hits_are_reordered_by_id_on_ties():
    hits = [("turn:S2:1", 0.7), ("turn:S1:5", 0.7 + 1e-9), ("turn:S1:2", 0.9)]
    assert [i for i, _ in sort_pairs(hits)] == ["turn:S1:2", "turn:S1:5", "turn:S2:1"]


def test_bm25_ties_follow_the_tiebreak_key():
    index = BM25Index(["pottery class on tuesday", "baking class", "pottery class on tuesday"])
    assert [i for i, _ in index.search("pottery", 2)] == [0, 2]
    assert [i for i, _ in index.search("pottery", 2, tiebreak=np.array([2, 1, 0]))] == [2, 0]


def test_top_k_named_equals_top_k_ranked_by_every_id() -> None:
    """Ranking only the candidates at the cut by id gives ``top_k`` with every id ranked."""
    import random

    from memgraph_agents.model.ranking import top_k_named

    rng = random.Random(11)
    for _ in range(300):
        n = rng.randrange(1, 40)
        ids = [f"sentence:D{rng.randrange(9)}:{rng.randrange(9)}" for _ in range(n)]  # duplicates too
        scores = np.array([rng.choice([0.5, 0.5 + 1e-8, 0.7, rng.random(), -np.inf]) for _ in range(n)])
        k = rng.randrange(0, 6)
        want = top_k(scores, k, tiebreak=ranks_of(ids))
        got = top_k_named(scores, k, lambda cand, ids=ids: [ids[int(j)] for j in cand])
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("sample", [1, 3, 1024])
def test_top_k_named_rows_equals_top_k_named_per_row(monkeypatch, sample: int) -> None:
    """The matrix form gives each row's ``top_k_named`` (float32 scores, -inf, NaN, near-ties),
    whatever the columns that bound the k-th best."""
    import random

    from memgraph_agents.model import ranking
    from memgraph_agents.model.ranking import top_k_named, top_k_named_rows

    monkeypatch.setattr(ranking, "_SAMPLE_COLUMNS", sample)

    rng = random.Random(12)
    for _ in range(200):
        rows, n = rng.randrange(1, 6), rng.randrange(1, 30)
        ids = [f"sentence:D{rng.randrange(9)}:{rng.randrange(9)}" for _ in range(n)]
        choices = [0.5, 0.5 + 1e-7, 0.5 + 3e-6, 0.7, -np.inf, np.nan]
        scores = np.array(
            [[rng.choice([*choices, rng.random()]) for _ in range(n)] for _ in range(rows)],
            dtype=rng.choice([np.float32, np.float64]),
        )
        k = rng.randrange(0, 5)

        def names(cand, ids=ids):
            return [ids[int(j)] for j in cand]

        got = top_k_named_rows(scores, k, names)
        assert [g.tolist() for g in got] == [top_k_named(row, k, names).tolist() for row in scores]
