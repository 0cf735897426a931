"""The MemORAI layer: offline and LLM construction through the real ingest graph,
repair and fallback, session deletion, and DW-PR reading the MemORAI structures."""

from __future__ import annotations

import json
from collections import Counter
from functools import partial

import pytest

import memgraph_agents.retrieval.dwpr_retriever as dwpr_mod
from memgraph_agents.construct.llm.extract import format_turns
from memgraph_agents.construct.memorai.llm import entities_and_triples, segment_and_gate
from memgraph_agents.construct.memorai.plan import TurnView
from memgraph_agents.construct.relate import argument_key
from memgraph_agents.construct.sentences import split_sentences
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.llm.coerce import normalise_label
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.memorai_rows import SEGMENT_EDGE
from memgraph_agents.retrieval.dwpr_retriever import dwpr
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.fakes import (
    ScriptedChatModel,
    always_malformed,
    is_repair,
    malformed_then_valid,
    parse_turn_lines,
    sample_session,
    task_text,
)
from tests.fakes_memorai import (
    ENTITIES_MARKER,
    SEGMENTS_MARKER,
    entities_reply,
    memorai_ingest_responder,
    segments_reply,
)
from tests.helpers import calls_for, edges, nodes, register_model

SPEC = "fake:memorai"


# --------------------------------------------------------------------------- helpers


def memorai(settings, llm: bool = False):
    return settings.model_copy(update={"preset": "memorai", **({"llm": SPEC} if llm else {})})


use_model = partial(register_model, SPEC)


def segment_edges(store):
    return [e for e in edges(store, SEGMENT_EDGE.value) if e.src.startswith("segment:")]


def assert_segments_cover_every_turn(store, conv, builder):
    segments, turns = nodes(store, "segment"), nodes(store, "turn")
    covered = Counter(e.dst for e in segment_edges(store))
    assert set(covered) == set(turns) and set(covered.values()) == {1}  # a partition of the turns
    for s in conv.sessions:
        own = sorted((n for n in segments.values() if n.session_id == s.id), key=lambda n: n.attrs["index"])
        assert own and [t for n in own for t in n.turn_ids] == [t.id for t in s.turns]
        for n in own:
            assert n.text.strip() and n.attrs["builder"] == builder
            assert {e.dst for e in segment_edges(store) if e.src == n.id} == {f"turn:{t}" for t in n.turn_ids}
            assert all(turns[f"turn:{t}"].attrs["segment_id"] == n.id for t in n.turn_ids)


def composed_of(summary: str, pieces: list[str]) -> bool:
    """Whether ``summary`` is some of ``pieces``, in order, joined by spaces."""
    rest = summary
    for p in pieces:
        if rest.startswith(p):
            rest = rest[len(p) :].lstrip()
    return rest == ""


# --------------------------------------------------------------------------- offline


@pytest.mark.slow
def test_offline_layer_builds_segments_gate_and_entities(settings):
    conv = make_conversation()
    report = ingest_conversation(conv, memorai(settings))
    store = get_store(settings)
    assert report.notes == [] and report.llm_usage == {}
    assert_segments_cover_every_turn(store, conv, "offline")

    turns = nodes(store, "turn")
    # Extractive summaries: "Speaker: sentence" pieces of the segment's own turns, in order.
    for seg in nodes(store, "segment").values():
        pieces = [
            f"{turns[f'turn:{t}'].attrs['speaker']}: {s}"
            for t in seg.turn_ids
            for s in split_sentences(turns[f"turn:{t}"].text.split(": ", 1)[1])
        ]
        assert composed_of(seg.text, pieces), seg.text

    # Gate: a verdict with its reason on every turn; facts kept, greetings/backchannel dropped.
    assert all(isinstance(n.attrs["user_specific"], bool) and n.attrs["gate_reason"] for n in turns.values())
    gate = {n.attrs["turn_id"]: n.attrs["user_specific"] for n in turns.values()}
    assert gate["D1:1"] and gate["D2:1"] and gate["D3:1"]
    assert gate["D1:6"]  # "Four times a week..." answers "Are you training every day?"
    assert not gate["D3:2"] and not gate["D3:5"]  # "Congrats! What do you do there?", "Ha, maybe..."

    # Entities: arguments of the gated turns with extractive descriptions, linked to those turns.
    args, mentions = nodes(store, "argument"), edges(store, "mentions")
    assert mentions
    for e in mentions:
        turn = turns[e.dst]
        assert gate[turn.attrs["turn_id"]] and e.turn_ids == [turn.attrs["turn_id"]]
        assert e.session_id == turn.session_id and e.attrs["description"]
        assert args[e.src].text.lower() in turn.text.lower()
        assert args[e.src].attrs["description"]
    pixel = args["arg:pixel"]
    assert pixel.session_id == "S1" and "beagle called Pixel" in pixel.attrs["description"]
    assert {e.dst for e in mentions if e.src == "arg:pixel"} >= {"turn:D1:1", "turn:D1:3", "turn:D2:4"}
    assert not {e.dst for e in mentions} & {f"turn:{t}" for t, kept in gate.items() if not kept}
    assert edges(store, "triple") == []  # offline: no triples (documented)
    # Segment membership edges leave the topic layer alone: topics still group events.
    topics = [e for e in edges(store, "member") if e.src.startswith("topic:")]
    assert topics and all(e.dst.startswith("event:") for e in topics)


def test_layer_runs_only_when_the_preset_asks_for_it(settings):
    ingest_conversation(make_conversation(n_sessions=1), settings)  # preset "base"
    store = get_store(settings)
    assert nodes(store, "segment") == {} and edges(store, "mentions") == []
    assert all("user_specific" not in n.attrs for n in nodes(store, "turn").values())


# --------------------------------------------------------------------------- LLM


def expected_replies(conv):
    """What the fake answers per session: segments/gate, and entities over the gated turns."""
    out = {}
    for s in conv.sessions:
        seg = segments_reply(format_turns(s))
        gated = [g["turn_id"] for g in seg["user_specific"]]
        out[s.id] = (seg, entities_reply(format_turns(s, gated)), gated)
    return out


def test_llm_layer_stores_the_models_segments_gate_entities_and_triples(settings):
    conv = make_conversation()
    model = use_model(memorai_ingest_responder())
    report = ingest_conversation(conv, memorai(settings, llm=True))
    store = get_store(settings)
    assert report.notes == []
    assert_segments_cover_every_turn(store, conv, "llm")
    segments, turns, args = nodes(store, "segment"), nodes(store, "turn"), nodes(store, "argument")
    mentions = {(e.src, e.dst): e for e in edges(store, "mentions")}
    triples = {(e.src, e.dst, e.label): e for e in edges(store, "triple")}
    expected = expected_replies(conv)
    n_triples = 0
    for s in conv.sessions:
        seg, ent, gated = expected[s.id]
        for k, want in enumerate(seg["segments"], start=1):
            got = segments[f"segment:{s.id}:{k}"]
            assert (got.text, got.attrs["title"], got.turn_ids) == (want["summary"], want["title"], want["turn_ids"])
        reasons = {g["turn_id"]: g["reason"] for g in seg["user_specific"]}
        for t in s.turns:
            node = turns[f"turn:{t.id}"]
            assert node.attrs["user_specific"] == (t.id in reasons)
            assert node.attrs.get("gate_reason", "") == reasons.get(t.id, "")
        for e in ent["entities"]:
            aid = f"arg:{argument_key(e['name'])}"
            assert aid in args and args[aid].attrs["description"]
            for t in e["turn_ids"]:
                edge = mentions[(aid, f"turn:{t}")]
                assert edge.session_id == s.id and edge.attrs["description"] == e["description"]
            if s.id == "S1":  # the first session to describe an entity writes the node's description
                assert args[aid].attrs["description"] == e["description"]
        for tr in ent["triples"]:
            a, b = f"arg:{argument_key(tr['subject'])}", f"arg:{argument_key(tr['object'])}"
            edge = triples[(a, b, normalise_label(tr["predicate"]))]
            assert edge.session_id == s.id and edge.turn_ids == tr["turn_ids"]
            assert (
                edge.attrs["text"]
                == f"{args[a].text} {normalise_label(tr['predicate']).replace('_', ' ')} {args[b].text}"
            )
            n_triples += 1
    assert n_triples >= 3 and len(triples) == n_triples
    assert triples[("arg:ana", "arg:puppy", "adopted")].turn_ids == ["D1:1"]

    # Two MemORAI calls per session; the entity call sees only the gated turns.
    seg_calls, ent_calls = calls_for(model, SEGMENTS_MARKER), calls_for(model, ENTITIES_MARKER)
    assert len(seg_calls) == len(ent_calls) == 3
    for call in ent_calls:
        shown = [t["id"] for t in parse_turn_lines(task_text(call))]
        assert shown == expected["S" + shown[0].split(":")[0][1:]][2]
    assert report.llm_usage["calls"] == len(model.calls) and report.llm_usage["retries"] == 0


async def test_llm_turn_ids_are_validated_and_segments_cover_every_turn():
    session = sample_session()  # D1:1 .. D1:7
    reply = {
        "segments": [
            {"turn_ids": ["d1:2", "D1:3", "D9:9"], "title": "chess club", "summary": "First."},
            {"turn_ids": "D1:3, [D1:5]", "summary": "Second."},
        ],
        "user_specific": ["[D1:2]", {"turn_id": "D7:7", "reason": "unknown"}, {"turn_id": "D1:5", "reason": "camping"}],
    }
    usage = LLMUsage()
    model = ScriptedChatModel(responder=lambda m: json.dumps(reply))
    segments, gate = await segment_and_gate(model, session, speakers=["Odalys", "Tamsin"], usage=usage)
    # D1:3 stays in the first segment; orphans join the nearest earlier turn's segment (D1:1 the next's).
    assert [s.turn_ids for s in segments] == [["D1:1", "D1:2", "D1:3", "D1:4"], ["D1:5", "D1:6", "D1:7"]]
    assert [s.summary for s in segments] == ["First.", "Second."] and segments[0].title == "chess club"
    assert {t for t, v in gate.items() if v.keep} == {"D1:2", "D1:5"} and gate["D1:5"].reason == "camping"
    assert len(gate) == 7 and usage.calls == 1

    gated = [
        TurnView(id=t.id, speaker=t.speaker, text=t.content, body=t.text, date="2028-05-08")
        for t in session.turns
        if t.id in ("D1:2", "D1:5")
    ]
    ent_reply = {
        "entities": [
            {"name": "Odalys", "description": "asked Tamsin", "turn_ids": ["D1:2", "D1:1"]},
            {"name": "odalys", "description": "again", "turn_ids": "D1:5"},
            {"name": "Ridgemont", "description": "not in these turns", "turn_ids": ["D1:7"]},
        ],
        "triples": [
            {"subject": "Tamsin", "predicate": "Is going camping in", "object": "Glenmoor", "turn_ids": ["D1:5"]},
            {"subject": "Odalys", "predicate": "is", "object": "odalys", "turn_ids": ["D1:2"]},
            {"subject": "Odalys", "predicate": "applies to", "object": "Ridgemont", "turn_ids": ["D1:7"]},
        ],
    }
    model = ScriptedChatModel(responder=lambda m: json.dumps(ent_reply))
    entities, triples = await entities_and_triples(model, session, gated, segments, speakers=["Odalys", "Tamsin"])
    assert [(e.name, e.description, e.turn_ids) for e in entities] == [("Odalys", "asked Tamsin", ["D1:2", "D1:5"])]
    assert [(t.subject, t.predicate, t.object, t.turn_ids) for t in triples] == [
        ("Tamsin", "Is going camping in", "Glenmoor", ["D1:5"])
    ]
    assert [t["id"] for t in parse_turn_lines(task_text(model.calls[0]))] == ["D1:2", "D1:5"]


@pytest.mark.parametrize("kind", ["truncated", "unknown_turn", "wrong_types"])
def test_malformed_replies_are_repaired(settings, kind):
    conv = make_conversation()
    broken = lambda r: malformed_then_valid(r, kind)  # noqa: E731
    model = use_model(memorai_ingest_responder(segments=broken, entities=broken))
    report = ingest_conversation(conv, memorai(settings, llm=True))
    store = get_store(settings)
    assert report.notes == []
    assert_segments_cover_every_turn(store, conv, "llm")
    expected = expected_replies(conv)
    segments = nodes(store, "segment")
    for s in conv.sessions:
        assert [segments[f"segment:{s.id}:{k}"].text for k in range(1, len(expected[s.id][0]["segments"]) + 1)] == [
            x["summary"] for x in expected[s.id][0]["segments"]
        ]
    assert len(edges(store, "triple")) == sum(len(e[1]["triples"]) for e in expected.values())
    repairs = [task_text(c) for c in model.calls if is_repair(c)]
    assert len(repairs) == 6 and report.llm_usage["retries"] == 6  # one repair per MemORAI call
    assert Counter(SEGMENTS_MARKER in t for t in repairs) == {True: 3, False: 3}


@pytest.mark.parametrize("failing", ["segments", "entities", "both"])
@pytest.mark.slow
def test_always_malformed_falls_back_offline_and_loses_nothing(settings, failing):
    conv = make_conversation()
    use_model(
        memorai_ingest_responder(
            segments=always_malformed if failing in ("segments", "both") else None,
            entities=always_malformed if failing in ("entities", "both") else None,
        )
    )
    report = ingest_conversation(conv, memorai(settings, llm=True))
    store = get_store(settings)
    steps = ["segments", "entities"] if failing == "both" else [failing]
    for step in steps:
        assert sum(f"memorai {step}: LLM failed" in n for n in report.notes) == 3, report.notes
    assert len(report.notes) == 3 * len(steps)
    assert {s["id"] for s in store.sessions()} == {"S1", "S2", "S3"}
    assert set(nodes(store, "turn")) == {f"turn:{t.id}" for s in conv.sessions for t in s.turns}
    assert_segments_cover_every_turn(store, conv, "offline" if failing != "entities" else "llm")
    assert all(isinstance(n.attrs["user_specific"], bool) for n in nodes(store, "turn").values())
    assert edges(store, "mentions") and all(
        nodes(store, "argument")[e.src].attrs.get("description") for e in edges(store, "mentions")
    )
    assert (edges(store, "triple") == []) == (failing != "segments")  # offline entities: no triples
    assert {n.attrs["builder"] for n in nodes(store, "event").values()} == {"llm"}  # other steps unaffected


# --------------------------------------------------------------------------- deletion


def test_deleting_a_session_removes_its_memorai_rows_and_keeps_shared_arguments(settings):
    conv = make_conversation()
    use_model(memorai_ingest_responder())
    ingest_conversation(conv, memorai(settings, llm=True))
    store = get_store(settings)
    before_args = nodes(store, "argument")
    assert "arg:puppy" in before_args and ("arg:ana", "arg:puppy", "adopted") in {
        (e.src, e.dst, e.label) for e in edges(store, "triple")
    }
    kept_rows = {k: [e for e in edges(store, k) if e.session_id != "S1"] for k in ("mentions", "triple")}

    store.delete_session("S1")
    s1_turns = {f"turn:{t.id}" for t in conv.sessions[0].turns}
    assert not [n for n in nodes(store, "segment").values() if n.session_id == "S1"]
    assert {n.session_id for n in nodes(store, "segment").values()} == {"S2", "S3"}
    for kind in ("mentions", "triple", SEGMENT_EDGE.value):
        assert not [e for e in edges(store, kind) if e.session_id == "S1" or e.dst in s1_turns or e.src in s1_turns]
    assert {k: edges(store, k) for k in kept_rows} == kept_rows  # the other sessions' rows are untouched
    args = nodes(store, "argument")
    assert "arg:puppy" not in args  # only S1 spoke of it
    assert args["arg:pixel"].session_id == "S2"  # shared: survives, re-owned by a session that still uses it
    assert ("arg:pixel", "turn:D2:4") in {(e.src, e.dst) for e in edges(store, "mentions")}
    assert dwpr("How is Pixel?", store, k=3)


# --------------------------------------------------------------------------- DW-PR


def _with_extra(entity: dict | None, triple: dict | None):
    """The entities responder, plus one scripted entity / triple for the prompt citing D2:4."""

    def respond(messages):
        prompt = task_text(messages)
        reply = entities_reply(prompt)
        if "D2:4" in [t["id"] for t in parse_turn_lines(prompt)]:
            reply["entities"] += [entity] if entity else []
            reply["triples"] += [triple] if triple else []
        return json.dumps(reply)

    return respond


@pytest.mark.parametrize("via", ["entity", "triple"])
@pytest.mark.slow
def test_dwpr_ranks_the_turn_a_matching_entity_or_triple_cites(settings, monkeypatch, via):
    # The query's words are in no turn: only the MemORAI structures can lead to D2:4.
    entity = (
        {"name": "Kennel Club", "description": "Kennel Club: gave Pixel an obedience certificate", "turn_ids": ["D2:4"]}
        if via == "entity"
        else None
    )
    triple = (
        {"subject": "Pixel", "predicate": "earned", "object": "obedience certificate", "turn_ids": ["D2:4"]}
        if via == "triple"
        else None
    )
    use_model(memorai_ingest_responder(entities_base=_with_extra(entity, triple)))
    ingest_conversation(make_conversation(), memorai(settings, llm=True))
    store = get_store(settings)
    query = "Who earned an obedience certificate?"
    assert not any("obedience" in n.text.lower() for n in nodes(store, "turn").values())

    got = dwpr(query, store, k=5)
    assert got[0].turn_ids == ["D2:4"] and got[0].kind == "turn"
    if via == "triple":  # the supporting triple travels with its turn
        assert got[0].text.endswith("[relations: Pixel earned obedience certificate]")

    monkeypatch.setattr(dwpr_mod, "memorai_graph", lambda snap, embedder: None)  # ignore the MemORAI rows
    assert dwpr(query, store, k=5)[0].turn_ids != ["D2:4"]


def test_dwpr_contract_on_an_offline_memorai_memory(settings):
    conv = make_conversation()
    ingest_conversation(conv, memorai(settings))
    store = get_store(settings)
    turns = {t.id for s in conv.sessions for t in s.turns}
    for query in ("When did Ana adopt Pixel?", "the and of is", "zyzzyva"):
        for k in (1, 5, 100):
            got = dwpr(query, store, k=k)
            assert 0 < len(got) <= min(k, len(turns)) and len({e.node_id for e in got}) == len(got)
            assert all(e.kind == "turn" and set(e.turn_ids) <= turns for e in got)
            assert [e.score for e in got] == sorted((e.score for e in got), reverse=True)
            assert [e.model_dump() for e in dwpr(query, store, k=k)] == [e.model_dump() for e in got]
    assert dwpr("When did Ana adopt Pixel?", store, k=3)[0].turn_ids == ["D1:1"]
