"""Evaluation metrics on hand-computed cases."""

from __future__ import annotations

import math

import pytest

from memgraph_agents.bench.metrics import (
    answer_recall_at_k,
    bleu1,
    context_tokens,
    f1_locomo,
    hit_at_k,
    normalize_answer,
    percentile,
    session_recall_at_k,
    set_f1,
    turn_recall_at_k,
)
from memgraph_agents.model import Evidence

RANKED = ["D1:1", "D1:2", "D1:1", "D2:3"]  # D1:1 repeated: first occurrence wins
GOLD = ["D1:1", "D2:3", "D2:3"]  # duplicate gold id counts once: |gold| = 2


def test_turn_recall_first_occurrence_and_cutoffs() -> None:
    assert turn_recall_at_k(RANKED, GOLD, 1) == 0.5  # [D1:1]
    assert turn_recall_at_k(RANKED, GOLD, 2) == 0.5  # [D1:1, D1:2]
    assert turn_recall_at_k(RANKED, GOLD, 3) == 1.0  # [D1:1, D1:2, D2:3]: the repeat took no slot
    assert turn_recall_at_k(RANKED, GOLD, 100) == 1.0
    assert turn_recall_at_k(RANKED, GOLD, 0) == 0.0
    assert turn_recall_at_k([], GOLD, 10) == 0.0
    assert math.isnan(turn_recall_at_k(RANKED, [], 10))


def test_turn_metrics_flatten_evidence() -> None:
    ev = [
        Evidence(node_id="event:1", kind="event", text="a", score=0.9, turn_ids=["D1:1", "D1:2"]),
        Evidence(node_id="event:2", kind="event", text="b", score=0.8, turn_ids=["D1:2", "D2:3", "D2:4"]),
    ]
    # Flattened: D1:1, D1:2, D2:3, D2:4.
    assert turn_recall_at_k(ev, ["D2:3", "D2:4"], 3) == 0.5
    assert turn_recall_at_k(ev, ["D2:3", "D2:4"], 4) == 1.0
    assert hit_at_k(ev, ["D2:3", "D2:4"], 3) == 0.0
    assert hit_at_k(ev, ["D2:3", "D2:4"], 4) == 1.0


def test_hit_at_k() -> None:
    assert hit_at_k(RANKED, GOLD, 2) == 0.0
    assert hit_at_k(RANKED, GOLD, 3) == 1.0
    assert hit_at_k(RANKED, ["D1:2"], 2) == 1.0
    assert math.isnan(hit_at_k(RANKED, [], 3))


def test_session_recall_order_of_first_appearance() -> None:
    t2s = {"D2:1": "S2", "D5:3": "S5", "D2:7": "S2", "D1:4": "S1", "D1:5": "S1"}
    ranked = ["D2:1", "D5:3", "D2:7", "D1:4"]  # sessions in order: S2, S5, S1
    assert session_recall_at_k(ranked, ["D1:4"], 2, t2s) == 0.0  # [S2, S5]
    assert session_recall_at_k(ranked, ["D1:4"], 3, t2s) == 1.0  # k counts sessions, not turns
    # Gold turns D2:7 and D1:5 -> sessions {S2, S1}; unknown gold ids are ignored.
    assert session_recall_at_k(ranked, ["D2:7", "D1:5", "D9:9"], 1, t2s) == 0.5
    assert session_recall_at_k(ranked, ["D2:7", "D1:5"], 3, t2s) == 1.0
    # Ranked turns unknown to the mapping are skipped.
    assert session_recall_at_k(["X:1", "D1:4"], ["D1:5"], 1, t2s) == 1.0
    assert math.isnan(session_recall_at_k(ranked, ["D9:9"], 3, t2s))


def test_answer_recall() -> None:
    texts = ["Odalys went to the STEM chess club on 7 May 2028", "Tamsin: nice!"]
    assert answer_recall_at_k(texts, "7 May, 2028") == 1.0
    assert answer_recall_at_k(texts, "The chess clubs") == 1.0  # article dropped, "clubs" -> "club"
    assert answer_recall_at_k(texts, "chess meeting") == 0.5
    assert answer_recall_at_k(texts, "a Paris trip") == 0.0
    assert answer_recall_at_k([], "Paris") == 0.0
    assert answer_recall_at_k(["in 2022"], 2022) == 1.0  # non-string answers (LoCoMo has ints)
    assert math.isnan(answer_recall_at_k(texts, "the"))


def test_context_tokens_and_percentile() -> None:
    assert context_tokens(["a b c", "  d\te  ", ""]) == 5
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert percentile([5.0, float("nan")], 50) == 5.0
    assert math.isnan(percentile([], 50))
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_normalize_answer_official() -> None:
    # LoCoMo's scorer drops commas, punctuation, a/an/the and also "and".
    assert normalize_answer("The Cat, and a DOG!") == "cat dog"
    assert normalize_answer("  7 May   2028. ") == "7 may 2028"
    assert normalize_answer("anthem") == "anthem"  # whole words only


def test_f1_locomo_tokens_articles_punctuation_stems() -> None:
    # pred "cats are running" -> [cat, are, run]; gold "cat running" -> [cat, run]
    # P = 2/3, R = 1, F1 = 0.8
    assert f1_locomo("The cats are running", "cat running", 4) == pytest.approx(0.8)
    assert f1_locomo("an apple.", "Apple", 2) == 1.0
    assert f1_locomo("Paris", "London", 4) == 0.0
    # Repeated tokens count as a multiset: pred [yes, yes] vs gold [yes]: P = 1/2, R = 1.
    assert f1_locomo("yes yes", "yes", 4) == pytest.approx(2 / 3)


def test_f1_locomo_multi_hop_comma_split() -> None:
    # Gold parts: "London" best 1.0 (pred part "London"), "Berlin" best 0.0 -> mean 0.5.
    assert f1_locomo("Paris, London", "London, Berlin", 1) == 0.5
    # "pottery" -> 1.0; "hiking" vs "hiking in the dunes" = [hike, in, dune]:
    # P = 1/3, R = 1, F1 = 0.5 -> mean 0.75.
    assert f1_locomo("hiking in the dunes, pottery", "pottery, hiking", 1) == pytest.approx(0.75)
    # Without the category the commas are simply dropped: one bag of tokens.
    assert f1_locomo("Paris, London", "London, Berlin") == 0.5


def test_f1_locomo_other_categories_and_empty() -> None:
    # Category 3 keeps the gold before ';': "Probably yes" -> [probabl, ye]; pred [ye]: F1 = 2/3.
    assert f1_locomo("yes", "Probably yes; because she likes it", 3) == pytest.approx(2 / 3)
    assert f1_locomo("No information available.", "anything", 5) == 1.0
    assert f1_locomo("She went to Paris", "anything", 5) == 0.0
    assert f1_locomo("", "Paris", 4) == 0.0
    assert f1_locomo("Paris", "", 4) == 0.0
    assert f1_locomo("", "", 4) == 0.0
    assert f1_locomo("the", "a", 4) == 0.0  # nothing left after normalisation
    assert f1_locomo("2022", 2022, 2) == 1.0


def test_set_f1_mem0_style() -> None:
    # pred set {the, cat, hat}, gold set {the, cat}: P = 2/3, R = 1, F1 = 0.8 (no stemming,
    # articles kept, duplicates ignored).
    assert set_f1("the cat the hat", "The cat.") == pytest.approx(0.8)
    assert set_f1("cats", "cat") == 0.0
    assert set_f1("", "cat") == 0.0
    assert set_f1("cat", "") == 0.0


def test_bleu1() -> None:
    # 6 tokens each; clipped matches the(2) cat on mat = 5; BP = 1 -> 5/6.
    assert bleu1("the cat sat on the mat", "the cat is on the mat") == pytest.approx(5 / 6)
    # Short prediction: precision 1, c = 2, r = 6, BP = exp(1 - 3).
    assert bleu1("the cat", "the cat is on the mat") == pytest.approx(math.exp(-2))
    # Clipping: "the the the" vs "the cat": 1 match of 3, longer than the reference -> 1/3.
    assert bleu1("the the the", "the cat") == pytest.approx(1 / 3)
    # Punctuation is a token; contractions split like NLTK: [she, does, n't, know, .]
    assert bleu1("She doesn't know.", "she doesn't know.") == 1.0
    assert bleu1("", "cat") == 0.0
    assert bleu1("dog", "cat") == 0.0


@pytest.mark.parametrize(
    "text,tokens",
    [
        ("mix:up", ["mix", ":", "up"]),  # a colon before a letter splits, as in NLTK
        ("10,000 people", ["10,000", "people"]),  # a comma before a digit does not
        ("she doesn't like it, isn't it?", ["she", "does", "n't", "like", "it", ",", "is", "n't", "it", "?"]),
        ("they're in lisbon, i'd say", ["they", "'re", "in", "lisbon", ",", "i", "'d", "say"]),
        ('"the road" she said', ["``", "the", "road", "''", "she", "said"]),
        ("rock 'n' roll", ["rock", "'n", "'", "roll"]),
        ("a cat. a dog.", ["a", "cat", ".", "a", "dog", "."]),
    ],
)
def test_bleu_tokens_follow_nltk_word_tokenize(text, tokens) -> None:
    from memgraph_agents.bench.metrics import word_tokens

    assert word_tokens(text) == tokens


def test_bleu1_counts_nltk_tokens() -> None:
    # Mix:Up is 3 tokens (mix : up), not 1: a 1-token answer "mix" has BP exp(1 - 3/1) and precision 1
    assert bleu1("Mix", "Mix:Up") == pytest.approx(math.exp(-2))
    assert bleu1("10,000", "10,000") == 1.0  # one token, not "10" "," "000"
    assert bleu1("did not", "didn't") == pytest.approx(0.5)  # did|not vs did|n't: one of two tokens


def test_first_hit_counts_any_gold_turn_in_first_place() -> None:
    from memgraph_agents.bench.metrics import first_hit

    assert first_hit(["D1:2", "D1:1"], ["D1:1", "D1:2"]) == 1.0
    assert first_hit(["D3:1", "D1:2"], ["D1:2"]) == 0.0
    assert first_hit([], ["D1:2"]) == 0.0
    assert math.isnan(first_hit(["D1:2"], []))


def test_ndcg_at_k_binary_gains_over_the_ideal_ranking() -> None:
    from memgraph_agents.bench.metrics import ndcg_at_k

    assert ndcg_at_k(["a", "b", "x"], ["a", "b"], 5) == pytest.approx(1.0)
    # one gold turn in second place: (1 / log2 3) / 1
    assert ndcg_at_k(["x", "a"], ["a"], 5) == pytest.approx(1 / math.log2(3))
    # two gold, found at 1 and 3: (1 + 1/2) / (1 + 1/log2 3)
    assert ndcg_at_k(["a", "x", "b"], ["a", "b"], 5) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(["x", "y", "a"], ["a"], 2) == 0.0  # outside the cut
    assert math.isnan(ndcg_at_k(["a"], [], 5))


def test_auroc_is_the_chance_a_positive_outscores_a_negative() -> None:
    from memgraph_agents.bench.metrics import auroc

    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.1, 0.2], [0.9, 0.8]) == 0.0
    assert auroc([0.5, 0.5], [0.5]) == 0.5  # ties count half
    assert auroc([0.9, 0.3], [0.5, 0.1]) == pytest.approx(0.75)  # 3 of 4 pairs ordered
    assert math.isnan(auroc([], [0.1]))


def test_floor_report_reads_recall_lost_and_nothing_relevant_per_floor() -> None:
    from memgraph_agents.bench.floor import floor_report
    from memgraph_agents.model.evidence import Evidence

    def ev(turn: str, rel: float) -> Evidence:
        return Evidence(node_id=f"turn:{turn}", kind="turn", text="t", score=rel, turn_ids=[turn], relevance=rel)

    evidence = {
        "a": [ev("D1:1", 0.7), ev("D1:2", 0.25)],  # answerable: gold D1:1 and D1:2
        "b": [ev("D2:1", 0.5)],  # answerable: gold D2:1
        "c": [ev("D3:1", 0.2)],  # adversarial
    }
    questions = [("a", 1, ["D1:1", "D1:2"]), ("b", 4, ["D2:1"]), ("c", 5, ["D3:1"])]
    got = floor_report(evidence, questions, k=10, default=0.3)
    assert got["auroc"] == 1.0 and got["answerable"] == 2 and got["adversarial"] == 1
    at = {row["floor"]: row for row in got["floors"]}
    assert at[0.0]["turn_recall@10"] == 1.0 and at[0.0]["recall_lost"] == 0.0
    assert at[0.3]["default"] and at[0.3]["turn_recall@10"] == 0.75  # D1:2 (0.25) dropped
    assert at[0.3]["answerable_nothing"] == 0.0 and at[0.3]["adversarial_nothing"] == 1.0
    assert floor_report(evidence, questions[:2], k=10, default=0.3) is None  # no category 5
