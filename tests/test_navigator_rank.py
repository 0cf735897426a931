"""The navigator's ranking helpers: MMR near-duplicate suppression (``navigator.diverse``)."""

from __future__ import annotations

import numpy as np
import pytest

from memgraph_agents.navigator.diverse import mmr_order


def _unit(*rows: list[float]) -> np.ndarray:
    v = np.asarray(rows, dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_paraphrase_gives_way_to_a_different_turn():
    # 0 and 1 say the same thing; 2 is different and scores a little lower than 1.
    vecs = _unit([1, 0, 0], [1, 0.05, 0], [0, 1, 0])
    assert mmr_order([1.0, 0.95, 0.9], vecs, lam=0.1, picks=3) == [0, 2, 1]
    assert mmr_order([1.0, 0.95, 0.9], vecs, lam=0.0, picks=3) == [0, 1, 2]  # off: input order


def test_a_big_score_gap_is_not_overturned():
    vecs = _unit([1, 0, 0], [1, 0.05, 0], [0, 1, 0])
    assert mmr_order([1.0, 0.95, 0.5], vecs, lam=0.1, picks=3) == [0, 1, 2]


def test_only_picks_are_reordered_and_ties_keep_input_order():
    vecs = _unit([1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0])
    # orthogonal equal-score turns: nothing to penalise, ties keep the input order
    assert mmr_order([0.5, 0.5, 0.5, 0.1], vecs, lam=0.3, picks=2) == [0, 1, 2, 3]
    order = mmr_order([1.0, 0.99, 0.98, 0.97], _unit([1, 0], [1, 0], [0, 1], [1, 0.01]), lam=0.2, picks=2)
    assert order[:2] == [0, 2] and order[2:] == [1, 3]  # the rest: input order


def test_negative_cosines_are_no_bonus():
    vecs = _unit([1, 0], [-1, 0], [0, 1])
    assert mmr_order([1.0, 0.9, 0.95], vecs, lam=0.5, picks=3) == [0, 2, 1]


def test_shapes_are_checked():
    with pytest.raises(ValueError):
        mmr_order([1.0, 0.5], np.zeros((3, 2)), lam=0.1, picks=2)
    assert mmr_order([], np.zeros((0, 2)), lam=0.1, picks=5) == []
