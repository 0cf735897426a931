"""The sgmem layer (SGMem's session summaries, facts and insights) and ``sentence_hop`` reading it.

Ingests run through the real ingest graph with ``preset="sgmem"`` and hash embeddings; LLM
mode uses scripted fakes (``tests/fakes_sgmem.py``) that answer from the prompt's own turns.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np
import pytest

from memgraph_agents.construct.sgmem.generate import overlap_turn, ref_key
from memgraph_agents.construct.sgmem.offline import centroid_scores, is_fact_sentence, pick_central, summary_size
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.llm.usage import message_text
from memgraph_agents.model.evidence import flatten_turns
from memgraph_agents.presets import PRESETS
from memgraph_agents.registry import get_retriever
from memgraph_agents.retrieval.sentence_hop_retriever import SentenceHopOptions, sentence_hop
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.fakes import (
    FakeBadRequestError,
    always_malformed,
    is_repair,
    malformed_then_valid,
    parse_turn_lines,
    task_text,
)
from tests.fakes_sgmem import (
    INVENTED_FACT,
    SGMEM_MARKER,
    realistic_sgmem_responder,
    sgmem_ingest_responder,
    sgmem_memory,
)
from tests.helpers import calls_for, edges, nodes, register_model

SPEC = "fake:sgmem"
GENERATED = ("summary", "fact", "insight")


# --------------------------------------------------------------------------- helpers


def sgmem_settings(settings, **update):
    return settings.model_copy(update={"preset": "sgmem", **update})


use_model = partial(register_model, SPEC)


def out_edges(store, kind, src):
    return {e.dst for e in edges(store, kind) if e.src == src}


def sgmem_calls(model):
    return calls_for(model, SGMEM_MARKER)


def replies_by_session(model) -> dict[str, dict]:
    """The realistic reply each session's (first) sgmem prompt gets, recomputed from the prompt."""
    out = {}
    for call in sgmem_calls(model):
        prompt = task_text(call)
        sid = "S" + parse_turn_lines(prompt)[0]["id"].split(":")[0][1:]
        out.setdefault(sid, sgmem_memory(prompt))
    return out


def session_turns(conv):
    return {s.id: [t.id for t in s.turns] for s in conv.sessions}


# --------------------------------------------------------------------------- offline pieces


def test_centroid_picks_the_central_sentences_without_repeats():
    # 0 and 3 are near-duplicates (cos 0.999), 1 is a different but central topic, 2 an outlier
    v = np.array([[1, 0, 0], [0.6, 0.8, 0], [0, 0, 1], [0.999, 0.0447, 0]], dtype=float)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    scores = centroid_scores(v)
    assert scores.argmax() == 3 and scores.argmin() == 2
    assert pick_central(v, 2) == [1, 3]  # 0 would repeat 3; returned in conversation order
    assert pick_central(v, 2, redundant=1.01) == [0, 3]  # without the redundancy check
    assert pick_central(v, 2, eligible=[False, False, True, False]) == [2]
    assert [summary_size(n) for n in (0, 1, 4, 10, 400)] == [1, 1, 2, 4, 5]


@pytest.mark.parametrize(
    "sentence, fact",
    [
        ("I adopted a puppy yesterday (9 March 2024), a beagle called Pixel.", True),
        ("Pixel passed his puppy training class two days ago (8 June 2024).", True),  # a named pet, a date
        ("We bought 3 mountain bikes.", True),
        ("Are you training every day?", False),  # a question
        ("That is a great time.", False),  # a reaction, about nobody
        ("Thanks Ben!", False),  # too little content
    ],
)
def test_fact_sentences(sentence, fact):
    assert is_fact_sentence(sentence, ["Ana", "Ben"]) is fact


def test_fact_references_and_overlap_repair():
    assert {ref_key(r) for r in ("F2", "f2", "[2]", "fact 2", "Fact-2", "2", " F02 ")} == {"f2"}
    turns = [("D1:1", "Ana: I adopted a beagle called Pixel"), ("D1:2", "Ben: I ran the Lisbon half marathon")]
    assert overlap_turn("Ben finished the Lisbon half marathon", turns) == "D1:2"
    assert overlap_turn("Zebulon collects antique typewriters", turns) is None
    assert overlap_turn("the and of", turns) is None  # no content words


# --------------------------------------------------------------------------- offline layer


def test_offline_layer_stores_extractive_summaries_and_dated_facts(settings):
    conv = make_conversation()
    report = ingest_conversation(conv, sgmem_settings(settings))
    store = get_store(settings)
    assert report.notes == []
    summaries, facts = nodes(store, "summary"), nodes(store, "fact")
    turn_text = {n.attrs["turn_id"]: n.text for n in nodes(store, "turn").values()}
    assert nodes(store, "insight") == {}  # insights need an LLM
    for s in conv.sessions:
        summ = summaries[f"summary:sgmem:{s.id}"]
        assert summ.session_id == s.id and summ.attrs["scope"] == "session" and summ.attrs["builder"] == "offline"
        assert summ.text.startswith(f"Session of {s.date.day} {s.date:%B %Y} (Ana, Ben).")
        assert summ.turn_ids and set(summ.turn_ids) <= set(session_turns(conv)[s.id])
        assert out_edges(store, "derived", summ.id) == {f"session:{s.id}"}
        assert out_edges(store, "evidence", summ.id) == {f"turn:{t}" for t in summ.turn_ids}
        # extractive: every "Speaker: sentence" of the summary is a sentence of a cited turn
        quotes = re.findall(r"(?:Ana|Ben): .*?[.!](?= (?:Ana|Ben): |$)", summ.text)
        assert quotes
        for quote in quotes:
            assert any(quote in turn_text[t] for t in summ.turn_ids), quote
    assert {n.session_id for n in facts.values()} == {"S1", "S2", "S3"}
    for f in facts.values():
        (tid,) = f.turn_ids
        quoted = re.fullmatch(r'On \d+ \w+ 2024, (\w+) said: "(.*)"', f.text)
        assert quoted and quoted[2] in turn_text[tid] and f.attrs["subject"] == quoted[1]
        assert turn_text[tid].startswith(f"{quoted[1]}: ")
        assert out_edges(store, "evidence", f.id) == {
            f"turn:{tid}"
        } and f.session_id == store.snapshot().session_of_turn(tid)
    cited = {t for f in facts.values() for t in f.turn_ids}
    assert {"D1:1", "D1:4", "D2:1", "D3:1"} <= cited
    assert not cited & {"D1:2", "D1:5", "D2:2", "D3:2"}  # questions are not facts
    puppy = next(f for f in facts.values() if f.turn_ids == ["D1:1"])
    assert "yesterday (9 March 2024)" in puppy.text and puppy.attrs["time"] == "2024-03-09"


def test_default_preset_builds_no_generated_memory(settings):
    ingest_conversation(make_conversation(n_sessions=1), settings)
    store = get_store(settings)
    assert all(nodes(store, k) == {} for k in GENERATED)


# --------------------------------------------------------------------------- LLM layer


def test_llm_layer_stores_the_models_summary_facts_and_insights(settings):
    conv = make_conversation()
    model = use_model(sgmem_ingest_responder())
    report = ingest_conversation(conv, sgmem_settings(settings, llm=SPEC))
    store = get_store(settings)
    assert report.notes == []
    replies = replies_by_session(model)
    assert len(sgmem_calls(model)) == 3 and set(replies) == {"S1", "S2", "S3"}  # one call per session
    summaries, facts, insights = nodes(store, "summary"), nodes(store, "fact"), nodes(store, "insight")
    for s in conv.sessions:
        reply = replies[s.id]
        summ = summaries[f"summary:sgmem:{s.id}"]
        assert summ.text == reply["summary"]["text"] and summ.attrs["builder"] == "llm"
        assert summ.turn_ids == session_turns(conv)[s.id]  # no ids given: the whole session
        assert out_edges(store, "derived", summ.id) == {f"session:{s.id}"}
        mine = sorted((f for f in facts.values() if f.session_id == s.id), key=lambda f: int(f.id.rsplit(":", 1)[1]))
        assert [f.text for f in mine] == [f["text"] for f in reply["facts"]]
        assert not any(re.search(r"\b(yesterday|last weekend|next month|this week)\b", f.text) for f in mine)
        for node, fact in zip(mine, reply["facts"]):
            assert node.turn_ids == fact["turn_ids"] and node.attrs["subject"] == fact["subject"]
            assert node.attrs["time"] == fact["time"] and node.attrs["builder"] == "llm"
            assert out_edges(store, "evidence", node.id) == {f"turn:{t}" for t in fact["turn_ids"]}
        ins = [i for i in insights.values() if i.session_id == s.id]
        assert [i.text for i in ins] == [i["text"] for i in reply["insights"]] and ins
        for node, insight in zip(ins, reply["insights"]):
            sources = [mine[int(ref_key(str(r))[1:]) - 1] for r in insight["facts"]]  # "F1" or 2
            assert out_edges(store, "derived", node.id) == {f.id for f in sources}
            assert node.turn_ids == sorted(
                {t for f in sources for t in f.turn_ids}, key=session_turns(conv)[s.id].index
            )
            assert node.attrs["time"] == max(f.attrs["time"] for f in sources if f.attrs["time"])
    usage = report.llm_usage
    assert usage["calls"] == len(model.calls) and usage["failures"] == 0 and usage["input_tokens"] > 0


def test_llm_orphan_facts_are_repaired_or_dropped_with_a_note(settings):
    conv = make_conversation(n_sessions=1)
    use_model(sgmem_ingest_responder(realistic_sgmem_responder(orphans=True)))
    report = ingest_conversation(conv, sgmem_settings(settings, llm=SPEC))
    store = get_store(settings)
    facts = nodes(store, "fact")
    assert all(f.turn_ids and set(f.turn_ids) <= set(session_turns(conv)["S1"]) for f in facts.values())
    assert INVENTED_FACT not in {f.text for f in facts.values()}
    donor = max(conv.sessions[0].turns, key=lambda t: len(t.text))
    repaired = [f for f in facts.values() if "(April 2024)" in f.text]  # the leftover "next month" got dated
    assert len(repaired) == 1 and repaired[0].turn_ids == [donor.id]
    assert "Zebulon" not in " ".join(i.text for i in nodes(store, "insight").values())
    notes = " | ".join(report.notes)
    assert f"attached to {donor.id} by word overlap" in notes
    assert "dropped fact" in notes and "dropped insight" in notes
    assert {s["id"] for s in store.sessions()} == {"S1"}


@pytest.mark.parametrize("kind", ["truncated", "wrong_types", "unknown_turn"])
def test_llm_malformed_reply_is_repaired(settings, kind):
    conv = make_conversation(n_sessions=2)
    model = use_model(sgmem_ingest_responder(malformed_then_valid(realistic_sgmem_responder(), kind)))
    report = ingest_conversation(conv, sgmem_settings(settings, llm=SPEC))
    store = get_store(settings)
    assert report.notes == []  # repaired, no fallback
    calls = sgmem_calls(model)
    assert len(calls) == 4 and sum(is_repair(c) for c in calls) == 2
    if kind == "unknown_turn":
        assert all("no fact cites a turn id" in message_text(c[-1]) for c in calls if is_repair(c))
    assert report.llm_usage["retries"] >= 2 and report.llm_usage["failures"] >= 2
    assert {n.attrs["builder"] for k in GENERATED for n in nodes(store, k).values()} == {"llm"}
    assert {n.session_id for n in nodes(store, "insight").values()} == {"S1", "S2"}


@pytest.mark.parametrize(
    "broken", [always_malformed(realistic_sgmem_responder(), "unknown_turn"), lambda messages: FakeBadRequestError()]
)
def test_llm_failure_falls_back_offline_and_loses_nothing(settings, broken):
    conv = make_conversation()
    use_model(sgmem_ingest_responder(broken))
    report = ingest_conversation(conv, sgmem_settings(settings, llm=SPEC))
    store = get_store(settings)
    assert report.sessions_new == 3
    assert sum("sgmem: LLM failed" in n and "offline fallback" in n for n in report.notes) == 3
    summaries, facts = nodes(store, "summary"), nodes(store, "fact")
    assert set(summaries) == {f"summary:sgmem:{s.id}" for s in conv.sessions}
    assert {n.attrs["builder"] for n in [*summaries.values(), *facts.values()]} == {"offline"}
    assert {f.session_id for f in facts.values()} == {"S1", "S2", "S3"} and nodes(store, "insight") == {}
    # the other steps kept their LLM output: only the sgmem layer fell back
    assert {e.attrs["builder"] for e in nodes(store, "event").values()} == {"llm"}
    assert len(nodes(store, "turn")) == sum(len(s.turns) for s in conv.sessions)


def test_deleting_a_session_removes_exactly_its_generated_memory(settings):
    conv = make_conversation()
    use_model(sgmem_ingest_responder())
    ingest_conversation(conv, sgmem_settings(settings, llm=SPEC))
    store = get_store(settings)
    before = {k: nodes(store, k) for k in GENERATED}
    doomed = {nid for k in GENERATED for nid, n in before[k].items() if n.session_id == "S2"}
    assert {nid.split(":")[0] for nid in doomed} == set(GENERATED)
    store.delete_session("S2")
    after = {k: nodes(store, k) for k in GENERATED}
    for k in GENERATED:
        assert after[k] == {nid: n for nid, n in before[k].items() if n.session_id != "S2"}
    assert not [e for e in store.db.edges() if e.src in doomed or e.dst in doomed]
    assert not set(store.vectors.get_vectors(sorted(doomed)))
    assert set(store.vectors.get_vectors(sorted(after["fact"]))) == set(after["fact"])


# --------------------------------------------------------------------------- sentence_hop


@pytest.fixture(scope="module")
def sgmem_memory_store(tmp_path_factory):
    """The conftest conversation with the offline sgmem layer, ingested once for the module."""
    from memgraph_agents.config import Settings

    s = Settings(data_dir=tmp_path_factory.mktemp("sgmem") / "mem", embeddings="hash", namespace="sg", preset="sgmem")
    ingest_conversation(make_conversation(), s)
    return get_store(s)


QUERY = "Ben finished the Lisbon half marathon in 1 hour 52 minutes"


def test_sentence_hop_appends_generated_memory_after_the_k_chunks(sgmem_memory_store):
    store = sgmem_memory_store
    snap = store.snapshot()
    base = sentence_hop(QUERY, store, k=5)
    got = sentence_hop(QUERY, store, k=5, options=SentenceHopOptions(generated=2))
    assert [e.model_dump() for e in got[:5]] == [e.model_dump() for e in base]
    assert flatten_turns(got, 5) == flatten_turns(base, 5)  # turn recall@k is untouched
    extra = got[5:]
    assert extra and {e.kind for e in extra} == {"summary", "fact"}  # no insights offline
    # exactly the top-2 of each kind by cosine, best first
    qv = store.embedder.embed_one(QUERY)
    vecs = snap.vectors()
    cos = {snap.ids[i]: float(vecs[i] @ qv) for k in GENERATED for i in snap.indices_of(k)}
    expected = {
        nid
        for k in ("summary", "fact")
        for nid in sorted((n for n in cos if n.startswith(k)), key=lambda n: -cos[n])[:2]
    }
    assert {e.node_id for e in extra} == expected
    assert [cos[e.node_id] for e in extra] == sorted((cos[e.node_id] for e in extra), reverse=True)
    assert extra[0].node_id == "fact:S2:1"  # Ben's own words about the race
    for e in extra:
        node = snap.node(e.node_id)
        assert e.turn_ids == node.turn_ids and e.text == node.text and e.session_ids == [node.session_id]
        assert e.retriever == "sentence_hop" and e.path == [e.node_id]
    scores = [e.score for e in got]
    assert all(a >= b for a, b in zip(scores, scores[1:]))


def test_sentence_hop_defaults_to_chunks_only_and_the_preset_turns_generated_memory_on(sgmem_memory_store):
    store = sgmem_memory_store
    assert {e.kind for e in sentence_hop(QUERY, store, k=5)} == {"turn"}
    per_kind = PRESETS["sgmem"].retriever_params["generated"]
    assert per_kind > 0
    got = get_retriever("sgmem")(QUERY, store, k=5)
    assert [e.kind for e in got[:5]] == ["turn"] * 5
    kinds = [e.kind for e in got[5:]]
    assert kinds and all(kinds.count(k) <= per_kind for k in GENERATED) and set(kinds) <= set(GENERATED)
    assert (
        sentence_hop(QUERY, store, k=5, options=SentenceHopOptions(generated=2, generated_kinds=("fact",)))[5].kind
        == "fact"
    )
