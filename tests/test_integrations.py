"""Drop-in memory for agents: tools with create_agent and ToolNode, isolation, background writes."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from memgraph_agents.config import Settings
from memgraph_agents.errors import NamespaceError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.integrations import (
    AgentMemory,
    MemoryRetriever,
    MemoryWriteError,
    create_memory_tools,
    memory_writer_node,
    user_namespace,
)
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.fakes import ScriptedChatModel

ALICE = user_namespace("alice")  # user ids map to derived names (storage.namespaces)
PUPPY_Q = "When did Ana adopt the beagle puppy Pixel?"


@pytest.fixture(scope="module")
def mem_settings(tmp_path_factory) -> Settings:
    """One data dir for the module: alice's memory is the Ana/Ben conversation."""
    s = Settings(data_dir=tmp_path_factory.mktemp("integrations") / "mem", embeddings="hash", namespace="default")
    ingest_conversation(make_conversation(), s, namespace=ALICE)
    return s


def tool_call(name: str, args: dict, call_id: str = "call_1") -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def recall_then_answer(query: str, **extra):
    """A model that recalls ``query`` for a new user message, then answers from the evidence."""

    def respond(messages):
        last = messages[-1]
        if isinstance(last, HumanMessage):
            return tool_call("recall", {"query": query, **extra})
        if isinstance(last, ToolMessage):
            return (
                f"From memory: {last.content.splitlines()[1] if len(last.content.splitlines()) > 1 else last.content}"
            )
        return "ok"

    return respond


def tool_messages(state) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


# --------------------------------------------------------------------------- the tools


def test_tools_take_only_what_the_model_decides(mem_settings):
    tools = create_memory_tools(mem_settings)
    assert [t.name for t in tools] == ["recall", "remember"]
    assert set(tools.recall.tool_call_schema.model_json_schema()["properties"]) == {"query", "min_score"}
    assert set(tools.remember.tool_call_schema.model_json_schema()["properties"]) == {"text"}
    assert tools.recall.response_format == "content_and_artifact"
    assert tools.recall.coroutine is not None and tools.remember.coroutine is not None


def test_create_agent_recalls_evidence_with_dates_turns_and_path(mem_settings):
    tools = create_memory_tools(mem_settings, retriever="navigator")  # the navigator: a path too
    # The model even tries to pick another user's namespace: the argument is ignored.
    model = ScriptedChatModel(responder=recall_then_answer(PUPPY_Q, namespace="bob", user_id="bob"))
    agent = create_agent(model, tools=tools)
    out = agent.invoke({"messages": [HumanMessage("what's the puppy called?")]}, {"configurable": {"user_id": "alice"}})
    [tm] = tool_messages(out)
    assert tm.name == "recall" and tm.status != "error"
    assert "[2024-03-10 | D1:1] Ana: Hi Ben! I adopted a puppy" in tm.content  # date | turn id | text
    art = tm.artifact
    assert art["namespace"] == ALICE and art["retriever"] == "navigator"
    # the navigation is the artifact: its path, or (an easy question) the seed ranking met every subgoal
    routes = [e["reason"] for e in art["trace"] if e["type"] == "route"]
    assert art["path"] or routes == ["the seed ranking meets every subgoal"]
    assert art["subgoals"] and all(art["satisfied"])
    assert {p["action"] for p in art["path"]} <= {"SKIP", "EXPAND", "ANSWER"}
    assert all(p["step"] == i for i, p in enumerate(art["path"], start=1))
    assert any("D1:1" in ev["turn_ids"] for ev in art["evidence"])
    # the model's next call saw the evidence
    assert "Pixel" in out["messages"][-1].content
    assert any(isinstance(m, ToolMessage) and "Pixel" in m.content for m in model.calls[-1])


def test_user_id_from_runtime_context(mem_settings):
    @dataclass
    class AppContext:
        user_id: str

    tools = create_memory_tools(mem_settings, retriever="bm25", k=3)
    agent = create_agent(
        ScriptedChatModel(responder=recall_then_answer("puppy Pixel")), tools=tools, context_schema=AppContext
    )
    out = agent.invoke({"messages": [HumanMessage("puppy?")]}, context=AppContext(user_id="alice"))
    [tm] = tool_messages(out)
    assert tm.artifact["namespace"] == ALICE and tm.artifact["retriever"] == "bm25"
    assert "D1:1" in tm.content and len(tm.artifact["evidence"]) <= 3


def test_toolnode_path_sync_and_async(mem_settings):
    tools = create_memory_tools(mem_settings)
    model = ScriptedChatModel(responder=recall_then_answer(PUPPY_Q)).bind_tools(tools)

    def agent(state: MessagesState):
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode(tools))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
    g.add_edge("tools", "agent")
    app = g.compile()
    config = {"configurable": {"user_id": "alice"}}
    out = app.invoke({"messages": [HumanMessage("puppy name?")]}, config)
    [tm] = tool_messages(out)
    # the default navigator's run is the artifact: Explorer steps, or the seed ranking it answered with
    assert "D1:1" in tm.content and (
        tm.artifact["path"] or any("turn:D1:1" in e.get("candidates", []) for e in tm.artifact["trace"])
    )

    import asyncio

    out = asyncio.run(app.ainvoke({"messages": [HumanMessage("puppy name?")]}, config))
    [tm] = tool_messages(out)
    assert "D1:1" in tm.content and tm.artifact["namespace"] == ALICE


def test_two_users_memories_are_isolated(mem_settings):
    tools = create_memory_tools(mem_settings, retriever="bm25")
    bob = {"configurable": {"user_id": "bob"}}
    alice = {"configurable": {"user_id": "alice"}}
    content, info = tools.remember.func("Bob's cat is called Whiskers and is afraid of the vacuum.", config=bob)
    assert info["namespace"] == user_namespace("bob") and info["saved"] and not info["queued"]
    assert content == "Saved to long-term memory."  # said after the commit, not before
    tools.flush(timeout=60)
    _, for_bob = tools.recall.func("cat called Whiskers", config=bob)
    _, for_alice = tools.recall.func("cat called Whiskers", config=alice)
    bob_text = " ".join(ev["text"] for ev in for_bob["evidence"])
    alice_text = " ".join(ev["text"] for ev in for_alice["evidence"])
    assert "Whiskers" in bob_text and "Pixel" not in bob_text
    assert alice_text and "Whiskers" not in alice_text
    # a user id that is not a namespace name maps to its own namespace, never to another's
    odd = {"configurable": {"user_id": "alice@example.com"}}
    assert user_namespace("alice@example.com") not in ("alice", "alice-example-com")
    assert "Nothing in memory" in tools.recall.invoke({"query": "puppy"}, config=odd)


def test_remember_does_not_block_and_recall_reads_its_own_writes(mem_settings, monkeypatch):
    from memgraph_agents.api import Memory

    gate = threading.Event()
    real = Memory.add

    def slow_add(self, *args, **kwargs):  # the background writer's write waits for the gate
        assert gate.wait(30)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Memory, "add", slow_add)
    tools = create_memory_tools(mem_settings, retriever="bm25")
    tools.memory.remember_wait = 0.5  # a bounded wait for the commit: then it says "queued"

    def respond(messages):
        last = messages[-1]
        humans = [m for m in messages if isinstance(m, HumanMessage)]
        if isinstance(last, HumanMessage) and "remember" in last.content:
            return tool_call("remember", {"text": "The user's sister Eva lives in Porto since May 2024."}, "c1")
        if isinstance(last, HumanMessage):
            return tool_call("recall", {"query": "Where does the sister Eva live?"}, f"c{len(humans)}")
        return "Noted." if "queued" in last.content else f"Memory says: {last.content}"

    agent = create_agent(ScriptedChatModel(responder=respond), tools=tools)
    config = {"configurable": {"user_id": "erin"}}
    t0 = time.perf_counter()
    state = agent.invoke({"messages": [HumanMessage("Please remember that my sister Eva lives in Porto.")]}, config)
    assert time.perf_counter() - t0 < 5 and tools.memory.pending(user_namespace("erin")) == 1, (
        "the write is still queued"
    )
    assert state["messages"][-1].content == "Noted."
    threading.Timer(0.3, gate.set).start()  # the write finishes while recall is waiting for it
    state = agent.invoke({"messages": [*state["messages"], HumanMessage("Where does my sister live?")]}, config)
    [_, recalled] = tool_messages(state)
    assert "Porto" in recalled.content and recalled.artifact["namespace"] == user_namespace("erin")
    assert "Porto" in state["messages"][-1].content
    tools.flush(timeout=60)


def test_flush_reports_failed_background_writes(mem_settings, monkeypatch):
    import memgraph_agents.ingest as ingest_mod

    async def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(ingest_mod, "aingest_conversation", broken)  # what Memory.add runs
    mem = AgentMemory(mem_settings)
    with pytest.raises(MemoryWriteError, match="not saved: RuntimeError: disk full"):  # said at once
        mem.remember("something", config={"configurable": {"user_id": "frank"}})
    mem.remember_wait = 0  # now queued: the failure is said by flush
    info = mem.remember("something else", config={"configurable": {"user_id": "frank"}})
    assert info["queued"] and not info["saved"]
    with pytest.raises(MemoryWriteError, match="disk full"):
        mem.flush(timeout=30)
    assert mem.flush(timeout=5) == []  # reported once


def test_run_without_user_is_refused_when_required(mem_settings):
    tools = create_memory_tools(mem_settings, default_namespace=None)
    out = tools.recall.invoke({"type": "tool_call", "name": "recall", "args": {"query": "puppy"}, "id": "x"})
    assert out.status == "error" and "user" in out.content


def test_memory_retriever_is_a_langchain_retriever(mem_settings):
    import asyncio

    from langchain_core.retrievers import BaseRetriever

    r = MemoryRetriever(settings=mem_settings, namespace=ALICE, retriever="hybrid", k=3)
    assert isinstance(r, BaseRetriever)
    docs = r.invoke("puppy called Pixel")
    assert 0 < len(docs) <= 3
    assert any("D1:1" in d.metadata["turn_ids"] for d in docs)
    assert all(d.metadata["citation"].startswith("[20") and d.metadata["session_dates"] for d in docs)
    adocs = asyncio.run(r.ainvoke("puppy called Pixel"))
    assert [d.id for d in adocs] == [d.id for d in docs]

    def first_turns(query, store, *, k):  # any callable retriever
        from memgraph_agents.retrieval.evidence import turn_evidence

        return [turn_evidence(store.snapshot(), "D2:1", 1.0, retriever="mine")]

    docs = MemoryRetriever(settings=mem_settings, namespace=ALICE, retriever=first_turns).invoke("anything")
    assert [d.metadata["turn_ids"] for d in docs] == [["D2:1"]]


def test_memory_retriever_takes_a_relevance_floor(mem_settings):
    import pydantic

    query = "puppy called Pixel"
    every = MemoryRetriever(settings=mem_settings, namespace=ALICE, k=5, min_score=0.0).invoke(query)
    relevances = sorted(d.metadata["relevance"] for d in every)
    assert len(every) == 5 and relevances[0] < relevances[-1]
    middle = (relevances[0] + relevances[-1]) / 2
    kept = MemoryRetriever(settings=mem_settings, namespace=ALICE, k=5, min_score=middle).invoke(query)
    assert kept and all(d.metadata["relevance"] >= middle for d in kept)
    assert {d.id for d in kept} == {d.id for d in every if d.metadata["relevance"] >= middle}
    assert MemoryRetriever(settings=mem_settings, namespace=ALICE, k=5, min_score=1.0).invoke(query) == []
    for bad in (1.5, -0.1, "high", True):
        with pytest.raises(pydantic.ValidationError, match="min_score"):
            MemoryRetriever(settings=mem_settings, namespace=ALICE, min_score=bad)


def test_turn_writer_writes_every_finished_turn(mem_settings):
    tools = create_memory_tools(mem_settings)
    agent = create_agent(
        ScriptedChatModel(responder=lambda m: "Nice, tell me more!"), tools=tools, middleware=[tools.turn_writer()]
    )
    config = {"configurable": {"user_id": "wren", "thread_id": "t1"}}
    state = agent.invoke({"messages": [HumanMessage("I started learning the cello in May.")]}, config)
    tools.flush(timeout=60)
    store = get_store(mem_settings, user_namespace("wren"))
    assert [(s["id"], s["n_turns"]) for s in store.sessions()] == [("t1-s1", 2)]
    # the next turn, with the whole history passed back: the thread's session grows
    agent.invoke({"messages": [*state["messages"], HumanMessage("My teacher is called Ines.")]}, config)
    tools.flush(timeout=60)
    assert [(s["id"], s["n_turns"]) for s in store.sessions()] == [("t1-s1", 4)]
    assert "Ines" in tools.recall.invoke({"query": "cello teacher Ines"}, config=config)


def test_memory_writer_node_for_hand_built_graphs(mem_settings):
    mem = AgentMemory(mem_settings, speaker_names={"user": "Hugo", "assistant": "Bot"})

    def chat(state: MessagesState):
        return {"messages": [AIMessage("Lyon is lovely in spring.")]}

    g = StateGraph(MessagesState)
    g.add_node("chat", chat)
    g.add_node("write_memory", memory_writer_node(mem))
    g.add_edge(START, "chat")
    g.add_edge("chat", "write_memory")
    g.add_edge("write_memory", END)
    g.compile().invoke(
        {"messages": [HumanMessage("I am moving to Lyon in April.")]},
        {"configurable": {"user_id": "hugo", "thread_id": "trip"}},
    )
    mem.flush(timeout=60)
    res = mem.recall("moving to Lyon", config={"configurable": {"user_id": "hugo"}})
    assert any(ev.text.startswith("Hugo: I am moving to Lyon") for ev in res.evidence)


def _remember_model(text: str) -> ScriptedChatModel:
    def respond(messages):
        return tool_call("remember", {"text": text}) if isinstance(messages[-1], HumanMessage) else "noted"

    return ScriptedChatModel(responder=respond)


def test_a_falsy_user_id_is_never_the_shared_default_namespace(tmp_path):
    """One rule for a context attribute, a context key and ``configurable``: 0 is the user "0"
    (its own namespace, the same from every source); "" and False are refused; only a missing
    id falls back to the default namespace."""
    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="default")
    mem = AgentMemory(settings)

    @dataclass
    class Ctx:
        user_id: object = None

    zero = user_namespace("0")
    assert zero != "default"
    assert mem.namespace_for(Ctx(0)) == mem.namespace_for({"user_id": 0}) == zero
    assert mem.namespace_for(None, {"configurable": {"user_id": 0}}) == zero
    assert mem.namespace_for(Ctx(None), {"configurable": {"user_id": 0}}) == zero
    assert mem.namespace_for(Ctx(None)) == mem.namespace_for({}) == "default"  # no user: the default
    for bad in ("", False, True, 0.0, ["alice"]):
        for context, config in ((Ctx(bad), None), ({"user_id": bad}, None), (None, {"configurable": {"user_id": bad}})):
            with pytest.raises(NamespaceError):
                mem.namespace_for(context, config)

    # Through an agent run: user 0's note lands in its own namespace, which a run without a user
    # (the default namespace) never reads.
    agent = create_agent(_remember_model("The vault code is 9902."), tools=create_memory_tools(settings, memory=mem))
    agent.invoke({"messages": [HumanMessage("remember the vault code")]}, context={"user_id": 0})
    mem.flush()
    assert "9902" in mem.recall("vault code", context={"user_id": 0}).content()
    assert "9902" not in mem.recall("vault code", context={}).content()
    out = agent.invoke({"messages": [HumanMessage("remember the vault code")]}, context={"user_id": False})
    [tm] = tool_messages(out)
    assert tm.status == "error" and "user id" in tm.content  # refused, not written to "default"
    mem.flush()
    assert "9902" not in mem.recall("vault code", context={}).content()
