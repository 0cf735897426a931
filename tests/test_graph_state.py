"""Every exported graph's state is plain data, and the exported ingest graph is as strict as
``Memory.add``.

Each graph runs under a checkpointer with strict msgpack on (what ``LANGGRAPH_STRICT_MSGPACK``
sets when LangGraph is imported: only safe types, LangChain messages and the graph's own
schema types are restored), is interrupted, resumed from the checkpoint, and must give what
``Memory`` gives for the same settings, with no type blocked or restored unregistered.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from memgraph_agents import Conversation, Memory, MemoryContext, NavigatorContext, Session
from memgraph_agents.config import Settings
from memgraph_agents.errors import LimitExceededError
from tests.conftest import make_conversation
from tests.fakes import ScriptedChatModel

NS = "state"
QUESTION = "When did Ana adopt the beagle puppy Pixel?"


@pytest.fixture
def strict_msgpack(monkeypatch, caplog):
    """Strict msgpack as the environment variable turns it on (read at import), and a log
    capture that fails the test if anything was blocked or restored unregistered."""
    import langgraph._internal._serde as graph_serde
    import langgraph.checkpoint.serde._msgpack as msgpack_flags

    monkeypatch.setattr(msgpack_flags, "STRICT_MSGPACK_ENABLED", True)
    monkeypatch.setattr(graph_serde, "STRICT_MSGPACK_ENABLED", True)
    caplog.set_level(logging.WARNING)
    yield InMemorySaver  # its serializer is made strict when constructed, as under the env var
    complaints = [r.getMessage() for r in caplog.records if "eserializ" in r.getMessage()]
    assert not complaints, complaints


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Settings:
    settings = Settings(data_dir=tmp_path_factory.mktemp("graph-state") / "mem", embeddings="hash", namespace=NS)
    Memory(settings=settings).add(make_conversation())
    return settings


def _context(settings: Settings, cls=MemoryContext, **fields):
    return cls(data_dir=str(settings.data_dir), namespace=settings.namespace, embeddings="hash", **fields)


def _thread(name: str) -> dict:
    return {"configurable": {"thread_id": name}}


def test_the_exported_ingest_graph_refuses_what_memory_add_refuses(tmp_path, monkeypatch):
    from memgraph_agents.graphs.ingest import graph

    monkeypatch.setenv("MEMGRAPH_MAX_TURN_CHARS", "50")
    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="limits")
    long_turn = {"id": "L1:1", "speaker": "Ana", "text": "x" * 120}
    session = {"id": "L1", "date": "2024-05-01T10:00:00", "turns": [long_turn]}
    memory = Memory(settings=settings)
    with pytest.raises(LimitExceededError, match="turn length 120 over the limit of 50"):
        memory.add(Conversation(id="limits", sessions=[Session.model_validate(session)]))
    with pytest.raises(LimitExceededError, match="turn length 120 over the limit of 50"):
        graph.invoke({"session": session}, context=_context(settings))
    assert memory.namespaces() == []  # nothing was written, not even an empty namespace
    ok = {"id": "L1", "date": "2024-05-01T10:00:00", "turns": [{**long_turn, "text": "Pixel chewed a shoe."}]}
    out = asyncio.run(graph.ainvoke({"session": ok}, context=_context(settings)))
    assert out["report"]["sessions_added"] == 1 and memory.namespaces() == ["limits"]


async def test_ingest_graph_resumes_under_a_strict_checkpointer(tmp_path, strict_msgpack):
    from memgraph_agents.graphs.ingest import build_ingest_graph

    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="resume")
    graph = build_ingest_graph(checkpointer=strict_msgpack())
    session = make_conversation().sessions[0].model_dump(mode="json")
    ctx, config = _context(settings), _thread("ingest")
    await graph.ainvoke(
        {"session": session, "speakers": ["Ana", "Ben"]}, config, context=ctx, interrupt_before=["ingest"]
    )
    paused = await graph.aget_state(config)
    assert paused.next == ("ingest",) and paused.values["conversation"]["sessions"][0]["id"] == "S1"
    assert Memory(settings=settings).namespaces() == []  # validated, nothing written yet
    out = await graph.ainvoke(None, config, context=ctx)
    assert out["report"]["sessions_added"] == 1 and out["report"]["namespace"] == "resume"
    assert (await graph.aget_state(config)).values["report"] == out["report"]
    hits = Memory(settings=settings).search(QUESTION, k=3)
    assert hits and all(t.startswith("D1:") for ev in hits for t in ev.turn_ids)


def test_retrieval_graph_resumes_under_a_strict_checkpointer(stored, strict_msgpack):
    from memgraph_agents.graphs.retrieval import build_retrieval_graph

    graph = build_retrieval_graph(checkpointer=strict_msgpack())
    ctx, config = _context(stored, retriever="ppr"), _thread("retrieval")
    graph.invoke({"query": QUESTION, "k": 4}, config, context=ctx, interrupt_before=["ppr"])
    assert graph.get_state(config).next == ("ppr",)
    out = graph.invoke(None, config, context=ctx)
    want = Memory(settings=stored).search(QUESTION, k=4, retriever="ppr")
    assert out["evidence"] == [ev.model_dump(mode="json") for ev in want]
    assert graph.get_state(config).values["evidence"] == out["evidence"]


async def test_navigator_graph_resumes_under_a_strict_checkpointer(stored, strict_msgpack):
    from memgraph_agents.navigator.graph import build_navigator_graph

    graph = build_navigator_graph(checkpointer=strict_msgpack())
    # seed_meets > 1: the seed meets no subgoal, so Explorers search and the state to resume is rich
    ctx = NavigatorContext.from_settings(stored, policy="offline", seed_meets=2.0)
    config = {**_thread("navigator"), "recursion_limit": 200}
    await graph.ainvoke({"question": QUESTION, "k": 5}, config, context=ctx, interrupt_after=["planner"])
    assert (await graph.aget_state(config)).next == ("localize",)
    out = await graph.ainvoke(None, config, context=ctx)
    want = await build_navigator_graph().ainvoke({"question": QUESTION, "k": 5}, {"recursion_limit": 200}, context=ctx)
    assert [ev["node_id"] for ev in out["ranking"][:5]] == [ev["node_id"] for ev in want["ranking"][:5]]
    assert out["kept"] and all(isinstance(ev, dict) for ev in out["evidence"])


def _recall_then_answer(messages):
    last = messages[-1]
    if isinstance(last, HumanMessage):
        return AIMessage(
            content="", tool_calls=[{"name": "recall", "args": {"query": QUESTION}, "id": "c1", "type": "tool_call"}]
        )
    return f"From memory: {last.content.splitlines()[1]}" if isinstance(last, ToolMessage) else "ok"


async def test_chatbot_graph_resumes_under_a_strict_checkpointer(stored, strict_msgpack):
    from memgraph_agents.graphs.chatbot import ChatbotContext, build_chatbot_graph
    from memgraph_agents.integrations import AgentMemory

    want = Memory(settings=stored).search(QUESTION)  # before the turn writer adds this chat to memory
    memory = AgentMemory(stored)
    graph = build_chatbot_graph(
        memory, model=ScriptedChatModel(responder=_recall_then_answer), checkpointer=strict_msgpack()
    )
    ctx = ChatbotContext(data_dir=str(stored.data_dir), namespace=NS, embeddings="hash")
    config = _thread("chat")
    message = {"messages": [{"role": "user", "content": QUESTION}]}
    await graph.ainvoke(message, config, context=ctx, interrupt_before=["tools"])
    assert (await graph.aget_state(config)).next == ("tools",)
    out = await graph.ainvoke(None, config, context=ctx)
    tool = next(m for m in out["messages"] if isinstance(m, ToolMessage))
    assert [ev["node_id"] for ev in tool.artifact["evidence"]] == [ev.node_id for ev in want]
    assert out["messages"][-1].content.startswith("From memory: 1. [")
    again = await graph.ainvoke(message, config, context=ctx)  # a second turn on the restored history
    assert len(again["messages"]) == 2 * len(out["messages"])
    memory.flush(60)
