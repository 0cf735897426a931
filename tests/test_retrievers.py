"""Retriever contract on a small hash-embedded memory (every registered retriever), the speaker
prior, participant-name matching, empty namespaces, the registry and the retrieval graph."""

from __future__ import annotations

import json
from datetime import datetime
from itertools import pairwise

import numpy as np
import pytest

from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model import Conversation, Session, Turn
from memgraph_agents.registry import RETRIEVERS, get_retriever, retrieve
from memgraph_agents.retrieval.evidence import top_indices
from memgraph_agents.retrieval.seeds import mentioned_speakers, speaker_weights
from memgraph_agents.runtime import MemoryContext, get_store
from memgraph_agents.storage.snapshot import GraphSnapshot
from tests.conftest import make_conversation

# ``navigator`` is another engineer's agent with its own tests (and its own score semantics).
NAMES = [n for n in RETRIEVERS if n != "navigator"]
SPEAKER_PRIOR = ["ppr", "dwpr", "sentence_hop"]
QUERIES = [
    "What was Ben's time in the Lisbon half marathon?",
    "Pixel puppy training class",
    "the and of is",  # stopwords only
    "zyzzyva quux",  # no word of the memory
]
DATES = {"S1": "2024-03-10", "S2": "2024-06-10", "S3": "2024-09-10"}


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    """The conftest conversation (3 sessions, 16 turns), ingested once for the module."""
    s = Settings(data_dir=tmp_path_factory.mktemp("retrievers") / "mem", embeddings="hash", namespace="test")
    conv = make_conversation()
    ingest_conversation(conv, s)
    return s, conv, get_store(s)


def _turns(conv: Conversation) -> dict[str, str]:
    """turn id -> session id."""
    return {t.id: s.id for s in conv.sessions for t in s.turns}


# --------------------------------------------------------------------------- the contract


@pytest.mark.parametrize("name", NAMES)
def test_retriever_contract(memory, name):
    _, conv, store = memory
    turns = _turns(conv)
    for query in QUERIES:
        for k in (1, 5, 100):  # 100 > the 16 turns
            got = get_retriever(name)(query, store, k=k)
            assert len(got) <= min(k, len(turns)), (query, k)
            assert len({e.node_id for e in got}) == len(got), "a node returned twice"
            scores = [e.score for e in got]
            assert all(a >= b for a, b in pairwise(scores)), (query, scores)
            for e in got:
                assert e.kind == "turn" and e.retriever == name
                assert e.turn_ids and set(e.turn_ids) <= set(turns), e.turn_ids
                assert e.session_ids == list(dict.fromkeys(turns[t] for t in e.turn_ids))
                assert e.session_dates == [DATES[s] for s in e.session_ids]
            again = get_retriever(name)(query, store, k=k)
            assert [e.model_dump() for e in again] == [e.model_dump() for e in got], "not deterministic"
    assert get_retriever(name)(QUERIES[0], store, k=0) == []


def test_fusion_is_the_rrf_of_ppr_and_dwpr(memory):
    from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion

    _, _, store = memory
    for query in QUERIES:
        lists = [[e.turn_ids[0] for e in get_retriever(n)(query, store, k=50)] for n in ("ppr", "dwpr")]
        want = [t for t, _ in reciprocal_rank_fusion(lists, k=60)][:5]
        assert [e.turn_ids[0] for e in get_retriever("fusion")(query, store, k=5)] == want, query


@pytest.mark.parametrize("name", [n for n in NAMES if n != "bm25"])
def test_non_lexical_retrievers_fill_k_even_for_stopword_queries(memory, name):
    _, conv, store = memory
    assert len(get_retriever(name)("the and of is", store, k=5)) == 5
    assert len(get_retriever(name)("what?", store, k=100)) == len(_turns(conv))


def test_hybrid_fills_a_k_larger_than_its_pool(memory):
    _, _, store = memory
    assert len(get_retriever("hybrid")("Pixel the puppy", store, k=12, pool=3)) == 12


def test_bm25_needs_a_shared_term(memory):
    _, _, store = memory
    assert get_retriever("bm25")("the and of is", store, k=5) == []
    assert get_retriever("bm25")("zyzzyva", store, k=5) == []


@pytest.mark.parametrize("name", ["bm25", "hybrid", "ppr"])
def test_obvious_question_finds_the_turn(memory, name):
    _, _, store = memory
    top = [e.turn_ids[0] for e in get_retriever(name)("What was Ben's time in the Lisbon half marathon?", store, k=3)]
    assert "D2:1" in top, top  # "I finished the Lisbon half marathon ... in 1 hour 52 minutes!"


# --------------------------------------------------------------------------- speaker prior


def test_speaker_prior_ranks_the_named_participant_higher(settings):
    # Ben's turn repeats the question's words; Ana's turns hold the answer.
    script = [
        ("Ana", "My favourite trail is in the Alps, I go there every summer."),
        ("Ben", "Where does Ana love hiking? Ana loves hiking, I think."),
        ("Ana", "The weather was lovely last week."),
        ("Ben", "I prefer cycling by the sea."),
    ]
    turns = [Turn(id=f"D1:{i}", speaker=sp, text=tx) for i, (sp, tx) in enumerate(script, start=1)]
    conv = Conversation(
        id="prior", sessions=[Session(id="S1", date=datetime(2024, 5, 1, 10), turns=turns)], speakers=["Ana", "Ben"]
    )
    ingest_conversation(conv, settings)
    store = get_store(settings)
    query = "Where does Ana love hiking?"
    ana = {"turn:D1:1", "turn:D1:3"}
    for name in SPEAKER_PRIOR:
        flat = [e.node_id for e in get_retriever(name)(query, store, k=4, other_speaker=1.0)]
        prior = [e.node_id for e in get_retriever(name)(query, store, k=4)]
        assert flat[0] == "turn:D1:2", (name, flat)  # without the prior Ben's echo wins
        assert sorted(flat) == sorted(prior)
        for t in ana:
            assert prior.index(t) <= flat.index(t), (name, flat, prior)
        assert sum(prior.index(t) for t in ana) < sum(flat.index(t) for t in ana), (name, flat, prior)
        if name != "sentence_hop":  # multiplicative on PageRank mass: the answer comes first
            assert prior[0] in ana, (name, prior)


def test_speaker_weights_vector(memory):
    _, _, store = memory
    snap = store.snapshot()
    assert speaker_weights("where is the Alps trail?", snap) is None  # nobody named
    assert speaker_weights("What do Ana and Ben like?", snap) is None  # everybody named
    w = speaker_weights("What did Ana adopt?", snap, other=0.25)
    turns = snap.indices_of("turn")
    for i in turns:
        assert w[i] == (1.0 if snap.attrs[i]["speaker"] == "Ana" else 0.25)
    others = np.setdiff1d(np.arange(len(snap.ids)), turns)
    assert (w[others] == 1.0).all()


def _snapshot(participants: list[str], speakers: list[str]) -> GraphSnapshot:
    """A tiny snapshot: one session, one turn per speaker."""
    nodes = [("session:S1", "session", "Session", "S1", "[]", "{}")]
    nodes += [
        (
            f"turn:D1:{i}",
            "turn",
            f"{sp}: hello",
            "S1",
            json.dumps([f"D1:{i}"]),
            json.dumps({"turn_id": f"D1:{i}", "speaker": sp}),
        )
        for i, sp in enumerate(speakers, start=1)
    ]
    return GraphSnapshot.from_rows(1, nodes, [], [{"id": "S1", "date": "2024-01-01", "participants": participants}])


def test_mentioned_speakers_names_first_names_possessives_and_case():
    snap = _snapshot(["Odalys Smith", "Tamsin"], ["Odalys Smith", "Tamsin"])
    assert mentioned_speakers("What did Odalys Smith paint?", snap) == {"Odalys Smith"}
    assert mentioned_speakers("what did odalys paint?", snap) == {"Odalys Smith"}
    assert mentioned_speakers("Where is TAMSIN's studio?", snap) == {"Tamsin"}
    assert mentioned_speakers("Tamsin’s kids and Odalys's art", snap) == {"Tamsin", "Odalys Smith"}
    assert mentioned_speakers("Who is Odalyss friend, Tam?", snap) == set()  # whole words only
    assert mentioned_speakers("the the the", snap) == set()


def test_mentioned_speakers_with_regex_characters_and_empty_participants():
    snap = _snapshot(["Dr. Who", "C++ Bot", "(x)"], ["Dr. Who", "C++ Bot", "(x)"])
    assert mentioned_speakers("What did Dr. Who say?", snap) == {"Dr. Who"}
    assert mentioned_speakers("what did c++ bot reply", snap) == {"C++ Bot"}
    assert mentioned_speakers("a (x) b", snap) == {"(x)"}
    assert mentioned_speakers("Drx Who and C+ and x", snap) == set()
    # No participants recorded: the turns' speakers stand in.
    bare = _snapshot([], ["Ana", "Ben"])
    assert mentioned_speakers("What did Ana say?", bare) == {"Ana"}
    w = speaker_weights("What did Ana say?", bare, other=0.5)
    assert w.tolist() == [1.0, 1.0, 0.5]
    nobody = _snapshot(["", "  "], ["", ""])
    assert mentioned_speakers("What did Ana say?", nobody) == set()
    assert speaker_weights("What did Ana say?", nobody) is None


# --------------------------------------------------------------------------- edge cases


def test_empty_namespace_returns_nothing(settings):
    store = get_store(settings, "empty")
    assert store.sessions() == []
    for name in NAMES:
        for k in (0, 10):
            assert get_retriever(name)("What was Ben's time in the Lisbon half marathon?", store, k=k) == [], name


def test_unknown_retriever_and_empty_question(memory):
    _, _, store = memory
    with pytest.raises(ValueError, match="unknown retriever 'nope'") as err:
        get_retriever("nope")
    for name in RETRIEVERS:
        assert name in str(err.value)
    with pytest.raises(ValueError, match="unknown retriever"):
        retrieve("nope", "anything", store)
    with pytest.raises(ValueError, match="empty"):
        retrieve("bm25", "   ", store)


def test_top_indices_ties_and_mask():
    s = np.array([0.5, 0.9, 0.5, 0.5, np.nan, 0.1])
    assert top_indices(s, 2).tolist() == [1, 0]
    assert top_indices(s, 3).tolist() == [1, 0, 2]
    assert top_indices(s, 10).tolist() == [1, 0, 2, 3, 5]  # NaN never returned
    assert top_indices(s, 2, mask=np.array([0, 0, 1, 1, 1, 1], bool)).tolist() == [2, 3]
    assert top_indices(s, 0).tolist() == []
    assert top_indices(np.zeros(0), 3).tolist() == []


# --------------------------------------------------------------------------- the graph


def test_retrieval_graph_runs_the_context_retriever_and_draws_every_node(memory):
    from memgraph_agents.graphs.retrieval import graph

    s, _, _ = memory
    ctx = MemoryContext(data_dir=str(s.data_dir), namespace=s.namespace, embeddings="hash", retriever="ppr")
    out = graph.invoke({"query": "What was Ben's time in the Lisbon half marathon?", "k": 3}, context=ctx)
    assert 0 < len(out["evidence"]) <= 3
    assert {e["retriever"] for e in out["evidence"]} == {"ppr"}
    mermaid = graph.get_graph().draw_mermaid()
    for name in RETRIEVERS:
        assert name in mermaid
    bad = MemoryContext(data_dir=str(s.data_dir), namespace=s.namespace, embeddings="hash", retriever="nope")
    with pytest.raises(ValueError, match="unknown retriever"):
        graph.invoke({"query": "anything"}, context=bad)
