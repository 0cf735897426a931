"""Answer-aware ranking signals: the kind of value asked for, the question's subject, the reply
to a matching question; each a pure function, each behind its own weight in ``oneshot``."""

from __future__ import annotations

import pytest

from memgraph_agents.model.evidence import flatten_turns
from memgraph_agents.registry import retrieve
from memgraph_agents.retrieval.answer_aware import gated_terms, lexical_terms, ordered_head, reply_terms
from memgraph_agents.retrieval.answer_kind import asked_kind, carries
from memgraph_agents.retrieval.head_order import HeadTurn, HeadWeights, head_order
from memgraph_agents.retrieval.oneshot import OneshotOptions
from memgraph_agents.retrieval.reply_gain import asks, reply_gains, reply_of
from memgraph_agents.retrieval.subject import own, subject_of
from tests.test_navigator_support import build_memory


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build_memory(tmp_path_factory.mktemp("answer_aware") / "mem")


def _node(store, turn_id: str) -> int:
    return store.snapshot().index[f"turn:{turn_id}"]


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When did Ana adopt the puppy?", "date"),
        ("How long ago did Ben run?", "date"),
        ("How many times a week does Ben train?", "number"),
        ("How long is the race?", "number"),
        ("Where does Ana work?", "place"),
        ("In which city was the race?", "place"),
        ("Who visited the library?", "person"),
        ("With whom did Ben run?", "person"),
        ("What is the puppy called?", None),
        ("Why did Ana start a new job?", None),
    ],
)
def test_asked_kind_reads_the_wh_word_and_its_noun(question, kind):
    assert asked_kind(question) == kind


@pytest.mark.parametrize(
    ("text", "attrs", "kind", "expected"),
    [
        ("Ana: I adopted him yesterday.", {"speaker": "Ana"}, "date", True),
        ("Ana: We met on 3 March 2024.", {"speaker": "Ana"}, "date", True),
        ("Ana: It was lovely.", {"speaker": "Ana", "dates": ["2024-03-09"]}, "date", True),
        ("Ana: It was lovely.", {"speaker": "Ana"}, "date", False),
        ("Ben: Four times a week.", {"speaker": "Ben"}, "number", True),
        ("Ben: 12 km along the river.", {"speaker": "Ben"}, "number", True),
        ("Ben: Very hilly, legs hurt.", {"speaker": "Ben"}, "number", False),
        ("Ana: I started at the Riverside Library.", {"speaker": "Ana"}, "place", True),
        ("Ana: Sunday by the lake.", {"speaker": "Ana"}, "place", True),
        ("Ana: It was lovely.", {"speaker": "Ana"}, "place", False),
        ("Ana: I went with my sister.", {"speaker": "Ana"}, "person", True),
        ("Ana: Nice talking, Ben!", {"speaker": "Ana"}, "person", False),  # the other speaker is no answer
        ("Ana: It was lovely.", {"speaker": "Ana"}, None, False),
    ],
)
def test_carries_finds_a_value_of_the_kind_in_the_turn(text, attrs, kind, expected):
    assert carries(text, attrs, kind, ["Ana", "Ben"]) is expected


def test_the_subject_is_the_one_speaker_named(store):
    snap = store.snapshot()
    assert subject_of("What did Ana adopt?", snap) == "Ana"
    assert subject_of("What is Ben's race time?", snap) == "Ben"  # possessive
    assert subject_of("What did Ana and Ben talk about?", snap) is None  # both: no subject
    assert subject_of("What was the weather like?", snap) is None
    assert own({"speaker": "Ana"}, "Ana") and not own({"speaker": "Ben"}, "Ana") and not own({"speaker": "Ana"}, None)


def test_the_reply_after_an_asking_turn_gains_its_match(store):
    snap = store.snapshot()
    asking, reply, same_speaker_next = _node(store, "D1:5"), _node(store, "D1:6"), _node(store, "D1:6")
    assert asks(snap.text[asking], "Ana") and not asks(snap.text[reply], "Ben")
    assert reply_of(snap, asking) == reply
    assert reply_of(snap, same_speaker_next) is None  # the last turn of its session: no reply
    gains = reply_gains(snap, [asking, reply], lambda i: 0.8 if i == asking else 0.1)
    assert gains == {reply: 0.8}  # only the asking turn passes its match on
    assert reply_terms(snap, [asking], lambda i: 0.5, 0.2) == {reply: pytest.approx(0.1)}
    assert reply_terms(snap, [asking], lambda i: 0.5, 0.0) == {}  # weight 0: off


def test_gated_terms_add_each_weight_where_it_applies(store):
    snap = store.snapshot()
    dated, undated = _node(store, "D2:4"), _node(store, "D1:3")  # "two days ago" / no date
    got = gated_terms(snap, "When did Pixel pass his class?", [dated, undated], kind=0.5, subject=0.0)
    assert got == {dated: 0.5}
    ana_turn, ben_turn = _node(store, "D3:1"), _node(store, "D3:2")
    got = gated_terms(snap, "What job did Ana start?", [ana_turn, ben_turn], kind=0.0, subject=0.3)
    assert got == {ana_turn: 0.3}
    assert gated_terms(snap, "When did Pixel pass his class?", [dated], kind=0.0, subject=0.0) == {}


def test_lexical_terms_are_relative_to_the_best_in_the_pool(store):
    snap = store.snapshot()
    nodes = [_node(store, t) for t in ("D1:4", "D2:1", "D1:1")]
    got = lexical_terms(snap, "Ben's Lisbon half marathon", nodes, 0.2)
    assert max(got.values()) == pytest.approx(0.2) and set(got) <= set(nodes)
    assert lexical_terms(snap, "Ben's Lisbon half marathon", nodes, 0.0) == {}


def test_each_signal_is_off_at_zero_and_the_defaults_name_the_measured_weights(store):
    """Every weight 0 gives the ranking without the answer-aware terms; the defaults are the
    weights BENCHMARKS.md measured (a change of default must change this test)."""
    off = {"kind": 0.0, "subject": 0.0, "reply": 0.0, "lexical": 0.0}
    q = "When did Pixel pass his puppy training class?"
    base = flatten_turns(retrieve("oneshot", q, store, k=10, **off))
    again = flatten_turns(retrieve("oneshot", q, store, k=10, **off))
    assert base == again
    on = flatten_turns(retrieve("oneshot", q, store, k=10, **{**off, "kind": 0.5}))
    assert set(on) == set(base) or len(on) == len(base)
    o = OneshotOptions()
    assert (o.kind, o.subject, o.reply, o.lexical) == DEFAULTS


DEFAULTS = (0.0, 0.0, 0.0, 0.0)


# --------------------------------------------------------------------------- the head's order


def _turn(score, rel=0.0, carries=False, lex=0.0, asks=False):
    return HeadTurn(score=score, rel=rel, carries=carries, lex=lex, asks=asks)


def test_head_order_is_the_ranking_when_every_weight_is_zero():
    turns = [_turn(1.0), _turn(0.9, rel=1.0, carries=True, lex=1.0)]
    assert head_order(turns, HeadWeights()) == [0, 1]


def test_head_order_lifts_the_turn_that_carries_the_answer_and_drops_one_that_asks():
    asker = _turn(1.0, rel=0.7, asks=True)
    answer = _turn(0.9, rel=0.6, carries=True, lex=0.5)
    other = _turn(0.8, rel=0.6)
    w = HeadWeights(match=0.5, kind=0.8, words=0.8, asks=0.3)
    # answer 0.9 + 0.3 + 0.8 + 0.4; other 0.8 + 0.3; asker 1.0 + 0.35 - 0.3
    assert head_order([asker, answer, other], w) == [1, 2, 0]
    # each weight alone moves what it reads, nothing else
    assert head_order([asker, answer, other], HeadWeights(kind=0.2)) == [1, 0, 2]
    assert head_order([asker, other], HeadWeights(asks=0.3)) == [1, 0]
    assert head_order([other, answer], HeadWeights(words=0.2)) == [1, 0]


def test_head_order_ties_keep_the_ranking_order():
    assert head_order([_turn(0.5), _turn(0.5), _turn(0.5)], HeadWeights(match=1.0)) == [0, 1, 2]


def test_ordered_head_keeps_the_turns_and_hands_the_scores_out_again(store):
    snap = store.snapshot()
    ranked = [(_node(store, t), s) for t, s in (("D2:3", 1.0), ("D2:4", 0.8), ("D1:2", 0.6))]
    w = HeadWeights(kind=1.0)
    got = ordered_head(snap, "When did Pixel pass his class?", ranked, lambda i: 0.5, w)
    assert [i for i, _ in got][0] == _node(store, "D2:4")  # "two days ago": a date for a "when" question
    assert sorted(i for i, _ in got) == sorted(i for i, _ in ranked)
    assert [s for _, s in got] == [1.0, 0.8, 0.6]  # scores still decrease


def test_the_default_ranking_orders_its_head_and_stays_prefix_stable(store):
    q = "When did Pixel pass his puppy training class?"
    ten = flatten_turns(retrieve("oneshot", q, store, k=10))
    for k in (1, 3, 5):
        assert flatten_turns(retrieve("oneshot", q, store, k=k)) == ten[:k]
    off = {"head_match": 0.0, "head_kind": 0.0, "head_words": 0.0, "head_asks": 0.0}
    plain = flatten_turns(retrieve("oneshot", q, store, k=10, **off))
    assert set(plain) == set(ten)  # the head keeps its turns
    o = OneshotOptions()
    assert (o.head, o.head_match, o.head_kind, o.head_words, o.head_asks) == (10, 0.5, 0.8, 0.8, 0.3)
