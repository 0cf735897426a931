import numpy as np
import pytest

from memgraph_agents.construct.segment import depth_scores, gap_similarities, needs_vectors, segment_by_shift

DIM = 64


def topics(sizes, noise=0.15, seed=0):
    """Rows drawn around one random direction per topic."""
    rng = np.random.default_rng(seed)
    rows = []
    for size in sizes:
        centre = rng.normal(size=DIM)
        centre /= np.linalg.norm(centre)
        for _ in range(size):
            rows.append(centre + noise * rng.normal(size=DIM) / np.sqrt(DIM) * 4)
    return np.array(rows)


def assert_cover(spans, n):
    assert spans[0][0] == 0 and spans[-1][1] == n
    for (_, b), (c, _) in zip(spans, spans[1:]):
        assert b == c
    assert all(a < b for a, b in spans)


def test_two_topics_one_boundary():
    v = topics([6, 6])
    spans = segment_by_shift(v)
    assert spans == [(0, 6), (6, 12)]


@pytest.mark.parametrize("seed", range(5))
def test_three_topics_boundaries_found(seed):
    v = topics([5, 4, 6], seed=seed)
    assert segment_by_shift(v) == [(0, 5), (5, 9), (9, 15)]


def test_boundary_at_unequal_split():
    v = topics([3, 7], seed=3)
    assert segment_by_shift(v) == [(0, 3), (3, 10)]


def test_window_one_also_finds_boundary():
    v = topics([4, 4], seed=2)
    assert segment_by_shift(v, window=1) == [(0, 4), (4, 8)]


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_tiny_inputs(n):
    v = topics([n]) if n else np.zeros((0, DIM))
    spans = segment_by_shift(v, min_size=3)
    if n == 0:
        assert spans == []
    else:
        assert spans == [(0, n)]


def test_long_uniform_sequence_is_split_by_max_size():
    v = topics([30], noise=0.3, seed=1)
    spans = segment_by_shift(v, min_size=2, max_size=8)
    assert_cover(spans, 30)
    assert all(2 <= b - a <= 8 for a, b in spans)


@pytest.mark.parametrize("seed", range(8))
def test_sizes_respected_on_random_vectors(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    v = rng.normal(size=(n, DIM))
    for min_size, max_size in [(2, 8), (3, 5), (1, 4), (2, 2)]:
        spans = segment_by_shift(v, min_size=min_size, max_size=max_size)
        assert_cover(spans, n)
        sizes = [b - a for a, b in spans]
        assert max(sizes) <= max_size
        feasible = -(-n // max_size) <= n // min_size
        if feasible:
            assert min(sizes) >= min_size, (n, min_size, max_size, sizes)


def test_conflicting_limits_keep_max_size():
    v = topics([5], noise=0.3)
    spans = segment_by_shift(v, min_size=3, max_size=4)  # 5 rows cannot be cut into 3..4
    assert_cover(spans, 5)
    assert all(b - a <= 4 for a, b in spans)


def test_feasible_cut_found_even_when_awkward():
    # 9 rows with sizes 3..4 only works as 3+3+3
    v = topics([9], noise=0.3, seed=5)
    assert segment_by_shift(v, min_size=3, max_size=4) == [(0, 3), (3, 6), (6, 9)]


def test_min_size_prevents_singleton_topic():
    # a lone off-topic row in the middle must not become its own event with min_size=2
    v = topics([5, 1, 5], seed=4)
    spans = segment_by_shift(v, min_size=2)
    assert_cover(spans, 11)
    assert all(b - a >= 2 for a, b in spans)


def test_deterministic_and_input_untouched():
    v = topics([4, 5, 6], seed=7)
    copy = v.copy()
    assert segment_by_shift(v) == segment_by_shift(v.copy())
    assert np.array_equal(v, copy)


def test_zero_rows_do_not_crash():
    v = topics([4, 4])
    v[2] = 0.0
    spans = segment_by_shift(v)
    assert_cover(spans, 8)


def test_gap_similarity_and_depth():
    a, b = np.eye(2)
    v = np.array([a, a, a, b, b, b])
    s = gap_similarities(v, window=1)
    assert s.tolist() == pytest.approx([1, 1, 0, 1, 1])
    d = depth_scores(s)
    assert d.tolist() == pytest.approx([0, 0, 2, 0, 0])
    s2 = gap_similarities(v, window=2)
    assert s2[2] == pytest.approx(0.0)
    assert s2[1] == pytest.approx(s2[3])
    assert 0 < s2[1] < 1


@pytest.mark.parametrize("min_size,max_size", [(1, 1), (1, 4), (2, 8), (3, 4), (3, 12), (4, 4)])
def test_inputs_that_need_no_vectors_have_one_segmentation(min_size, max_size):
    # The ingest skips the embedding when needs_vectors says so: the result must not depend on them.
    rng = np.random.default_rng(min_size * 100 + max_size)
    for n in range(0, 3 * max_size):
        if needs_vectors(n, min_size, max_size):
            continue
        for _ in range(20):
            v = rng.normal(size=(n, 8))
            assert segment_by_shift(v, min_size=min_size, max_size=max_size) == ([(0, n)] if n else [])


def test_a_chat_write_of_one_or_two_turns_needs_no_vectors():
    assert not needs_vectors(1, 2, 8) and not needs_vectors(3, 2, 8)
    assert needs_vectors(4, 2, 8) and needs_vectors(9, 8, 8)
