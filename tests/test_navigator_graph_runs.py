"""Every door runs the compiled navigator graph (``navigator.graph.graph``), not a copy of it.

A callback handler given by the caller (``Memory.search(config=...)``, an agent's run config
reaching the ``recall`` tool) records the graph's node names; the doors that take no run
config (``MemgraphStore``, the MCP server, the CLI) are watched by a handler the compiled
graph's own ``ainvoke`` adds. ``astream_navigate`` streams the same run ``navigate`` returns."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from memgraph_agents.api import Memory
from memgraph_agents.config import Settings
from memgraph_agents.navigator import NavigationResult, NavigatorContext, astream_navigate, navigate
from tests.test_navigator_support import NS, build_memory, decisions, strip_timing

Q_TWO = "When did Ben run the Lisbon half marathon and what was his time?"
NODES = {"planner", "localize", "respond"}


class NodeRecorder(BaseCallbackHandler):
    """The LangGraph node of every chain run it sees (``metadata["langgraph_node"]``)."""

    run_inline = True

    def __init__(self) -> None:
        self.nodes: list[str] = []

    def on_chain_start(self, serialized, inputs, *, metadata=None, **kwargs: Any) -> None:
        node = (metadata or {}).get("langgraph_node")
        if node:
            self.nodes.append(node)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("navgraph") / "mem"


@pytest.fixture(scope="module")
def store(root):
    return build_memory(root)


@pytest.fixture
def settings(store, root) -> Settings:
    return Settings(data_dir=root, embeddings="hash", namespace=NS, retriever="navigator")


@pytest.fixture
def watched(monkeypatch):
    """A recorder the compiled graph's own ``ainvoke`` adds to every run (for doors without a config)."""
    from memgraph_agents.navigator import graph as graph_module

    compiled, recorder = graph_module.graph, NodeRecorder()

    class Watched:
        def __getattr__(self, name: str) -> Any:
            return getattr(compiled, name)

        async def ainvoke(self, inputs, config=None, **kwargs):
            config = dict(config or {})
            config["callbacks"] = [*(config.get("callbacks") or []), recorder]
            return await compiled.ainvoke(inputs, config, **kwargs)

    monkeypatch.setattr(graph_module, "graph", Watched())
    return recorder


def test_memory_search_and_ask_run_the_compiled_graph_with_the_callers_callbacks(settings):
    memory = Memory(settings=settings)
    for call in (memory.search, memory.ask):
        rec = NodeRecorder()
        call(Q_TWO, config={"callbacks": [rec], "tags": ["mine"]})
        assert NODES <= set(rec.nodes) and "explore" in rec.nodes
        assert rec.nodes[0] == "planner" and rec.nodes[-1] == "respond"


def test_the_recall_tool_passes_the_agents_callbacks_to_the_graph(settings):
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage

    from memgraph_agents.integrations import create_memory_tools
    from tests.fakes import ScriptedChatModel

    def respond(messages):
        if isinstance(messages[-1], HumanMessage):
            call = {"name": "recall", "args": {"query": Q_TWO}, "id": "r1", "type": "tool_call"}
            return AIMessage(content="", tool_calls=[call])
        return "done"

    agent = create_agent(ScriptedChatModel(responder=respond), tools=create_memory_tools(settings))
    rec = NodeRecorder()
    agent.invoke({"messages": [HumanMessage("a question")]}, {"callbacks": [rec]})  # no user: settings' namespace
    assert "tools" in rec.nodes  # the agent's own node, then the navigator's inside the tool call
    assert NODES <= set(rec.nodes) and "explore" in rec.nodes


def test_the_store_the_mcp_server_and_the_cli_run_the_compiled_graph(settings, watched, capsys):
    from memgraph_agents.cli.main import main
    from memgraph_agents.integrations import MemgraphStore
    from memgraph_agents.integrations.mcp_server import MemoryServer

    store = MemgraphStore(settings=settings)
    store.put(("notes",), "race", {"text": "Ben ran the Lisbon half marathon in March, in 1:52."})
    assert store.search(("notes",), query=Q_TWO)
    assert NODES <= set(watched.nodes)
    watched.nodes.clear()
    asyncio.run(MemoryServer(settings).recall(NS, Q_TWO, 5))
    assert NODES <= set(watched.nodes)
    watched.nodes.clear()
    argv = ["--data-dir", str(settings.data_dir), "--embeddings", "hash", "ask", Q_TWO, "--namespace", NS]
    assert main([*argv, "--retriever", "navigator"]) == 0
    assert NODES <= set(watched.nodes)


def _via_stream(question: str, store, context: NavigatorContext, k: int = 10) -> NavigationResult:
    async def run() -> NavigationResult:
        result = None
        async for mode, chunk in astream_navigate(question, store, context=context, k=k):
            if mode == "result":
                result = chunk
        assert isinstance(result, NavigationResult)
        return result

    return asyncio.run(run())


def _comparable(r: NavigationResult) -> dict[str, Any]:
    out = r.model_dump(mode="json")
    out["counters"].pop("wall_ms")
    out["trace"] = strip_timing(r.trace)
    return out


@pytest.mark.parametrize("params", [{}, {"satisfy_sim": 9.0, "satisfy_os": 9.0}])
def test_the_stream_is_the_same_run(store, params):
    ctx = NavigatorContext(policy="offline", **params)
    ran, streamed = navigate(Q_TWO, store, context=ctx, k=5), _via_stream(Q_TWO, store, ctx, k=5)
    assert ran.ranking and decisions(ran)
    assert _comparable(ran) == _comparable(streamed)


def test_parallel_explorers_merge_through_the_reducers(store):
    r = navigate(Q_TWO, store, context=NavigatorContext(policy="offline"))
    first = [d for d in decisions(r) if d["wave"] == 1]
    assert len({d["explorer"] for d in first}) == len(first) == 3  # one wave, three explorers


def test_the_graphs_input_is_the_question_and_k():
    from memgraph_agents.navigator.graph import graph

    assert set(graph.get_input_jsonschema()["properties"]) == {"question", "k"}


def test_the_localize_node_is_the_one_configuration_chooses(settings, store):
    """A retriever registered once and named in ``Settings.localize`` is the localize node that
    runs (a question the seed meets returns its ranking); ``Memory.search`` takes a callable."""
    from memgraph_agents.errors import ConfigError
    from memgraph_agents.registry import REGISTERED, register_retriever, retrieve

    calls: list[str] = []

    def reversed_dense(query, store, *, k=10):
        calls.append(query)
        return list(reversed(retrieve("dense", query, store, k=k)))

    register_retriever("reversed_dense", reversed_dense)
    try:
        memory = Memory(settings=settings.override(localize="reversed_dense"))
        rec = NodeRecorder()
        q = "What did Pixel chew?"
        got = memory.search(q, k=5, config={"callbacks": [rec]})
        assert calls and calls[0] == q and "localize" in rec.nodes
        assert [e.turn_ids[0] for e in got] == [e.turn_ids[0] for e in reversed_dense(q, store, k=50)][:5]
        assert Memory(settings=settings).search(q, k=5, retriever=reversed_dense)  # a callable, as the tools take
        with pytest.raises(ConfigError):
            register_retriever("ppr", reversed_dense)  # a built-in name cannot be taken
        with pytest.raises(ValueError):
            settings.override(localize="navigator")  # the navigator cannot seed itself
    finally:
        REGISTERED.pop("reversed_dense", None)


def test_memory_astream_yields_the_graphs_node_updates_and_the_result(settings):
    async def collect():
        return [chunk async for chunk in Memory(settings=settings).astream(Q_TWO, k=5)]

    chunks = asyncio.run(collect())
    updated = [next(iter(c)) for m, c in chunks if m == "updates"]
    assert updated[0] == "planner" and updated[-1] == "respond" and "explore" in updated
    mode, result = chunks[-1]  # ask's result: the gated evidence, the navigator's own run in .navigation
    assert mode == "result" and isinstance(result.navigation, NavigationResult) and len(result.navigation.ranking) >= 5
    searched = [e.node_id for e in Memory(settings=settings).search(Q_TWO, k=5)]
    assert [e.node_id for e in result.evidence] == searched
    assert [e.node_id for e in result.navigation.ranking[:5]] == searched
