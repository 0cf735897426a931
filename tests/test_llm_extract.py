"""LLM construction calls (events, relations, fusion) against scripted fake chat models."""

from __future__ import annotations

import asyncio
import json

import pytest

from memgraph_agents.construct.llm.extract import (
    extract_events,
    extract_relations,
    format_events,
    format_turns,
    judge_fusion,
)
from memgraph_agents.construct.llm.schemas import (
    ExtractedEvent,
    ExtractedRelation,
    FusionVerdict,
    RoleArgument,
)
from memgraph_agents.llm.coerce import normalise_label, normalise_time
from memgraph_agents.llm.structured import LLMCallError, LLMOutputError, LLMTimeoutError
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.prompts import load_prompt
from tests.fakes import (
    EVENTS_MARKER,
    FUSION_MARKER,
    MALFORMED_KINDS,
    RECOVERABLE_KINDS,
    RELATIONS_MARKER,
    FakeRateLimitError,
    ScriptedChatModel,
    always_malformed,
    empty_reply,
    fusion_responder,
    ingest_responder,
    malformed_then_valid,
    parse_turn_lines,
    raises,
    realistic_event_responder,
    realistic_relation_responder,
    sample_session,
    slow,
)

FAST = {"backoff_base": 0.005}


@pytest.fixture
def session():
    return sample_session()


def reply(obj):
    return lambda messages: json.dumps(obj)


# --------------------------------------------------------------------------- prompts


def test_prompt_files_carry_route_markers():
    assert load_prompt("extract_events").startswith(EVENTS_MARKER)
    assert load_prompt("extract_relations").startswith(RELATIONS_MARKER)
    assert load_prompt("fusion_judge").startswith(FUSION_MARKER)


async def test_events_prompt_lists_every_turn(session):
    model = ScriptedChatModel(responder=realistic_event_responder())
    await extract_events(model, session, **FAST)
    prompt = model.prompts[0]
    assert "Session date: 2028-05-08 (Monday), 13:41" in prompt
    assert "Speakers: Odalys, Tamsin" in prompt
    assert format_turns(session) in prompt
    assert (
        "D1:4 | 2028-05-08 | Tamsin: I brought my nephews to the Glassblowing Studio last Friday. "
        "[image: a bowl painted with lemons]" in prompt
    )
    assert [t["id"] for t in parse_turn_lines(prompt)] == [t.id for t in session.turns]


# --------------------------------------------------------------------------- events


async def test_extract_events_realistic(session):
    model = ScriptedChatModel(responder=realistic_event_responder())
    usage = LLMUsage()
    events = await extract_events(model, session, usage=usage, **FAST)
    assert [e.turn_ids for e in events] == [["D1:1", "D1:2", "D1:3"], ["D1:4", "D1:5"], ["D1:6", "D1:7"]]
    first = events[0]
    assert first.text.startswith("On 8 May 2028, Odalys said that Odalys went to a STEM chess club")
    assert "It made Odalys want to study nursing" in first.text
    assert first.time == "2028-05-08" and first.participants == ["Odalys", "Tamsin"]
    assert RoleArgument(role="entity", value="STEM") in first.arguments
    assert RoleArgument(role="time", value="2028-05-08") in first.arguments
    assert "picture of a bowl painted with lemons" in events[1].text
    assert usage.calls == 1 and usage.input_tokens > 0 and usage.output_tokens > 0


async def test_extract_events_drops_unknown_turn_ids(session):
    model = ScriptedChatModel(
        responder=reply(
            {
                "events": [
                    {
                        "text": "Odalys went to a STEM chess club on 7 May 2028.",
                        "turn_ids": ["D1:3", "D9:1", " d1:1 "],
                        "time": "2028-05-07",
                        "participants": ["Odalys"],
                        "arguments": [],
                    },
                    {"text": "A hallucinated event.", "turn_ids": ["D7:7", "turn 3"], "time": None},
                    {
                        "text": "Tamsin brought her nephews to a glassblowing studio on 5 May 2028.",
                        "turn_ids": "[D1:4]",
                        "time": "5 May 2028",
                        "participants": ["Tamsin", "nephews", "Odalys", "Tam"],
                        "arguments": [
                            {"role": "Agent", "value": "Tamsin"},
                            {"role": "place", "value": "  "},
                            {"role": "object", "value": None},
                        ],
                    },
                ]
            }
        )
    )
    events = await extract_events(model, session, **FAST)
    assert len(model.calls) == 1
    assert [e.turn_ids for e in events] == [["D1:1", "D1:3"], ["D1:4"]]  # resolved, in turn order
    known = {t.id for t in session.turns}
    assert all(set(e.turn_ids) <= known for e in events)
    assert events[1].time == "2028-05-05"
    assert events[1].participants == ["Tamsin", "nephews", "Odalys"]  # capped at 3, not rejected
    assert events[1].arguments == [RoleArgument(role="agent", value="Tamsin")]


async def test_all_unknown_turn_ids_get_a_repair_turn(session):
    model = ScriptedChatModel(responder=malformed_then_valid(realistic_event_responder(), "unknown_turn"))
    events = await extract_events(model, session, **FAST)
    assert len(events) == 3 and len(model.calls) == 2
    assert "no event cites a turn id" in model.prompts[1] and "D1:1" in model.prompts[1]


async def test_all_unknown_turn_ids_twice_raises(session):
    model = ScriptedChatModel(responder=always_malformed(realistic_event_responder(), "unknown_turn"))
    with pytest.raises(LLMOutputError, match="no event cites a turn id"):
        await extract_events(model, session, **FAST)


async def test_zero_events_from_a_session_raises(session):
    model = ScriptedChatModel(responder=reply({"events": []}))
    with pytest.raises(LLMOutputError, match="events list is empty"):
        await extract_events(model, session, **FAST)
    assert len(model.calls) == 2


@pytest.mark.parametrize("kind", MALFORMED_KINDS)
async def test_each_malformation_is_recovered(session, kind):
    model = ScriptedChatModel(responder=malformed_then_valid(realistic_event_responder(), kind))
    events = await extract_events(model, session, **FAST)
    assert len(events) == 3
    assert len(model.calls) == (1 if kind in RECOVERABLE_KINDS else 2)


async def test_extract_events_failures_propagate(session):
    with pytest.raises(LLMOutputError):
        await extract_events(ScriptedChatModel(responder=empty_reply()), session, **FAST)
    with pytest.raises(LLMOutputError):
        await extract_events(ScriptedChatModel(responder=always_malformed()), session, **FAST)
    with pytest.raises(LLMTimeoutError):
        await extract_events(
            ScriptedChatModel(responder=slow(realistic_event_responder(), 1.0)), session, timeout=0.2, **FAST
        )
    with pytest.raises(LLMCallError):
        await extract_events(ScriptedChatModel(responder=raises(FakeRateLimitError())), session, **FAST)


async def test_rate_limited_extraction_recovers(session):
    model = ScriptedChatModel(responder=raises(FakeRateLimitError(), times=1, then=realistic_event_responder()))
    usage = LLMUsage()
    events = await extract_events(model, session, usage=usage, **FAST)
    assert len(events) == 3 and usage.calls == 2 and usage.retries == 1


# --------------------------------------------------------------------------- relations


def _events(session) -> list[ExtractedEvent]:
    return [
        ExtractedEvent(
            text="Odalys attended a STEM chess club on 7 May 2028.", turn_ids=["D1:1", "D1:2"], time="2028-05-07"
        ),
        ExtractedEvent(text="The chess club made Odalys want to study nursing.", turn_ids=["D1:3"]),
        ExtractedEvent(
            text="Odalys will apply to a nursing program at Ridgemont in May 2028.",
            turn_ids=["D1:7"],
            time="2028-05",
        ),
    ]


async def test_extract_relations_realistic(session):
    events = _events(session)
    model = ScriptedChatModel(responder=realistic_relation_responder())
    rels = await extract_relations(model, session, events, **FAST)
    assert [(r.source, r.target, r.type) for r in rels] == [(0, 1, "follow_up"), (1, 2, "follow_up")]
    assert rels[0].turn_ids == ["D1:1", "D1:2", "D1:3"]
    assert format_events(events) in model.prompts[0]
    assert "[2] (2028-05; D1:7) Odalys will apply" in model.prompts[0]
    assert "[1] (time unknown; D1:3)" in model.prompts[0]


async def test_extract_relations_drops_bad_indices(session):
    model = ScriptedChatModel(
        responder=reply(
            {
                "relations": [
                    {
                        "source": 0,
                        "target": 1,
                        "type": "Causal",
                        "turn_ids": ["D1:3"],
                        "description": "the group inspired her",
                    },
                    {
                        "source": 1,
                        "target": 2,
                        "type": "motivation",
                        "turn_ids": ["D42:1"],
                        "description": "why she applies",
                    },
                    {"source": 0, "target": 3, "type": "causal", "turn_ids": [], "description": "out of range"},
                    {"source": -1, "target": 0, "type": "causal", "turn_ids": [], "description": "negative"},
                    {"source": 2, "target": 2, "type": "elaboration", "turn_ids": [], "description": "self loop"},
                    {
                        "source": "E0",
                        "target": "[2]",
                        "type": "Temporal Before",
                        "turn_ids": "D1:1, D1:7",
                        "description": None,
                    },
                    {"source": 0, "target": 1, "type": "causal", "turn_ids": [], "description": "duplicate"},
                ]
            }
        )
    )
    rels = await extract_relations(model, session, _events(session), **FAST)
    assert [(r.source, r.target, r.type) for r in rels] == [
        (0, 1, "causal"),
        (1, 2, "motivation"),
        (0, 2, "temporal_before"),
    ]
    assert rels[0].turn_ids == ["D1:3"]
    assert rels[1].turn_ids == ["D1:3", "D1:7"]  # unknown id: falls back to both events' turns
    assert rels[2].turn_ids == ["D1:1", "D1:7"] and rels[2].description == ""


async def test_extract_relations_needs_two_events(session):
    model = ScriptedChatModel(responder=realistic_relation_responder())
    assert await extract_relations(model, session, _events(session)[:1], **FAST) == []
    assert model.calls == []


async def test_extract_relations_empty_is_fine(session):
    model = ScriptedChatModel(responder=reply({"relations": []}))
    assert await extract_relations(model, session, _events(session), **FAST) == []
    assert len(model.calls) == 1


# --------------------------------------------------------------------------- fusion


async def test_judge_fusion():
    model = ScriptedChatModel(responder=fusion_responder(same=True))
    verdict = await judge_fusion(
        model,
        "2028-06-01: Odalys went to the chess club again.",
        "2028-05-07: Odalys went to a STEM chess club.",
        **FAST,
    )
    assert verdict == FusionVerdict(same_event=True, has_overlap=True, relation_type="elaboration")
    prompt = model.prompts[0]
    assert "NEW event: 2028-06-01: Odalys went to the chess club again." in prompt
    assert "OLD event: 2028-05-07: Odalys went to a STEM chess club." in prompt


async def test_judge_fusion_normalises_and_repairs():
    model = ScriptedChatModel(
        responder=malformed_then_valid(
            reply({"same_event": False, "has_overlap": "yes", "relation_type": "Follow-Up"}), "wrong_types"
        )
    )
    verdict = await judge_fusion(model, "a", "b", **FAST)
    assert verdict == FusionVerdict(same_event=False, has_overlap=True, relation_type="follow_up")
    assert len(model.calls) == 2
    none = ScriptedChatModel(responder=reply({"same_event": False, "has_overlap": False, "relation_type": "none"}))
    assert (await judge_fusion(none, "a", "b", **FAST)).relation_type is None


# --------------------------------------------------------------------------- one model, whole ingest


async def test_route_responder_serves_a_concurrent_ingest():
    sessions = [sample_session(f"S{i}", f"D{i}") for i in range(1, 5)]
    model = ScriptedChatModel(responder=malformed_then_valid(ingest_responder(), "truncated"))
    usage = LLMUsage()
    sem = asyncio.Semaphore(2)

    async def one(s):
        events = await extract_events(model, s, usage=usage, semaphore=sem, **FAST)
        rels = await extract_relations(model, s, events, usage=usage, semaphore=sem, **FAST)
        verdict = await judge_fusion(model, events[0].text, "old", usage=usage, semaphore=sem, **FAST)
        return events, rels, verdict

    results = await asyncio.gather(*(one(s) for s in sessions))
    for s, (events, rels, verdict) in zip(sessions, results):
        assert all(t.startswith(s.id.replace("S", "D") + ":") for e in events for t in e.turn_ids)
        assert len(rels) == len(events) - 1 and not verdict.same_event
    assert usage.calls == 4 * 3 * 2 and usage.retries == 12  # every call repaired once


async def test_route_responder_unknown_prompt_fails_loudly():
    from memgraph_agents.llm.structured import ainvoke_json

    model = ScriptedChatModel(responder=ingest_responder())
    with pytest.raises(LLMCallError, match="no marker"):
        await ainvoke_json(model, "Plan subgoals for this question.", FusionVerdict, **FAST)


# --------------------------------------------------------------------------- schema validators


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("2028-05-07", "2028-05-07"),
        ("2028-05-07T10:00:00", "2028-05-07"),
        ("2028-05", "2028-05"),
        ("2028", "2028"),
        ("7 May 2028", "2028-05-07"),
        ("May 7, 2028", "2028-05-07"),
        ("May 2028", "2028-05"),
        ("unknown", None),
        ("", None),
        ("last week", None),
        ("2028-13", None),
        (None, None),
    ],
)
def test_normalise_time(raw, expected):
    assert normalise_time(raw) == expected


def test_schema_validators():
    assert normalise_label(" Temporal-Before ") == "temporal_before"
    ev = ExtractedEvent.model_validate(
        {
            "text": "  Odalys met Tamsin.  ",
            "turn_ids": ["D1:1", "D1:1", ""],
            "time": 2028,
            "participants": "Odalys",
            "arguments": {"agent": "Odalys", "patient": "Tamsin", "place": ""},
        }
    )
    assert ev.text == "Odalys met Tamsin." and ev.turn_ids == ["D1:1"] and ev.time == "2028"
    assert ev.participants == ["Odalys"]
    assert [(a.role, a.value) for a in ev.arguments] == [("agent", "Odalys"), ("patient", "Tamsin")]
    ev = ExtractedEvent.model_validate({"text": "x", "turn_ids": ["D1:1"], "arguments": ["Ridgemont", "Ridgemont"]})
    assert ev.arguments == [RoleArgument(role="entity", value="Ridgemont")]
    for bad in ({"text": "  ", "turn_ids": ["D1:1"]}, {"text": "x", "turn_ids": []}, {"text": "x"}):
        with pytest.raises(ValueError):
            ExtractedEvent.model_validate(bad)
    with pytest.raises(ValueError):
        ExtractedRelation.model_validate({"source": 0, "target": 1, "type": "  "})
    assert FusionVerdict(same_event=True, has_overlap=False).has_overlap is True
