"""k-means in numpy (``construct.kmeans``): recovery, determinism, ties, empty clusters."""

from __future__ import annotations

import numpy as np
import pytest

from memgraph_agents.construct.kmeans import assign, kmeans, lloyd


def blobs(sizes, dim=16, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(sizes), dim)) * 3
    rows = np.vstack([c + noise * rng.normal(size=(n, dim)) for c, n in zip(centres, sizes)])
    return rows, np.repeat(np.arange(len(sizes)), sizes)


def same_partition(a, b):
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_well_separated_blobs_are_recovered_exactly():
    x, truth = blobs([9, 4, 12, 6, 1])
    labels, centres, inertia = kmeans(x, 5, seed=3)
    assert same_partition(labels, truth)
    for j in range(5):
        np.testing.assert_allclose(centres[j], x[labels == j].mean(axis=0), atol=1e-12)
    assert inertia == pytest.approx(sum(((x[labels == j] - centres[j]) ** 2).sum() for j in range(5)), rel=1e-12)


def test_seeded_runs_repeat_and_rows_moved_keep_their_clusters():
    x, _ = blobs([20, 20, 20, 20], noise=1.5, seed=1)  # overlapping: the seed matters
    a, ca, ia = kmeans(x, 4, seed=0)
    b, cb, ib = kmeans(x, 4, seed=0)
    assert np.array_equal(a, b) and np.array_equal(ca, cb) and ia == ib
    # The assignment of a row depends on the row and the centres, not on where the row sits.
    perm = np.random.default_rng(2).permutation(len(x))
    assert np.array_equal(assign(x[perm], ca)[0], a[perm])


def test_more_restarts_never_raise_the_inertia():
    x, _ = blobs([15, 15, 15, 15, 15], noise=2.0, seed=4)
    one = kmeans(x, 5, n_init=1, seed=0)[2]
    four = kmeans(x, 5, n_init=4, seed=0)[2]
    assert four <= one  # the first run is one of the four


def test_inertia_is_as_low_as_scikit_learns():
    cluster = pytest.importorskip("sklearn.cluster")  # the reference, in the dev install only
    x, _ = blobs([30, 25, 20, 15, 10], noise=1.0, seed=5)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    ours = kmeans(x, 5, n_init=4, seed=0)[2]
    theirs = cluster.KMeans(n_clusters=5, n_init=4, random_state=0).fit(x).inertia_
    assert ours <= theirs * (1 + 1e-6)


def test_an_exact_tie_goes_to_the_lower_centre():
    centres = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # centres 0 and 2 are the same point
    labels, dist = assign(np.array([[0.1, 0.9], [1.0, 1.0], [0.9, 0.1]]), centres)
    assert labels.tolist() == [0, 0, 1]  # row 1 is equidistant from all three
    np.testing.assert_allclose(dist, [0.02, 1.0, 0.02], atol=1e-12)


def test_an_emptied_cluster_takes_the_farthest_row():
    x = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0]])
    start = np.array([[0.0, 0.0], [100.0, 100.0], [50.0, -50.0]])  # two centres no row is nearest to
    labels, centres, _ = lloyd(x, start)
    assert sorted(set(labels.tolist())) == [0, 1, 2]  # no cluster left empty
    assert labels[3] != labels[0]  # the far row got a cluster of its own


def test_k_out_of_range_is_an_error():
    x = np.zeros((3, 2))
    with pytest.raises(ValueError, match="1 <= k <= 3"):
        kmeans(x, 4)
    with pytest.raises(ValueError, match="got k=0"):
        kmeans(x, 0)
