from collections import Counter

import numpy as np
import pytest

from memgraph_agents.construct.synonyms import knn_pairs, synonym_pairs, synonym_pairs_within


def unit(*rows):
    v = np.array(rows, dtype=float)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def brute_knn(v, k):
    v = v / np.linalg.norm(v, axis=1, keepdims=True)
    s = v @ v.T
    np.fill_diagonal(s, -np.inf)
    out = {}
    for i in range(len(v)):
        order = sorted(range(len(v)), key=lambda j: (-s[i, j], j))[:k]
        for j in order:
            out[(min(i, j), max(i, j))] = s[i, j]
    return sorted(out)


def same(a, b):
    """Same pairs in the same order, similarities equal up to float32 rounding."""
    return [(i, j) for i, j, _ in a] == [(i, j) for i, j, _ in b] and np.allclose(
        [s for *_, s in a], [s for *_, s in b], atol=1e-5
    )


def test_synonym_pairs_threshold_and_order():
    new = unit([1, 0, 0], [0, 1, 0], [0, 0, 1])
    old = unit([1, 0.1, 0], [1, 0.3, 0], [0, 1, 1], [0.05, 1, 0])
    pairs = synonym_pairs(new, old, threshold=0.9)
    assert [(i, j) for i, j, _ in pairs] == [(0, 0), (0, 1), (1, 3)]
    assert pairs[0][2] > pairs[1][2]  # best first within a row
    assert all(s >= 0.9 for *_, s in pairs)
    assert synonym_pairs(new, old, threshold=0.999) == []
    assert synonym_pairs(np.zeros((0, 3)), old) == []
    assert synonym_pairs(new, np.zeros((0, 3))) == []


def test_synonym_pairs_cap_both_sides():
    rng = np.random.default_rng(0)
    base = rng.normal(size=16)
    new = np.array([base + 0.01 * rng.normal(size=16) for _ in range(6)])
    old = np.array([base + 0.01 * rng.normal(size=16) for _ in range(9)])
    pairs = synonym_pairs(new, old, threshold=0.9, max_per_node=2)
    assert pairs
    assert max(Counter(i for i, _, _ in pairs).values()) <= 2
    assert max(Counter(j for _, j, _ in pairs).values()) <= 2
    # greedy is maximal: every unchosen pair (all clear the threshold here) has a full endpoint
    deg_i, deg_j = Counter(i for i, _, _ in pairs), Counter(j for _, j, _ in pairs)
    chosen = {(i, j) for i, j, _ in pairs}
    for i in range(6):
        for j in range(9):
            assert (i, j) in chosen or deg_i[i] == 2 or deg_j[j] == 2


def test_synonym_pairs_blockwise_equals_whole():
    rng = np.random.default_rng(1)
    new, old = rng.normal(size=(40, 8)), rng.normal(size=(70, 8))
    whole = synonym_pairs(new, old, threshold=0.6)
    assert whole
    assert same(synonym_pairs(new, old, threshold=0.6, block_rows=7), whole)


@pytest.mark.parametrize("cap", [1, 2, 100])
def test_synonym_pairs_old_order_equals_sorting_the_old_rows(cap):
    """Ties ordered by ``old_order`` give the pairs of the old rows sorted by it (duplicates and
    exact ties included), with j the unsorted row."""
    rng = np.random.default_rng(2)
    base = rng.normal(size=(5, 8))
    new = base[rng.integers(0, 5, 12)] + 0.02 * rng.normal(size=(12, 8))
    old = base[rng.integers(0, 5, 30)]  # exact duplicates: equal cosines
    key = rng.permutation(30)
    by_key = np.argsort(key)
    want = [(i, int(by_key[j]), s) for i, j, s in synonym_pairs(new, old[by_key], threshold=0.8, max_per_node=cap)]
    got = synonym_pairs(new, old, threshold=0.8, max_per_node=cap, old_order=key)
    assert want and got == want


def test_synonym_pairs_within():
    v = unit([1, 0], [1, 0.05], [0, 1], [0.02, 1], [1, 0.1])
    pairs = synonym_pairs_within(v, threshold=0.95)
    assert {(i, j) for i, j, _ in pairs} == {(0, 1), (0, 4), (1, 4), (2, 3)}
    assert all(i < j for i, j, _ in pairs)
    capped = synonym_pairs_within(v, threshold=0.95, max_per_node=1)
    deg = Counter([i for i, _, _ in capped] + [j for _, j, _ in capped])
    assert max(deg.values()) == 1
    assert synonym_pairs_within(v[:1]) == []
    assert same(synonym_pairs_within(v, threshold=0.95, block_rows=2), pairs)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_knn_matches_brute_force(k):
    v = np.random.default_rng(2).normal(size=(57, 12))
    got = knn_pairs(v, k, block_rows=5)
    assert [(i, j) for i, j, _ in got] == brute_knn(v, k)
    assert all(i < j for i, j, _ in got)
    assert same(knn_pairs(v, k), got)


def test_knn_each_row_has_at_least_k_and_self_excluded():
    v = np.random.default_rng(3).normal(size=(30, 6))
    got = knn_pairs(v, 2)
    deg = Counter([i for i, _, _ in got] + [j for _, j, _ in got])
    assert all(deg[r] >= 2 for r in range(30))
    assert all(i != j for i, j, _ in got)


def test_knn_ties_go_to_smaller_index():
    v = unit([1, 0], [1, 0], [1, 0], [1, 0])  # all identical
    assert [(i, j) for i, j, _ in knn_pairs(v, 1)] == [(0, 1), (0, 2), (0, 3)]


def test_knn_edge_cases():
    assert knn_pairs(np.zeros((0, 4)), 2) == []
    assert knn_pairs(np.ones((1, 4)), 2) == []
    assert [(i, j) for i, j, _ in knn_pairs(unit([1, 0], [0, 1], [1, 1]), 5)] == [(0, 1), (0, 2), (1, 2)]
    assert knn_pairs(unit([1, 0], [0, 1]), 0) == []
