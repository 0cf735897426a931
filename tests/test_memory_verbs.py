"""``Memory``'s verbs as one definition each: the blocking verb and its async twin share one
signature and one mechanism (``api.twins``); ``user_id=`` on every verb; ``astream`` is ``ask``'s
very request, streamed (filters, gate, retriever, user); unknown keywords are refused at every
door; ``SearchRequest`` and ``register_retriever`` are exported; mem0's names (``limit=``,
``get_all``, ``delete``) mean what they mean there."""

from __future__ import annotations

import asyncio
import inspect
from datetime import datetime

import pytest

import memgraph_agents
from memgraph_agents import InputError, Memory

# Every verb that acts on one namespace (``namespaces`` lists them all: it takes no user id).
VERBS = ("add", "search", "ask", "get", "list", "get_all", "update", "history", "forget", "delete", "stats", "reembed")


@pytest.fixture
def mem(tmp_path) -> Memory:
    return Memory(tmp_path / "mem", embeddings="hash", llm="none")


def _params(fn) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(fn).parameters)


def test_each_verb_and_its_async_twin_are_one_definition_with_user_id():
    for name in VERBS:
        sync, twin = getattr(Memory, name), getattr(Memory, "a" + name)
        assert _params(sync) == _params(twin), name  # one signature, not two copies
        assert "user_id" in _params(sync), name
        assert inspect.iscoroutinefunction(twin) and not inspect.iscoroutinefunction(sync), name
        assert sync.__doc__ and sync.__doc__ == twin.__doc__, name
    assert "user_id" not in _params(Memory.namespaces)
    # astream takes ask's arguments, all of them
    assert list(_params(Memory.astream)) == list(_params(Memory.ask))


def test_exported_from_the_package():
    from memgraph_agents import SearchRequest, register_retriever
    from memgraph_agents.api.request import SearchRequest as Request
    from memgraph_agents.registry import register_retriever as register

    assert SearchRequest is Request and register_retriever is register
    assert {"SearchRequest", "register_retriever"} <= set(memgraph_agents.__all__)


def test_unknown_keywords_are_refused(mem):
    mem.add("Ana keeps bees on the roof", user_id="ana", when=datetime(2024, 5, 1))
    for call in (
        lambda: mem.search("bees", user="ana"),
        lambda: mem.get("x", user="ana"),
        lambda: mem.list(users="ana"),
        lambda: mem.forget(users="ana"),
        lambda: mem.stats(bogus=1),
        lambda: mem.astream("bees", top_k=3),  # refused before anything runs
    ):
        with pytest.raises(TypeError, match="unexpected keyword|got an unexpected"):
            call()


def test_create_memory_tools_with_a_memory_refuses_the_keywords_it_would_ignore(tmp_path):
    from memgraph_agents.config import Settings
    from memgraph_agents.integrations.agent_memory import AgentMemory
    from memgraph_agents.integrations.retriever import MemoryRetriever
    from memgraph_agents.integrations.tools import create_memory_tools

    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash", llm="none")
    agent_memory = AgentMemory(settings, retriever="bm25", k=3)
    other = settings.override(top_k=3)  # its own settings are fine, other ones would be ignored
    for kwargs in ({"retriever": "ppr"}, {"k": 5}, {"settings": other}, {"namespace_prefix": "team"}):
        with pytest.raises(TypeError, match=next(iter(kwargs))):
            create_memory_tools(memory=agent_memory, **kwargs)
    tools = create_memory_tools(memory=agent_memory, recall_name="look_up")  # a tool's own option is fine
    assert tools.memory is agent_memory and tools.recall.name == "look_up"
    with pytest.raises(ValueError, match="Extra inputs"):
        MemoryRetriever(memory=agent_memory, top_k=3)
    with pytest.raises(ValueError, match="AgentMemory's own"):
        MemoryRetriever(memory=agent_memory, retriever="ppr")


def test_user_id_on_every_item_verb(mem):
    report = mem.add("Ana's locker code is 4471", user_id="ana", when=datetime(2024, 5, 1))
    [note] = report.note_ids
    ns = Memory.namespace_for_user("ana")
    assert mem.get(note, user_id="ana").text == "Ana's locker code is 4471"
    assert mem.update(note, "Ana's locker code is 5582", user_id="ana").text.endswith("5582")
    assert [v.text[-4:] for v in mem.history(note, user_id="ana").versions] == ["4471", "5582"]
    assert mem.stats(user_id="ana")["sessions"] == 1 == mem.stats(ns)["sessions"]
    with pytest.raises(InputError, match="not both"):
        mem.get(note, user_id="ana", namespace=ns)
    assert mem.delete(note, user_id="ana").sessions == [note]
    assert mem.get_all(user_id="ana").items == []
    assert mem.forget(user_id="ana").namespace_deleted and mem.namespaces() == []


def test_the_user_id_is_kept_with_the_namespace_it_made(mem):
    mem.add("Ana keeps bees", user_id="ana", when=datetime(2024, 5, 1))
    mem.user("bo").add("Bo rows on Sundays", when=datetime(2024, 5, 1))
    mem.add("The team meets on Mondays", namespace="team", when=datetime(2024, 5, 1))
    assert mem.stats(user_id="ana")["user_id"] == "ana"
    assert mem.stats(user_id="bo")["user_id"] == "bo"
    assert mem.stats("team")["user_id"] == ""  # a namespace a person named has no user id


def test_limit_is_k_and_get_all_is_list(mem):
    for i, town in enumerate(("Porto", "Braga", "Faro", "Evora")):
        mem.add(f"Ana visited {town} in May", user_id="ana", when=datetime(2024, 5, 1 + i))
    by_limit = mem.search("Ana visited", user_id="ana", limit=2, retriever="bm25")
    assert len(by_limit) == 2 and by_limit == mem.search("Ana visited", user_id="ana", k=2, retriever="bm25")
    with pytest.raises(InputError, match="k= or limit="):
        mem.search("Ana visited", user_id="ana", k=2, limit=2)
    assert len(mem.get_all(user_id="ana").items) == 4
    assert mem.get_all(user_id="ana", limit=3).cursor is not None


def test_astream_is_asks_request_streamed(mem, tmp_path):
    mem.add("Ana keeps bees on the roof of the library", user_id="ana", when=datetime(2024, 5, 1))
    mem.add("Ana sold her old bicycle", user_id="ana", when=datetime(2024, 6, 1))

    async def collect(question: str, **kw):
        return [chunk async for chunk in mem.astream(question, **kw)]

    # the navigator: node updates while it runs, then ask's own result
    chunks = asyncio.run(collect("Where does Ana keep bees?", user_id="ana", k=2))
    assert any(mode == "updates" for mode, _ in chunks)
    mode, result = chunks[-1]
    asked = mem.ask("Where does Ana keep bees?", user_id="ana", k=2)
    assert mode == "result" and result.namespace == asked.namespace == Memory.namespace_for_user("ana")
    assert [e.node_id for e in result.evidence] == [e.node_id for e in asked.evidence]
    # another retriever: its result alone, from the same request
    [(mode, result)] = asyncio.run(collect("bees", user_id="ana", retriever="bm25", k=1))
    assert mode == "result" and result.retriever == "bm25" and "bees" in result.evidence[0].text
    # the filter: nothing the filter admits is "no memory", as ask says
    [(mode, result)] = asyncio.run(collect("bees", user_id="ana", since="2025-01-01"))
    assert result.outcome == "no_memory" and result.reason.value == "filtered_out"
    # the floor: nothing at or above min_score is nothing relevant
    [*_, (mode, result)] = asyncio.run(collect("bees", user_id="ana", retriever="bm25", min_score=1.0))
    assert result.outcome == "nothing_relevant" and result.evidence == []
    with pytest.raises(InputError, match="not both"):
        asyncio.run(collect("bees", user_id="ana", namespace="x"))


def test_the_agent_tools_keep_the_runs_user_id_with_the_namespace_they_write(tmp_path):
    from memgraph_agents.config import Settings
    from memgraph_agents.integrations.agent_memory import AgentMemory

    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash", llm="none")
    agent = AgentMemory(settings, namespace_prefix="shop")
    agent.remember("Eve prefers the window seat", config={"configurable": {"user_id": "eve"}})
    from langchain_core.messages import HumanMessage

    agent.write_messages(
        [HumanMessage("My order number is 5521 and it has not arrived.", id="m1")],
        config={"configurable": {"user_id": 42, "thread_id": "t1"}},
    )
    agent.remember("The shop opens at nine", namespace="shared")
    agent.flush()
    mem = Memory(settings=settings)
    assert mem.stats(Memory.namespace_for_user("eve", "shop"))["user_id"] == "eve"
    assert mem.stats(Memory.namespace_for_user(42, "shop"))["user_id"] == "42"
    assert mem.stats("shared")["user_id"] == ""
