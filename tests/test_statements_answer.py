"""Memory in the loop: a turn that asks is not evidence that answers, and "nothing relevant"
is decided once per question.

An agent writes each exchange (the user's message, its own reply) before it recalls. The
user's questions to the agent, the agent's own words and the question itself stay stored,
listed and forgettable, but rank after the statements (``retrieval.asking``); the relevance
gate judges the namespace's best statement, whatever k (``retrieval.gate``), with the
question's one model call. Hash embeddings: the question stored as a turn matches itself
exactly, the worst case.
"""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import datetime

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from memgraph_agents.api import Memory
from memgraph_agents.construct.build import turn_digest, turn_record
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.integrations import AgentMemory
from memgraph_agents.loaders.messages import conversation_from_messages
from memgraph_agents.model import Turn
from memgraph_agents.model.outcome import EmptyReason
from memgraph_agents.retrieval.asking import not_evidence, text_key
from tests.conftest import make_conversation

QUESTION = "When did Ben finish the Lisbon half marathon?"
STAMP = {"timestamp": "2024-12-01T10:00:00"}


def _chat(question: str = QUESTION) -> list:
    return [
        HumanMessage(question, additional_kwargs=STAMP),
        AIMessage(f"You asked: {question} Let me check what you told me.", additional_kwargs=STAMP),
    ]


@pytest.fixture
def looped(settings):
    """A transcript, then one exchange with the agent written as the middleware writes it."""
    ingest_conversation(make_conversation(), settings, namespace="test")
    memory = AgentMemory(settings, default_namespace="test")
    memory.write_messages(_chat(), config={"configurable": {"thread_id": "t"}})
    memory.flush()
    return settings


def test_chat_turns_record_who_spoke_and_transcripts_stay_as_they_were():
    conv = conversation_from_messages(_chat(), conversation_id="c")
    assert [t.role for t in conv.sessions[0].turns] == ["user", "assistant"]
    assert turn_record(conv.sessions[0].turns[1])[2]["role"] == "assistant"
    plain = Turn(id="D1:1", speaker="Ana", text="Hi", timestamp=datetime(2024, 1, 1))
    assert plain.role is None and "role" not in turn_record(plain)[2]
    # a transcript turn's digest is what it was before turns had a role (stored memory stays unchanged)
    old = hashlib.sha256(json.dumps(["D1:1", "Ana", "Hi", None, "2024-01-01T00:00:00"]).encode()).hexdigest()[:32]
    assert turn_digest(plain) == old


def test_what_is_not_evidence():
    key = text_key(QUESTION)
    assert not_evidence("assistant: The race went well.", {"role": "assistant", "speaker": "assistant"}, key)
    assert not_evidence("user: And where was it?", {"role": "user", "speaker": "user"}, key)
    # a user's chat message that states a fact before it asks is a statement
    said = "user: I moved to Porto last week with my two cats. Any gym tips?"
    assert not not_evidence(said, {"role": "user", "speaker": "user"}, key)
    # the question itself, stored before the recall, whoever said it (resolved dates left out)
    echo = "Ana: When did Ben finish the Lisbon half marathon (the week of 3 June 2024)?"
    assert not_evidence(echo, {"speaker": "Ana"}, key)
    # a transcript's question between people stays a turn like any other
    assert not not_evidence("Ana: Was the course hilly?", {"speaker": "Ana"}, key)


@pytest.mark.slow
@pytest.mark.parametrize("retriever", ["navigator", "oneshot", "dense", "ppr"])
def test_the_agents_own_turns_rank_after_the_statements(looped, retriever):
    mem = Memory(settings=looped)
    for k in (3, 10):
        found = mem.search(QUESTION, namespace="test", k=k, retriever=retriever)
        turns = [t for ev in found for t in ev.turn_ids]
        assert turns, retriever
        assert not any(t.startswith("t-s") for t in turns[:3]), (retriever, k, turns)
        if retriever != "dense":  # dense ranks only by cosine: the gold turn must be its own best match
            assert "D2:1" in turns[:3], (retriever, k, turns)
    # still stored, listed and forgettable
    assert "t-s1" in [s.id for s in mem.list(namespace="test").items]
    listed = mem.get("t-s1", namespace="test")
    assert [t.text for t in listed.turns][0] == QUESTION
    mem.forget(namespace="test", session="t-s1")
    assert "t-s1" not in [s.id for s in mem.list(namespace="test").items]


@pytest.mark.slow
def test_the_gate_decides_once_per_question_whatever_k(looped):
    gated = looped.override(relevance_gate=0.35)  # hash embeddings: the answerable question's best match is 0.48
    mem = Memory(settings=gated)
    off = "What is the boiling point of mercury in kelvin?"
    agent = AgentMemory(gated, default_namespace="test")
    agent.write_messages(_chat(off), config={"configurable": {"thread_id": "u"}})
    agent.flush()
    outcomes = set()
    for k in (3, 10, 50):
        asked = mem.ask(off, namespace="test", k=k)
        outcomes.add((asked.outcome, asked.reason, asked.question_relevance))
        # the stored question and the agent's echo of it do not count as a match
        assert asked.question_relevance is not None and asked.question_relevance < 0.35
    assert len(outcomes) == 1 and next(iter(outcomes))[1] is EmptyReason.BELOW_GATE
    sizes = [len(mem.search(QUESTION, namespace="test", k=k)) for k in (3, 10, 50)]
    assert sizes[:2] == [3, 10] and sizes[2] > 10  # answered at every k (the namespace holds 20 turns)
    why = mem.search(off, namespace="test", k=3).why
    assert "below the relevance gate 0.35" in why and "min_score=0" in why
    # a filter narrows the search, not the gate's decision: refused with the reason, never silently
    filtered = mem.search(off, namespace="test", k=3, speaker="Ben")
    assert filtered == [] and filtered.reason is EmptyReason.BELOW_GATE
    # and an answerable question filtered to turns that each match it weakly still gets them
    weak = mem.search(QUESTION, namespace="test", k=3, speaker="Ana")
    assert len(weak) == 3 and max(ev.relevance for ev in weak) < 0.35 and weak.reason is None


@pytest.mark.slow
def test_one_model_call_per_question(looped):
    from memgraph_agents.api import ops

    mem = Memory(settings=looped)
    store = ops.open_store(looped, "test")
    for retriever in ("navigator", "oneshot", "dense", "dwpr", "sentence_hop"):
        question = f"Where did Ana's puppy {retriever} chew the shoes?"  # names a speaker: a neutral form too
        before = store.embedder.query_calls
        mem.search(question, namespace="test", retriever=retriever)
        assert store.embedder.query_calls - before == 1, retriever


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_mcp_recall_refuses_an_off_topic_question_at_every_k(tmp_path):
    """The official MCP client: the same "nothing relevant" at k = 3, 10 and 50, and the
    answerable question answered at each."""
    import asyncio
    import os
    from pathlib import Path

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_DATA_DIR": str(tmp_path / "mem"),
        "MEMGRAPH_EMBEDDINGS": "hash",
        "MEMGRAPH_RELEVANCE_GATE": "0.35",
    }
    root = Path(__file__).resolve().parents[1]
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memgraph_agents.cli.main", "mcp", "--namespace", "ana"], env=env, cwd=root
    )
    notes = [
        "Ben finished the Lisbon half marathon in 1 hour 52 minutes.",
        "Ana adopted a beagle puppy called Pixel in March.",
        "Ana started a new job at the Riverside Library.",
    ] + [f"Ana walked Pixel along the river on day {i} of the month." for i in range(1, 60)]

    async def go():
        async with stdio_client(params, errlog=sys.stderr) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            for text in notes:
                assert not (await s.call_tool("remember", {"text": text})).isError
            for k in (3, 10, 50):
                r = await s.call_tool("recall", {"query": "Which enzyme breaks down starch?", "k": k})
                assert not r.isError and r.content[0].text.startswith("Nothing relevant in memory"), (k, r.content)
                r = await s.call_tool("recall", {"query": QUESTION, "k": k})
                lines = r.content[0].text.splitlines()
                assert not r.isError and len(lines) == k and "Lisbon" in lines[0], (k, lines[:3])

    asyncio.run(go())


def test_the_browser_header_says_which_relevance_rule_is_in_force():
    from memgraph_agents.api.results import AskResult
    from memgraph_agents.ui.views import relevance_rule

    gated = AskResult(
        question="q", namespace="n", retriever="navigator", gate=0.31, min_score=0.0, question_relevance=0.22
    )
    assert relevance_rule(gated) == " · relevance gate 0.31 (this question's best match 0.22)"
    floored = AskResult(
        question="q", namespace="n", retriever="navigator", gate=0.0, min_score=0.4, question_relevance=0.5
    )
    assert relevance_rule(floored) == " · relevance floor 0.40 (this question's best match 0.50)"
    assert "floor 0.00" not in relevance_rule(gated)


@pytest.mark.slow
def test_bench_loop_runs_the_middleware_and_keeps_the_agents_turns_out_of_the_top_3(settings, tmp_path):
    """``memgraph bench loop``'s engine on an invented chat: every question and its echoing reply
    are written through ``MemoryMiddleware`` before the recall, and neither reaches the top 3."""
    from memgraph_agents.bench.loop import THREAD, run_loop
    from memgraph_agents.loaders.locomo import LocomoQuestion, LocomoSample

    conv = make_conversation("chat")
    ingest_conversation(conv, settings, namespace="chat")
    asked = [
        ("When did Ben finish the Lisbon half marathon?", ["D2:1"]),
        ("What is the name of Ana's puppy?", ["D1:1"]),
        ("Where did Ana start a new job?", ["D3:1"]),
        ("How often does Ben train for the half marathon?", ["D1:6"]),
    ]
    questions = [
        LocomoQuestion(sample_id="chat", index=i, question=q, answer="", category=4, evidence=ev, raw_evidence=ev)
        for i, (q, ev) in enumerate(asked)
    ]
    doc = run_loop(
        settings, tmp_path / "loop-mem", [LocomoSample(conversation=conv, questions=questions)], offtopic_every=2
    )
    o = doc["overall"]
    assert o["questions"] == 4 and o["offtopic"] == 2 and o["own_in_top3"] == 0.0
    assert o["recall_loop"] >= o["recall_alone"] - 0.25  # one of four questions may lose its one gold turn
    rows = doc["rows"]
    assert all(not any(t.startswith(f"{THREAD}-s") for t in r["loop"][:3]) for r in rows if not r["offtopic"])
    # the loop really wrote every exchange: its thread holds each question and the fake's reply
    mem = Memory(settings=settings.override(data_dir=tmp_path / "loop-mem"))
    said = [
        t.text
        for s in mem.list(namespace="chat").items
        if s.id.startswith(THREAD)
        for t in mem.get(s.id, namespace="chat").turns
    ]
    assert [r["question"] for r in rows] == said[0::2] and all(t.startswith("You asked: ") for t in said[1::2])
