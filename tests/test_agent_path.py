"""The agent path says what happened, through real ``create_agent`` runs (scripted model):
scopes from the run (user, agent, shared), ``MemoryRetriever(user_id=...)``, recall that could
not see queued writes, and a turn writer that stores conversation, not chatter, once."""

from __future__ import annotations

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from memgraph_agents.api import Memory
from memgraph_agents.config import Settings
from memgraph_agents.integrations import MemoryRetriever, TurnRule, create_memory_tools
from memgraph_agents.runtime import get_store
from tests.fakes import ScriptedChatModel

FACT = "Please remember that my sister Eva moved to Porto in May"
NOTE = "The user's sister Eva moved to Porto in May 2031"


def call(name: str, args: dict, call_id: str = "c1", content: str = "") -> AIMessage:
    return AIMessage(content=content, tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def scripted(steps: dict[str, list]):
    """A model that answers the last human message's text with the next of its scripted replies."""
    queues = {k: list(v) for k, v in steps.items()}

    def respond(messages):
        human = [m for m in messages if isinstance(m, HumanMessage)][-1].content
        return queues[human].pop(0)

    return ScriptedChatModel(responder=respond)


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "mem", embeddings="hash", retriever="bm25")


@pytest.mark.slow
def test_recall_reads_user_agent_and_shared_scopes_from_the_run(settings):
    memory = Memory(settings=settings)
    alice = Memory.namespace_for_user("alice")
    memory.add("Alice's bike is a red road bike", namespace=alice)
    memory.add(
        "The helper agent knows the bike shop opens at nine", namespace=Memory.namespace_for_user("helper", "agent")
    )
    memory.add("Team rule: bike repairs are booked on Mondays", namespace="team")
    memory.add("Bob's bike is a blue mountain bike", namespace=Memory.namespace_for_user("bob"))
    tools = create_memory_tools(settings, shared_namespaces=["team"])
    # The model tries to name other scopes: tool arguments never choose memory.
    model = scripted({"bike?": [call("recall", {"query": "bike", "namespace": "bob", "user_id": "bob"}), "done"]})
    agent = create_agent(model, tools=tools)
    out = agent.invoke(
        {"messages": [HumanMessage("bike?")]}, {"configurable": {"user_id": "alice", "agent_id": "helper"}}
    )
    [tm] = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    agent_ns = Memory.namespace_for_user("helper", "agent")
    assert tm.artifact["scopes"] == [alice, agent_ns, "team"]
    assert {ev["namespace"] for ev in tm.artifact["evidence"]} == {alice, agent_ns, "team"}
    assert "red road bike" in tm.content and "nine" in tm.content and "Mondays" in tm.content
    assert "blue" not in tm.content
    # a run without an agent id and with its own shared namespace reads just those
    out = create_agent(scripted({"bike?": [call("recall", {"query": "bike"}), "done"]}), tools=tools).invoke(
        {"messages": [HumanMessage("bike?")]}, {"configurable": {"user_id": "alice", "shared_namespace": []}}
    )
    [tm] = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert tm.artifact["scopes"] == [alice] and "Mondays" not in tm.content
    tools.flush()


def test_retriever_user_id_reads_what_the_agent_wrote(settings):
    tools = create_memory_tools(settings)
    model = scripted({"note this": [call("remember", {"text": "Lena's favourite tea is jasmine"}), "Saved."]})
    create_agent(model, tools=tools).invoke(
        {"messages": [HumanMessage("note this")]}, {"configurable": {"user_id": "lena"}}
    )
    tools.flush()
    docs = MemoryRetriever(settings=settings, user_id="lena", k=3).invoke("jasmine tea")
    assert docs and "jasmine" in docs[0].page_content
    assert docs == tools.retriever(user_id="lena", k=3).invoke("jasmine tea")
    assert MemoryRetriever(settings=settings, user_id="someone-else", k=3).invoke("jasmine tea") == []
    with pytest.raises(ValueError, match="not both"):
        MemoryRetriever(settings=settings, user_id="lena", namespace="x").invoke("tea")


@pytest.mark.slow
def test_recall_says_it_could_not_see_queued_writes(settings):
    ns = Memory.namespace_for_user("omar")
    Memory(settings=settings).add("Omar plays the cello", namespace=ns)
    tools = create_memory_tools(settings)
    tools.memory.read_wait = 0.3
    tools.memory.remember_wait = 0.3  # remember then says "queued", not "saved"
    store = get_store(settings, ns, create=False)
    model = scripted(
        {
            "go": [
                call("remember", {"text": "Omar's cello teacher is called Ines"}),
                call("recall", {"query": "cello teacher"}, "c2"),
                "done",
            ]
        }
    )
    agent = create_agent(model, tools=tools)
    with store.ingest_lock.hold():  # another writer holds the namespace: the note stays queued
        out = agent.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"user_id": "omar"}})
    remember_msg = [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "remember"][-1]
    assert remember_msg.content.startswith("Not saved yet: the note is queued"), remember_msg.content
    recall_msg = [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "recall"][-1]
    assert "still being saved" in recall_msg.content and "not searched" in recall_msg.content
    assert recall_msg.artifact["unseen_writes"] == 1
    assert "Ines" not in recall_msg.content
    tools.flush(60)
    # once written, the same recall sees it and says nothing about queued writes
    again = tools.memory.recall("cello teacher", config={"configurable": {"user_id": "omar"}})
    assert again.unseen == 0 and "Ines" in again.content() and "still being saved" not in again.content()


def test_turn_writer_skips_chatter_and_stores_a_remembered_fact_once(settings):
    tools = create_memory_tools(settings)
    model = scripted(
        {
            FACT: [call("remember", {"text": NOTE}, content="Let me save that to memory."), "Noted."],
            "ok thanks": ["You're welcome!"],
            "Lisbon in June is on my list this year": ["Lisbon in June sounds lovely."],
        }
    )
    agent = create_agent(model, tools=tools, middleware=[tools.turn_writer()])
    config = {"configurable": {"user_id": "mira", "thread_id": "t1"}}
    messages: list = []
    for text in (FACT, "ok thanks", "Lisbon in June is on my list this year"):
        messages = agent.invoke({"messages": [*messages, HumanMessage(text)]}, config)["messages"]
    tools.flush(60)
    memory = Memory(settings=settings, namespace=Memory.namespace_for_user("mira"))
    page = memory.list()
    notes = [i for i in page.items if i.kind == "note"]
    sessions = [memory.get(i.id) for i in page.items if i.kind == "session"]
    assert [n.text for n in notes] == [NOTE]
    said = [t.text for s in sessions for t in s.turns]
    assert said == ["Lisbon in June is on my list this year", "Lisbon in June sounds lovely."]
    # the rule is configurable: keep acknowledgements
    assert TurnRule(skip_acknowledgements=False).keep(HumanMessage("ok thanks"))
    assert not TurnRule().keep(HumanMessage("Ok, thanks!"))
    assert TurnRule().keep(HumanMessage("ok, my cat is called Miso"))
