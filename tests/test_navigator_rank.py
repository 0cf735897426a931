"""The navigator's ranking helpers: MMR near-duplicate suppression (``retrieval.diverse``)."""

from __future__ import annotations

import numpy as np
import pytest

from memgraph_agents.retrieval.diverse import mmr_order


def _unit(*rows: list[float]) -> np.ndarray:
    v = np.asarray(rows, dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_paraphrase_gives_way_to_a_different_turn():
    # 0 and 1 say the same thing; 2 is different and scores a little lower than 1.
    vecs = _unit([1, 0, 0], [1, 0.05, 0], [0, 1, 0])
    assert mmr_order([1.0, 0.95, 0.9], vecs, lam=0.1, picks=3)[0] == [0, 2, 1]
    assert mmr_order([1.0, 0.95, 0.9], vecs, lam=0.0, picks=3)[0] == [0, 1, 2]  # off: input order


def test_a_big_score_gap_is_not_overturned():
    vecs = _unit([1, 0, 0], [1, 0.05, 0], [0, 1, 0])
    assert mmr_order([1.0, 0.95, 0.5], vecs, lam=0.1, picks=3)[0] == [0, 1, 2]


def test_only_picks_are_reordered_and_ties_keep_input_order():
    vecs = _unit([1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0])
    # orthogonal equal-score turns: nothing to penalise, ties keep the input order
    assert mmr_order([0.5, 0.5, 0.5, 0.1], vecs, lam=0.3, picks=2)[0] == [0, 1, 2, 3]
    order, values = mmr_order([1.0, 0.99, 0.98, 0.97], _unit([1, 0], [1, 0], [0, 1], [1, 0.01]), lam=0.2, picks=2)
    assert order[:2] == [0, 2] and order[2:] == [1, 3]  # the rest: by marginal value after the picks
    assert values == sorted(values, reverse=True) and values[:2] == [1.0, 0.98]


def test_the_rest_is_ordered_by_marginal_value_so_scores_decrease():
    # 1 repeats the first pick; 2 is different but scored lower: once 0 is picked, 2 is worth more.
    order, values = mmr_order([1.0, 0.9, 0.85], _unit([1, 0], [1, 0], [0, 1]), lam=0.1, picks=1)
    assert order == [0, 2, 1] and values == pytest.approx([1.0, 0.85, 0.8])


def test_negative_cosines_are_no_bonus():
    vecs = _unit([1, 0], [-1, 0], [0, 1])
    assert mmr_order([1.0, 0.9, 0.95], vecs, lam=0.5, picks=3)[0] == [0, 2, 1]


def test_shapes_are_checked():
    with pytest.raises(ValueError):
        mmr_order([1.0, 0.5], np.zeros((3, 2)), lam=0.1, picks=2)
    assert mmr_order([], np.zeros((0, 2)), lam=0.1, picks=5) == ([], [])


# --------------------------------------------------------------------------- turn priors

from memgraph_agents.retrieval.priors import (  # noqa: E402
    asks_for,
    asks_only,
    carries,
    informativeness,
    prior,
    word_count,
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When did Ana adopt the puppy?", "date"),
        ("when was the bakery opened", "date"),
        ("In what year did Ben move?", "date"),
        ("Which month was the concert?", "date"),
        ("How long ago did Ana learn to sail?", "date"),
        ("How long has Ben been cycling?", None),  # a duration, not a date
        ("What did Ana bake for the party?", None),
        ("Who helped Ben paint the fence?", None),
    ],
)
def test_asks_for_a_date(question, kind):
    assert asks_for(question) == kind


def test_content_words_drop_the_speaker_prefix_only():
    assert word_count("Ana: I baked two loaves today", "Ana") == 5
    assert word_count("Ana: I baked two loaves today", None) == 6
    assert word_count("Ben: Ana: hi", "Ana") == 3  # not this speaker's prefix: counted
    assert word_count("", "Ana") == 0


@pytest.mark.parametrize(
    ("text", "only"),
    [
        ("Ben: Wait, Clara is moving to Oslo? When?", True),
        ("Ben: Amazing. What did the coach say?", True),
        ("Ana: So you're selling the boat?", True),
        ("Ana: Will do. What are you baking? I need a recipe for the fair.", True),  # 9 words beside
        ("Ana: Ben: are you there?", True),  # only the turn's own speaker prefix is dropped
        (
            "Ben: Honestly? Tiring. I had a first call with the bakery on Monday and the second is on Friday.",
            False,  # 18 words beside the question: it states something
        ),
        ("Ben: I sold the boat last week.", False),
        ("Ben: Great!", False),  # no question: short, but the informativeness prior's case
    ],
)
def test_asks_only_is_a_question_with_few_words_beside_it(text, only):
    speaker = text.split(":")[0]
    assert asks_only(text, speaker) is only
    assert asks_only("Ben: Nice. What now?", "Ben", aside=0) is False  # "Nice" is a word beside it
    assert asks_only("Ben: What now?", "Ben", aside=0) is True


def test_informativeness_saturates():
    assert informativeness(10, 40) == 0.25
    assert informativeness(80, 40) == 1.0
    assert informativeness(5, 0) == 1.0
    assert informativeness(-1, 40) == 0.0


def test_prior_adds_the_date_bonus_only_for_date_questions():
    attrs = {"speaker": "Ana", "dates": ["2024-03-01"]}
    text = "Ana: " + " ".join(["word"] * 20)
    assert carries(attrs, "date") and not carries(attrs, None) and not carries({"dates": []}, "date")
    assert prior(text, attrs, "date", informative=0.2, full=40, typed=0.2) == pytest.approx(0.3)
    assert prior(text, attrs, None, informative=0.2, full=40, typed=0.2) == pytest.approx(0.1)


def test_diversified_demotes_a_paraphrase_and_keeps_scores_decreasing():
    from memgraph_agents.retrieval.rank import RankedTurn, diversified

    class Snap:
        @staticmethod
        def vectors():
            return _unit([1, 0, 0], [1, 0.02, 0], [0, 1, 0], [0, 0, 1])

    ranked = [RankedTurn(0, 1.0, None), RankedTurn(1, 0.98, 5), RankedTurn(2, 0.95, None), RankedTurn(3, 0.5, None)]
    out = diversified(Snap(), ranked, 0.1, 3)  # type: ignore[arg-type]
    assert [r.node for r in out] == [0, 2, 1, 3] and out[2].event == 5
    scores = [r.score for r in out]
    assert scores == sorted(scores, reverse=True)
    assert diversified(Snap(), ranked, 0.0, 3) == ranked  # type: ignore[arg-type]
