"""``MemgraphStore`` against LangGraph's ``InMemoryStore``: the same scenarios, the same answers
(ranking aside); langmem's memory tools on it; a graph compiled with it."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.store.memory import InMemoryStore

from memgraph_agents.config import Settings
from memgraph_agents.integrations import MemgraphStore

NOTES = {
    "pixel": {
        "content": "Jonas adopted a grey tabby kitten called Pixel from the Leipzig shelter.",
        "kind": "pet",
        "year": 2024,
    },
    "race": {"content": "Maya ran the Elbe Riverside Half Marathon in 1:58:41.", "kind": "sport", "year": 2024},
    "job": {
        "content": "Jonas started as supply chain lead at Voltwerk on 2 April.",
        "kind": "work",
        "year": 2023,
        "nested": {"a": [1, 2.5, None, True], "ü": "ß"},
    },
}


@pytest.fixture
def stores(tmp_path):
    return [InMemoryStore(), MemgraphStore(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash"))]


def _view(items) -> list[tuple]:
    return [(i.namespace, i.key, i.value) for i in items]


def scenario(store) -> dict:
    out = {}
    for key, value in NOTES.items():
        store.put(("users", "ana", "notes"), key, value)
    store.put(("users", "bob", "notes"), "pixel", {"content": "Bob has a dog called Rex.", "kind": "pet"})
    store.put(("users", "ana", "prefs"), "tea", {"content": "Ana drinks green tea."})
    out["get"] = store.get(("users", "ana", "notes"), "job").value
    out["missing"] = store.get(("users", "ana", "notes"), "nope")
    out["other_ns"] = store.get(("users", "bob", "notes"), "pixel").value
    out["list"] = _view(store.search(("users", "ana", "notes")))
    out["filter"] = _view(store.search(("users",), filter={"kind": "pet"}))
    out["filter_op"] = _view(store.search(("users", "ana", "notes"), filter={"year": {"$gte": 2024}}))
    out["page"] = _view(store.search(("users", "ana", "notes"), limit=1, offset=1))
    out["ns"] = store.list_namespaces()
    out["ns_prefix"] = store.list_namespaces(prefix=("users", "ana"))
    out["ns_suffix"] = store.list_namespaces(suffix=("notes",))
    out["ns_depth"] = store.list_namespaces(max_depth=2)
    store.put(("users", "ana", "notes"), "race", {"content": "Maya ran it in 1:58:41, a personal best.", "v": 2})
    out["overwritten"] = store.get(("users", "ana", "notes"), "race").value
    out["after_overwrite"] = [k for _, k, _ in _view(store.search(("users", "ana", "notes")))]
    store.delete(("users", "ana", "notes"), "pixel")
    out["deleted"] = store.get(("users", "ana", "notes"), "pixel")
    out["after_delete"] = _view(store.search(("users", "ana", "notes")))
    out["bob_untouched"] = store.get(("users", "bob", "notes"), "pixel").value
    return out


@pytest.mark.slow
def test_same_answers_as_in_memory_store(stores):
    expected, got = (scenario(s) for s in stores)
    assert got == expected


def test_timestamps_and_overwrite(tmp_path):
    store = MemgraphStore(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash"))
    store.put(("a",), "k", {"content": "first version of the note"})
    first = store.get(("a",), "k")
    store.put(("a",), "k", {"content": "second version of the note"})
    second = store.get(("a",), "k")
    assert second.created_at == first.created_at and second.updated_at >= first.updated_at
    assert second.value == {"content": "second version of the note"}


@pytest.mark.slow
def test_query_search_ranks_with_the_graph_and_delete_removes_the_note(tmp_path):
    store = MemgraphStore(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash"), retriever="bm25")
    for key, value in NOTES.items():
        store.put(("u",), key, value)
    store.put(("v",), "race", {"content": "Someone else's half marathon time was 2:10:00."})
    hits = store.search(("u",), query="half marathon time")
    assert hits[0].key == "race" and hits[0].score is not None and hits[0].namespace == ("u",)
    assert {h.key for h in hits} == set(NOTES) and all(h.score is not None for h in hits)  # every item scored
    graph = store._graph(("u",))
    before = graph.stats()
    store.delete(("u",), "race")
    after = graph.stats()
    assert after["sessions"] == before["sessions"] - 1 and after["vectors"] < before["vectors"]
    assert [h.key for h in store.search(("u",), query="half marathon time") if h.score is not None] != ["race"]
    assert store.search(("v",), query="half marathon time")[0].key == "race"  # the other namespace is intact


def test_async_forms(tmp_path):
    store = MemgraphStore(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash"))

    async def go():
        await store.aput(("a", "b"), "k", {"content": "an async note about Pixel"})
        got = await store.aget(("a", "b"), "k")
        found = await store.asearch(("a",), query="Pixel")
        names = await store.alist_namespaces(prefix=("a",))
        await store.adelete(("a", "b"), "k")
        return got.value, [f.key for f in found], names, await store.aget(("a", "b"), "k")

    assert asyncio.run(go()) == ({"content": "an async note about Pixel"}, ["k"], [("a", "b")], None)


def test_graph_node_reads_the_store_through_get_store(tmp_path):
    from langgraph.config import get_store
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class S(TypedDict, total=False):
        query: str
        found: list[str]

    def node(state: S) -> dict:
        store = get_store()
        store.put(("mem",), "n1", {"content": "Ana adopted the beagle puppy Pixel in May."})
        return {"found": [i.value["content"] for i in store.search(("mem",), query=state["query"])]}

    g = StateGraph(S)
    g.add_node("node", node)
    g.add_edge(START, "node")
    g.add_edge("node", END)
    store = MemgraphStore(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash"))
    out = g.compile(store=store).invoke({"query": "beagle puppy"})
    assert out["found"] == ["Ana adopted the beagle puppy Pixel in May."]
    assert store.get(("mem",), "n1").value["content"].startswith("Ana adopted")


@pytest.mark.slow
def test_langmem_memory_tools_in_create_agent(tmp_path):
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langmem import create_manage_memory_tool, create_search_memory_tool

    from tests.fakes import ScriptedChatModel

    def call(name: str, args: dict, i: int) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{i}", "type": "tool_call"}])

    def respond(messages):
        done = [m for m in messages if isinstance(m, ToolMessage)]
        if len(done) == 0:
            return call(
                "manage_memory", {"content": "Ana's beagle puppy Pixel turned one on 3 May.", "action": "create"}, 1
            )
        if len(done) == 1:
            return call("search_memory", {"query": "When is Pixel's birthday?"}, 2)
        return f"Found: {done[-1].content}"

    store = MemgraphStore(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash"))
    ns = ("memories", "{langgraph_user_id}")
    agent = create_agent(
        ScriptedChatModel(responder=respond),
        tools=[create_manage_memory_tool(namespace=ns), create_search_memory_tool(namespace=ns)],
        store=store,
    )
    out = agent.invoke(
        {"messages": [HumanMessage("Pixel turned one on 3 May!")]},
        config={"configurable": {"langgraph_user_id": "ana"}},
    )
    assert "turned one on 3 May" in out["messages"][-1].content
    items = store.search(("memories", "ana"))
    assert [i.value for i in items] == [{"content": "Ana's beagle puppy Pixel turned one on 3 May."}]
    assert store.search(("memories", "ben")) == []  # another user's namespace is empty
    hits = store.search(("memories", "ana"), query="Pixel birthday")
    assert hits[0].key == items[0].key and hits[0].score is not None


def _note_of(store, namespace, key):
    """The text of the note the graph holds for ``key`` (``None``: no note)."""
    from memgraph_agents.integrations.store_items import session_id

    graph = store._graph(namespace)
    if graph is None or graph.session(session_id(key)) is None:
        return None
    return [d["text"] for _, _, d in graph.db.session_turns(session_id(key))]


def test_a_put_over_a_limit_changes_neither_value_nor_note(tmp_path):
    from memgraph_agents.config import InputLimits
    from memgraph_agents.errors import LimitExceededError

    limits = InputLimits(max_turn_chars=200)
    store = MemgraphStore(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash", limits=limits))
    store.put(("a",), "k", {"content": "The spare key is under the blue pot."})
    with pytest.raises(LimitExceededError):
        store.put(("a",), "k", {"content": "too long " * 100})
    with pytest.raises(LimitExceededError):
        store.put(("a",), "new", {"content": "too long " * 100})  # a first put: nothing at all
    assert store.get(("a",), "k").value == {"content": "The spare key is under the blue pot."}
    assert _note_of(store, ("a",), "k") == ["The spare key is under the blue pot."]
    assert store.get(("a",), "new") is None and _note_of(store, ("a",), "new") is None
    assert store.items.pendings() == []
    assert [h.key for h in store.search(("a",), query="spare key") if h.score is not None] == ["k"]


_CRASHING_PUT = """
import os, sys
from memgraph_agents.config import Settings
from memgraph_agents.integrations import MemgraphStore
from memgraph_agents.integrations.store_items import ItemTable
from memgraph_agents.api import Memory

where = sys.argv[2]
store = MemgraphStore(settings=Settings(data_dir=sys.argv[1], embeddings="hash"))
if where == "setup":
    pass
elif where == "after the graph commit":  # the note is replaced, the value not yet
    ItemTable.commit = lambda *a, **k: os._exit(9)
else:  # the intent is recorded, the graph not written
    Memory.add = lambda *a, **k: os._exit(9)
text = "The spare key is under the blue pot." if where == "setup" else "The spare key moved to the garage shelf."
store.put(("a",), "k", {"content": text})
"""


@pytest.mark.slow  # two processes killed per case
@pytest.mark.parametrize("where", ["after the graph commit", "before the graph commit"])
def test_a_put_killed_between_its_steps_is_settled_by_the_graph(tmp_path, where):
    import subprocess
    import sys

    data = tmp_path / "mem"  # children first: embedded Chroma is one process's at a time
    for step, code in (("setup", 0), (where, 9)):
        done = subprocess.run([sys.executable, "-c", _CRASHING_PUT, str(data), step], capture_output=True, timeout=120)
        assert done.returncode == code, done.stderr.decode()[-2000:]
    store = MemgraphStore(settings=Settings(data_dir=data, embeddings="hash"))  # the next open settles it
    new = where == "after the graph commit"
    text = "The spare key moved to the garage shelf." if new else "The spare key is under the blue pot."
    assert store.get(("a",), "k").value == {"content": text}
    assert _note_of(store, ("a",), "k") == [text]
    assert store.items.pendings() == []
