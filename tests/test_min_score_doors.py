"""The relevance floor per call at every door besides ``Memory``: the agent tools' ``recall``
(a real ``create_agent`` run and a direct tool call), ``AgentMemory.recall``, the MCP server's
``recall`` (the official client over stdio) and ``MemgraphStore.search``. Each takes a
``min_score`` in [0, 1], refuses anything else with one line naming it, and says "nothing
relevant" when the floor is above every item (the LLM is the only fake)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from memgraph_agents.config import Settings
from memgraph_agents.errors import ConfigError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.integrations import AgentMemory, MemgraphStore, create_memory_tools, user_namespace
from tests.conftest import make_conversation
from tests.fakes import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[1]
ALICE = user_namespace("alice")
QUESTION = "When did Ana adopt the beagle puppy?"
ABOVE_EVERY_ITEM = 0.999  # no stored sentence is the question itself: every relevance is below
BAD = (1.5, -0.1, "high", True)


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> Settings:
    s = Settings(data_dir=tmp_path_factory.mktemp("floor") / "mem", embeddings="hash", namespace="default")
    ingest_conversation(make_conversation(), s, namespace=ALICE)
    return s


def _recall_with(**args):
    """A model that calls ``recall(QUESTION, **args)`` for a user message, then stops."""

    def respond(messages):
        last = messages[-1]
        if isinstance(last, HumanMessage):
            call = {"name": "recall", "args": {"query": QUESTION, **args}, "id": "r1", "type": "tool_call"}
            return AIMessage(content="", tool_calls=[call])
        return "done"

    return respond


def _agent_recall(settings: Settings, **args) -> ToolMessage:
    agent = create_agent(ScriptedChatModel(responder=_recall_with(**args)), tools=create_memory_tools(settings))
    out = agent.invoke({"messages": [HumanMessage("a question")]}, {"configurable": {"user_id": "alice"}})
    [tm] = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    return tm


def test_the_recall_tool_offers_min_score_to_the_model(settings):
    tools = create_memory_tools(settings)
    props = tools.recall.tool_call_schema.model_json_schema()["properties"]
    assert set(props) == {"query", "min_score"}
    assert "[0, 1]" in props["min_score"]["description"]


def test_an_agent_run_gets_nothing_relevant_above_every_item_and_evidence_below(settings):
    found = _agent_recall(settings, min_score=0.0)
    assert found.status != "error" and "D1:1" in found.content
    assert all(ev["relevance"] >= 0.0 for ev in found.artifact["evidence"])
    none = _agent_recall(settings, min_score=ABOVE_EVERY_ITEM)
    assert none.status != "error"
    assert none.content.startswith(f"Nothing relevant in memory for {QUESTION!r}"), none.content
    assert f"is below min_score {ABOVE_EVERY_ITEM:g}" in none.content and none.artifact["evidence"] == []
    # the floor the model names is the floor applied: between the two, only items at or above it
    best = max(ev["relevance"] for ev in found.artifact["evidence"])
    mid = _agent_recall(settings, min_score=round(best / 2, 3))
    kept = mid.artifact["evidence"]
    assert kept and all(ev["relevance"] >= round(best / 2, 3) for ev in kept)
    assert len(kept) < len(found.artifact["evidence"])


@pytest.mark.parametrize("bad", [1.5, -0.1])
def test_an_agent_run_is_told_a_bad_floor_in_one_line(settings, bad):
    tm = _agent_recall(settings, min_score=bad)
    assert tm.status == "error"
    assert f"min_score must be a number in [0, 1], got {bad!r}" in tm.content and "\n" not in tm.content.strip()


def test_the_tool_called_directly_and_agent_memory_take_the_floor(settings):
    tools = create_memory_tools(settings)
    config = {"configurable": {"user_id": "alice"}}
    msg = tools.recall.invoke(
        {"name": "recall", "args": {"query": QUESTION, "min_score": ABOVE_EVERY_ITEM}, "id": "c1", "type": "tool_call"},
        config,
    )
    assert msg.content.startswith("Nothing relevant in memory")
    msg = asyncio.run(
        tools.recall.ainvoke(
            {"name": "recall", "args": {"query": QUESTION, "min_score": 0}, "id": "c2", "type": "tool_call"}, config
        )
    )
    assert "D1:1" in msg.content
    mem = AgentMemory(settings)
    result = mem.recall(QUESTION, config=config, min_score=ABOVE_EVERY_ITEM)
    assert result.evidence == [] and result.min_score == ABOVE_EVERY_ITEM and result.best_relevance is not None
    assert result.best_relevance < ABOVE_EVERY_ITEM
    assert asyncio.run(mem.arecall(QUESTION, config=config, min_score=0)).evidence
    for bad in BAD:
        with pytest.raises(ConfigError, match="min_score must be a number in \\[0, 1\\]"):
            mem.recall(QUESTION, config=config, min_score=bad)


# --------------------------------------------------------------------------- the store


def test_the_store_floor_per_call_over_the_store_default(tmp_path):
    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash")
    with pytest.raises(ConfigError, match="min_score must be a number in \\[0, 1\\], got 2"):
        MemgraphStore(settings=settings, min_score=2)
    assert not (tmp_path / "mem").exists()  # refused before anything is opened
    store = MemgraphStore(settings=settings, min_score=ABOVE_EVERY_ITEM)
    notes = {
        "pup": "Ana adopted a beagle puppy called Pixel in March.",
        "run": "Ben finished the Lisbon half marathon in 1 hour 52 minutes.",
    }
    for key, text in notes.items():
        store.put(("u",), key, {"content": text})
    # the store's floor is above every note: nothing relevant is left
    assert store.search(("u",), query=QUESTION) == []
    assert {i.key for i in store.search(("u",))} == set(notes)  # a listing has no floor
    # the call's floor wins over the store's, in both forms
    items = store.search(("u",), query=QUESTION, min_score=0)
    assert items[0].key == "pup" and items[0].score is not None
    items = asyncio.run(store.asearch(("u",), query=QUESTION, min_score=0.0))
    assert items[0].key == "pup" and items[0].score is not None
    assert store.search(("u",), query=QUESTION, min_score=ABOVE_EVERY_ITEM) == []
    for bad in BAD:
        with pytest.raises(ConfigError, match="min_score must be a number in \\[0, 1\\]"):
            store.search(("u",), query=QUESTION, min_score=bad)
    # BaseStore's own form (no min_score) keeps the store's floor
    assert all(i.score is None for i in store.search(("u",), query=QUESTION))


# --------------------------------------------------------------------------- MCP


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_mcp_recall_takes_min_score_from_the_official_client(tmp_path):
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_DATA_DIR": str(tmp_path / "mem"),
        "MEMGRAPH_EMBEDDINGS": "hash",
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memgraph_agents.cli.main", "mcp", "--namespace", "ana"], env=env, cwd=ROOT
    )

    async def go():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            prop = tools["recall"].inputSchema["properties"]["min_score"]
            assert "relevance floor" in prop["description"]
            r = await s.call_tool("remember", {"text": "Ana adopted a beagle puppy called Pixel in March 2024."})
            assert not r.isError
            note = r.content[0].text.strip()
            r = await s.call_tool("recall", {"query": QUESTION, "min_score": 0})
            assert not r.isError and note in r.content[0].text
            r = await s.call_tool("recall", {"query": QUESTION, "min_score": ABOVE_EVERY_ITEM})
            text = r.content[0].text
            assert not r.isError and text.startswith(f"Nothing relevant in memory for {QUESTION!r}: every item")
            assert f"below min_score {ABOVE_EVERY_ITEM:g}" in text
            for bad in (1.5, -0.1, "high"):
                r = await s.call_tool("recall", {"query": QUESTION, "min_score": bad})
                assert r.isError and "min_score" in r.content[0].text, (bad, r.content)
            r = await s.call_tool("recall", {"query": QUESTION})  # the server's floor: the note is found
            assert not r.isError and note in r.content[0].text

    asyncio.run(go())


def test_every_empty_result_says_why(settings):
    """Nothing stored, filtered out, below the gate, below the floor: each door says which."""
    from memgraph_agents import Memory
    from memgraph_agents.model.outcome import EmptyReason

    gated = settings.override(relevance_gate=ABOVE_EVERY_ITEM)  # hash embeddings have no gate of their own
    mem = Memory(settings=gated)
    none = mem.search(QUESTION, namespace="nobody-here")
    assert none == [] and none.reason is EmptyReason.NOTHING_STORED and "holds no memory" in none.why
    out = mem.search(QUESTION, namespace=ALICE, speaker="Zebulon")
    assert out == [] and out.reason is EmptyReason.FILTERED_OUT and "matches the filter" in out.why
    out = mem.search(QUESTION, namespace=ALICE)
    assert out == [] and out.reason is EmptyReason.BELOW_GATE and f"relevance gate {ABOVE_EVERY_ITEM:g}" in out.why
    asked = mem.ask(QUESTION, namespace=ALICE)
    assert asked.outcome == "nothing_relevant" and asked.reason is EmptyReason.BELOW_GATE and asked.gate == 0.999
    out = mem.search(QUESTION, namespace=ALICE, min_score=ABOVE_EVERY_ITEM)
    assert out == [] and out.reason is EmptyReason.BELOW_FLOOR and "min_score" in out.why
    found = mem.search(QUESTION, namespace=ALICE, min_score=0)  # an explicit floor turns the gate off
    assert found and found.reason is None and found.why == ""
    tool = _agent_recall(gated)
    assert tool.content.startswith(f"Nothing relevant in memory for {QUESTION!r}: the best match's relevance")
    assert "is below the relevance gate 0.999" in tool.content
    assert "holds no memory" in AgentMemory(settings=gated).recall(QUESTION, k=3).content()
