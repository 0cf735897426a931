import numpy as np
import pytest

from memgraph_agents.construct.topics import assign_online, kmeans_topics, topic_count


@pytest.mark.parametrize(
    "n,expected",
    [(0, 0), (1, 1), (2, 2), (3, 2), (9, 2), (10, 2), (14, 2), (15, 3), (99, 19), (250, 50), (251, 50), (10_000, 50)],
)
def test_topic_count(n, expected):
    assert topic_count(n) == expected


def test_topic_count_never_exceeds_events():
    assert all(topic_count(n) <= n for n in range(0, 300))


def blobs(sizes, dim=32, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    rows, truth = [], []
    for t, size in enumerate(sizes):
        c = rng.normal(size=dim)
        for _ in range(size):
            rows.append((c + noise * rng.normal(size=dim)) * rng.uniform(0.5, 3))  # scale must not matter
            truth.append(t)
    return np.array(rows), np.array(truth)


def test_kmeans_recovers_clusters():
    v, truth = blobs([10, 7, 12])
    labels, cents = kmeans_topics(v, 3)
    assert labels.shape == (29,)
    assert cents.shape == (3, 32)
    np.testing.assert_allclose(np.linalg.norm(cents, axis=1), 1.0, atol=1e-9)
    # same partition as the truth (labels renumbered by first appearance)
    assert labels.tolist() == truth.tolist()


def test_kmeans_deterministic_and_first_row_topic_zero():
    v, _ = blobs([5, 5, 5, 5], seed=3)
    perm = np.random.default_rng(1).permutation(len(v))
    l1, c1 = kmeans_topics(v[perm], 4, seed=0)
    l2, c2 = kmeans_topics(v[perm], 4, seed=0)
    assert l1[0] == 0
    assert np.array_equal(l1, l2) and np.allclose(c1, c2)
    # first-appearance numbering: each new label is the next integer
    seen = []
    for lab in l1:
        if lab not in seen:
            seen.append(lab)
    assert seen == list(range(len(seen)))


def test_kmeans_edge_cases():
    labels, cents = kmeans_topics(np.zeros((0, 8)), 3)
    assert labels.shape == (0,) and cents.shape == (0, 8)
    one = np.ones((1, 8))
    labels, cents = kmeans_topics(one, 2)
    assert labels.tolist() == [0] and cents.shape == (1, 8)
    # more topics than distinct points: no empty clusters
    dup = np.array([[1.0, 0.0]] * 4 + [[0.0, 1.0]] * 3)
    labels, cents = kmeans_topics(dup, 5)
    assert cents.shape == (2, 2)
    assert labels.tolist() == [0, 0, 0, 0, 1, 1, 1]


def test_centroids_match_members():
    v, truth = blobs([6, 6], seed=5)
    labels, cents = kmeans_topics(v, 2)
    for t in range(2):
        members = v[labels == t] / np.linalg.norm(v[labels == t], axis=1, keepdims=True)
        mean = members.mean(axis=0)
        assert np.dot(cents[t], mean / np.linalg.norm(mean)) > 0.999


def test_assign_online():
    cents = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert assign_online(np.array([5.0, 1.0, 0.0]), cents, 0.9) == 0
    assert assign_online(np.array([0.1, 2.0, 0.0]), cents, 0.9) == 1
    assert assign_online(np.array([1.0, 1.0, 0.0]), cents, 0.9) is None  # cos 0.707 for both
    assert assign_online(np.array([1.0, 1.0, 0.0]), cents, 0.7) == 0  # tie -> first
    assert assign_online(np.array([0.0, 0.0, 1.0]), cents, 0.0) == 0  # cos 0 clears threshold 0
    assert assign_online(np.array([1.0, 0.0, 0.0]), np.zeros((0, 3)), 0.5) is None
