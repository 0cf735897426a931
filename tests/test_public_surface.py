"""The public surface (issue 30 item 10): every error class the docs name and every one the
package defines for users is importable from ``memgraph_agents``, with the item types; every
verb of ``Memory`` has its async twin."""

from __future__ import annotations

import asyncio
import builtins
import inspect
import re
from pathlib import Path

import memgraph_agents
from memgraph_agents import MemgraphError, Memory

ROOT = Path(__file__).resolve().parents[1]
BUILTIN = set(dir(builtins))
PROGRAMMING_ERRORS = {"NeedsLoopError"}  # a RuntimeError for misuse of the event-loop helper


def _named_in_docs() -> set[str]:
    text = (ROOT / "README.md").read_text() + "".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    return {n for n in re.findall(r"\b([A-Z][A-Za-z]*Error)\b", text) if n not in BUILTIN}


def _defined_in_package() -> set[str]:
    found = set()
    for folder in ("memgraph_agents", "integrations", "graphs"):
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(re.findall(r"^class (\w+Error)\(", path.read_text(), flags=re.M))
    return found - PROGRAMMING_ERRORS


def test_every_error_class_named_or_defined_is_importable_from_the_package():
    names = _named_in_docs() | _defined_in_package()
    assert {"DataDirInUseError", "WriterBusyError", "EmbeddingMismatchError", "DiskFullError"} <= names
    missing = sorted(n for n in names if n not in memgraph_agents.__all__)
    assert not missing, missing
    for name in names:
        cls = getattr(memgraph_agents, name)
        assert isinstance(cls, type) and issubclass(cls, MemgraphError), name
    from memgraph_agents import ItemPage, LLMTimeoutError, MemoryItem, NoteHistory

    assert issubclass(LLMTimeoutError, memgraph_agents.LLMError)
    assert {ItemPage.__name__, MemoryItem.__name__, NoteHistory.__name__} == {"ItemPage", "MemoryItem", "NoteHistory"}


def test_every_verb_has_an_async_twin(tmp_path):
    # close() lets go of model objects (no I/O to await); astream is the async-only live view of a run
    not_verbs = {"user", "namespace_for_user", "close", "astream"}
    members = {n for n, _ in inspect.getmembers(Memory, inspect.isfunction) if not n.startswith("_")}
    twins = {n for n in members if n.startswith("a") and n[1:] in members}
    verbs = sorted(members - twins - not_verbs)
    assert {
        "add",
        "search",
        "ask",
        "list",
        "get",
        "update",
        "history",
        "forget",
        "stats",
        "reembed",
        "namespaces",
    } <= set(verbs)
    for name in verbs:
        twin = getattr(Memory, f"a{name}", None)
        assert twin is not None and inspect.iscoroutinefunction(twin), name
        sync, coro = inspect.signature(getattr(Memory, name)), inspect.signature(twin)
        assert list(sync.parameters) == list(coro.parameters), name
    mem = Memory(tmp_path / "mem", embeddings="hash")
    mem.add("The boat leaves at nine.", namespace="n")
    assert asyncio.run(mem.anamespaces()) == mem.namespaces() == ["n"]
    assert asyncio.run(mem.areembed("n")).vectors == 0  # already this model's


# --------------------------------------------------------------------------- MemgraphStore parity (item 9)


def _pair(tmp_path):
    from langgraph.store.memory import InMemoryStore

    from memgraph_agents.config import Settings
    from memgraph_agents.embeddings.hashing import HashEmbeddings
    from memgraph_agents.integrations import MemgraphStore

    memory = InMemoryStore(index={"dims": 64, "embed": HashEmbeddings(64)})
    return memory, MemgraphStore(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash"))


def test_store_query_scores_every_indexed_item_and_lists_unindexed_ones_last(tmp_path):
    for store in _pair(tmp_path):
        store.put(("u",), "kiwi", {"content": "Lior grows kiwis on the balcony."})
        store.put(("u",), "cat", {"content": "Noa's cat is called Miso."})
        store.put(("u",), "soil", {"content": "Buy soil for the kiwis."}, index=False)
        store.put(("u",), "fern", {"content": "x", "about": "the fern needs shade"}, index=["about"])
        hits = store.search(("u",), query="kiwis balcony", limit=10)
        assert [h.key for h in hits][-1] == "soil" and hits[-1].score is None, type(store).__name__
        assert all(h.score is not None for h in hits[:-1]) and {h.key for h in hits} == {"kiwi", "cat", "soil", "fern"}
        assert hits[0].key == "kiwi", (type(store).__name__, [(h.key, h.score) for h in hits])


def test_store_values_come_back_as_put_or_are_refused(tmp_path):
    import math

    import pytest

    from memgraph_agents.errors import InputError

    _, store = _pair(tmp_path)
    value = {"content": "a note", "n": 2**62, "f": 1.5, "nested": {"list": [1, "a", None, True]}, "empty": {}}
    store.put(("u",), "k", value)
    assert store.get(("u",), "k").value == value
    for bad, says in (
        ({"content": "x", "ids": {1: "one"}}, "key 1 is not a string"),
        ({"content": "x", "n": 10**30}, "range"),
        ({"content": "x", "f": math.nan}, "not a JSON number"),
        ({"content": "x", "when": object()}, "not a JSON value"),
    ):
        with pytest.raises(InputError, match=says):
            store.put(("u",), "k", bad)
    assert store.get(("u",), "k").value == value  # unchanged


def test_the_store_uses_no_private_langgraph_helpers():
    text = (ROOT / "integrations" / "store.py").read_text() + (ROOT / "integrations" / "store_items.py").read_text()
    assert "_compare_values" not in text and "_does_match" not in text


# --------------------------------------------------------------------------- one model per Memory (item 8)


def test_two_memories_with_models_of_one_class_keep_their_own(tmp_path):
    from memgraph_agents.embeddings.hashing import HashEmbeddings
    from memgraph_agents.runtime import get_embedding_model, get_store

    class Named(HashEmbeddings):
        model = "same-name"

    first, second = Named(24), Named(24)
    a = Memory(tmp_path / "mem", embeddings=first, namespace="n")
    a.add("Pilar planted tulips along the fence in March.")
    b = Memory(tmp_path / "mem", embeddings=second, namespace="n")
    # One name (the identity their vectors record), two objects: each Memory resolves its own.
    assert a.settings.embeddings == b.settings.embeddings == "custom:Named:same-name"
    assert get_embedding_model(a.settings).inner is first and get_embedding_model(b.settings).inner is second
    assert get_store(a.settings).embedder.inner is first  # a did not switch to b's model
    assert get_store(b.settings).embedder.inner is second
    # both record the same identity: the same model's vectors, so b reads what a wrote
    assert get_embedding_model(a.settings).name == get_embedding_model(b.settings).name == "Named:same-name"
    assert b.search("Who planted tulips?", k=1, retriever="dense")[0].text.endswith("in March.")
    a.close()
    assert get_store(b.settings).embedder.inner is second  # b's stores are its own: a's close left them


def test_model_objects_are_released_when_the_memory_is_closed_or_collected(tmp_path):
    import gc
    import weakref

    import pytest

    from memgraph_agents.embeddings.hashing import HashEmbeddings
    from memgraph_agents.errors import ConfigError
    from memgraph_agents.resources import MemoryClosedError
    from memgraph_agents.runtime import get_chat_model
    from tests.fakes import ScriptedChatModel

    emb, llm = HashEmbeddings(16), ScriptedChatModel(responder=lambda messages: "{}")
    alive = [weakref.ref(emb), weakref.ref(llm)]
    mem = Memory(tmp_path / "mem", embeddings=emb, llm=llm, namespace="n")
    mem.add("A note to open a store with this model.")
    child = mem.user("ana")
    assert get_chat_model(child.settings) is llm  # a view holds its memory's objects
    del emb, llm
    mem.close()
    with pytest.raises(MemoryClosedError):  # closed with it
        child.search("note")
    del child, mem
    gc.collect()
    assert all(ref() is None for ref in alive)  # released: nothing in the process keeps them
    # A spec naming an object outside any Memory is refused, never another object of that name.
    with pytest.raises(ConfigError, match="no chat model registered"):
        get_chat_model(Memory(tmp_path / "mem", llm="custom:ScriptedChatModel").settings)
