"""One engine under every door: ``Memory`` (over ``api.ops``) answers for the agent tools,
``MemoryRetriever``, ``MemgraphStore``, the MCP server, the CLI and the exported graphs, with
one settings resolver, one retriever rule and one default k.

The walk through every door uses the real embedding model and real processes where a door is
one (the CLI's ingest, the MCP server over stdio with the official client); only the chat
model of the agent is scripted.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from memgraph_agents import Memory, MemoryContext, NavigatorContext
from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.integrations import AgentMemory, MemgraphStore, MemoryRetriever, create_memory_tools
from memgraph_agents.integrations.store_items import graph_namespace, session_id
from memgraph_agents.storage.namespaces import user_namespace
from tests.conftest import make_conversation
from tests.fakes import ScriptedChatModel

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "conversation.json"
NS = "doors"
QUESTION = "When did Jonas start his new job, and what is his role there?"


def _recall(query: str):
    """A chat model that calls ``recall(query)`` for a user message, then answers."""

    def respond(messages):
        last = messages[-1]
        if isinstance(last, HumanMessage):
            call = {"name": "recall", "args": {"query": query}, "id": "r1", "type": "tool_call"}
            return AIMessage(content="", tool_calls=[call])
        return "done" if isinstance(last, ToolMessage) else "ok"

    return respond


async def _mcp_recall(env: dict[str, str], query: str) -> str:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgraph_agents.cli.main", "mcp", "--namespace", NS],
        env=env,
        cwd=str(ROOT),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("recall", {"query": query})  # no k: the server's default
        assert not result.isError
        return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.fixture(scope="module")
def doors(tmp_path_factory):
    """The example conversation ingested by the CLI in its own process, then recalled through
    the MCP server in another (embedded Chroma is one process per data dir, so both run before
    this process opens it). Same settings everywhere: MiniLM, offline, the default retriever and k."""
    data_dir = tmp_path_factory.mktemp("doors") / "mem"
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_DATA_DIR": str(data_dir),
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_EMBEDDINGS": "minilm",
    }
    for name in ("MEMGRAPH_RETRIEVER", "MEMGRAPH_TOP_K", "MEMGRAPH_PRESET", "MEMGRAPH_NAMESPACE"):
        env.pop(name, None)
    cli = [sys.executable, "-m", "memgraph_agents.cli.main", "ingest", str(EXAMPLE), "--namespace", NS]
    subprocess.run(cli, env=env, check=True, capture_output=True, timeout=600)
    mcp_text = asyncio.run(_mcp_recall(env, QUESTION))
    settings = Settings(data_dir=data_dir, namespace=NS, embeddings="minilm", llm="none")
    return settings, mcp_text


@pytest.mark.integration
@pytest.mark.timeout(900)
def test_every_door_gives_the_same_evidence(doors, capsys, monkeypatch):
    settings, mcp_text = doors
    for name in ("MEMGRAPH_RETRIEVER", "MEMGRAPH_TOP_K", "MEMGRAPH_PRESET", "MEMGRAPH_LLM"):
        monkeypatch.delenv(name, raising=False)
    want = Memory(settings=settings).search(QUESTION)
    ids = [ev.node_id for ev in want]
    gate = settings.gate  # every door judges the ranking there: all of it, or nothing
    assert 0 < len(ids) <= settings.top_k == 10 and {ev.retriever for ev in want} == {settings.default_retriever}
    assert gate > 0 and max(ev.relevance for ev in want) >= gate

    # MCP (official client, stdio server process)
    assert mcp_text == "\n".join(ev.cite() for ev in want)

    # agent tools, through a real create_agent run (no user: the tools' default namespace)
    tools = create_memory_tools(settings)
    agent = create_agent(ScriptedChatModel(responder=_recall(QUESTION)), tools=tools)
    out = agent.invoke({"messages": [{"role": "user", "content": QUESTION}]})
    artifact = next(m for m in out["messages"] if isinstance(m, ToolMessage)).artifact
    assert artifact["namespace"] == NS and [ev["node_id"] for ev in artifact["evidence"]] == ids

    # a LangChain retriever
    docs = MemoryRetriever(settings=settings, namespace=NS).invoke(QUESTION)
    assert [d.metadata["node_id"] for d in docs] == ids

    # the exported graphs
    from memgraph_agents.graphs.navigator import graph as navigator_graph
    from memgraph_agents.graphs.retrieval import graph as retrieval_graph

    ctx = MemoryContext(data_dir=str(settings.data_dir), namespace=NS, embeddings="minilm", llm="none")
    found = retrieval_graph.invoke({"query": QUESTION}, context=ctx)
    assert [ev["node_id"] for ev in found["evidence"]] == ids
    nav = asyncio.run(
        navigator_graph.ainvoke(
            {"question": QUESTION, "k": 10},
            context=NavigatorContext.from_settings(settings),
            config={"recursion_limit": 200},
        )
    )
    by_navigator = Memory(settings=settings).search(QUESTION, retriever="navigator", min_score=0)
    assert [ev["node_id"] for ev in nav["ranking"][:10]] == [ev.node_id for ev in by_navigator]

    # the CLI, in this process
    capsys.readouterr()
    args = ["--data-dir", str(settings.data_dir), "--embeddings", "minilm", "ask", QUESTION, "--namespace", NS]
    assert main(args) == 0
    printed = re.findall(r"^\s+\d+\. \[[^|]*\| ([^\]]*)\]", capsys.readouterr().out, flags=re.MULTILINE)
    assert printed == [",".join(ev.turn_ids) for ev in want]


@pytest.mark.integration
@pytest.mark.timeout(900)
def test_the_store_ranks_with_the_engine_and_its_defaults(doors, monkeypatch):
    settings, _ = doors
    for name in ("MEMGRAPH_RETRIEVER", "MEMGRAPH_TOP_K", "MEMGRAPH_PRESET", "MEMGRAPH_LLM"):
        monkeypatch.delenv(name, raising=False)
    store = MemgraphStore(settings=settings)
    ns = ("door", "notes")
    notes = {
        "job": "Jonas started as a data engineer at a logistics firm in March.",
        "dog": "Pixel the beagle chewed a running shoe.",
        "trip": "Maya booked a train to Lisbon for the spring.",
    }
    for key, text in notes.items():
        store.put(ns, key, {"content": text})
    items = store.search(ns, query=QUESTION)
    evidence = Memory(settings=settings).search(QUESTION, namespace=graph_namespace(ns))
    ranked = list(dict.fromkeys(s for ev in evidence for s in ev.session_ids))
    key_of = {session_id(k): k for k in notes}
    assert [i.key for i in items if i.score is not None] == [key_of[s] for s in ranked if s in key_of]
    assert items[0].key == "job" and len(items) == len(notes)


async def test_a_chatbot_context_reaches_ingest_and_recall(tmp_path):
    """``ChatbotContext(preset=..., top_k=...)`` is the run's settings for the turn writer (the
    preset's layers are built) and for recall (the preset's retriever, the context's k)."""
    from memgraph_agents.graphs.chatbot import ChatbotContext, build_chatbot_graph

    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash", llm="none")
    memory = AgentMemory(settings)  # built without a preset: only the run says sgmem
    graph = build_chatbot_graph(memory, model=ScriptedChatModel(responder=_recall("Where does Ana work?")))
    ctx = ChatbotContext(data_dir=str(settings.data_dir), embeddings="hash", user_id="pia", preset="sgmem", top_k=2)
    conv = make_conversation()
    for session in conv.sessions:
        text = " ".join(t.text for t in session.turns)
        await graph.ainvoke({"messages": [{"role": "user", "content": text}]}, context=ctx)
        await memory.aflush(120)
    out = await graph.ainvoke({"messages": [{"role": "user", "content": "Where does Ana work?"}]}, context=ctx)
    artifact = next(m for m in out["messages"] if isinstance(m, ToolMessage)).artifact
    assert artifact["retriever"] == "sgmem" and artifact["namespace"] == user_namespace("pia")
    turns = [ev for ev in artifact["evidence"] if ev["kind"] == "turn"]
    assert len(turns) == 2 and all(ev["retriever"] == "sentence_hop" for ev in turns)
    stats = Memory(settings=settings).stats(user_namespace("pia"))
    assert stats["presets"] == ["sgmem"] and stats["nodes"].get("summary") and stats["nodes"].get("fact")
    await memory.aflush(120)
