"""The retrieval graph: one node per retriever and preset; the run context picks which one runs.

    START ──route──> dense | bm25 | hybrid | ppr | sentence_hop | dwpr | fusion | navigator | … ──> END

Every node is the engine's one path from a question to evidence (``api.ops.retrieval``, as
``Memory.search``): it reads ``query`` / ``k`` and writes ``evidence`` (``Evidence`` as JSON),
``citations`` (each item's one line, its marks included: ``Evidence.cite``) and ``usage``. The conditional edge declares its ``path_map`` so the drawing shows every choice.
The retriever is the context's ``retriever``, else the preset's, else ``Settings.retriever``
(``MEMGRAPH_RETRIEVER``, default ``navigator``): ``runtime.run_retriever``, every door's rule;
``k`` is the input's, else the context's ``top_k`` (else ``MEMGRAPH_TOP_K``, 10).

When the context configures a chat model (``llm``), it is handed to the retrievers that take
one (``ppr``: EMem's mention detection and recall filter; ``navigator``: its LLM policy), and
``usage`` reports the calls and tokens the question cost (all zero offline).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from memgraph_agents.aio import background
from memgraph_agents.api import ops
from memgraph_agents.api.overrides import check_k
from memgraph_agents.api.request import search_request
from memgraph_agents.config import Settings
from memgraph_agents.registry import get_retriever, retriever_names
from memgraph_agents.runtime import MemoryContext, run_retriever, settings_for


class RetrievalInput(TypedDict, total=False):
    query: str
    k: int  # evidence items (default: the context's top_k, else MEMGRAPH_TOP_K)


class RetrievalState(RetrievalInput, total=False):
    evidence: list[dict[str, Any]]  # ``Evidence.model_dump(mode="json")``, best first
    citations: list[str]  # ``Evidence.cite()`` of each: dates, turn ids, "(superseded on DATE by TURN)"
    usage: dict[str, Any]  # LLM calls, failures, retries, tokens, seconds (navigator: its counters)


def _settings(runtime: Runtime[MemoryContext]) -> Settings:
    return settings_for(runtime.context or MemoryContext())


def retriever_node(name: str):
    """A node running the retriever ``name`` on the context's namespace."""

    def run(state: RetrievalState, runtime: Runtime[MemoryContext]) -> dict:
        # Sync, so ``graph.invoke`` works too; under ``ainvoke`` LangGraph runs it in a worker
        # thread, and the search itself runs on the engine's background loop as Memory.search does.
        settings = _settings(runtime)
        k = check_k(state.get("k") or None, settings.top_k)
        req = search_request(query=state.get("query", ""), namespaces=(settings.namespace,), k=k, retriever=name)
        found = background.run(ops.retrieval(settings, req))
        usage = dict(found.navigation.counters) if found.navigation is not None else found.usage
        return {
            "evidence": [ev.model_dump(mode="json") for ev in found.evidence],
            "citations": [ev.cite() for ev in found.evidence],
            "usage": usage,
        }

    run.__name__ = name
    return run


def route(state: RetrievalState, runtime: Runtime[MemoryContext]) -> str:
    """The retriever to run (``ValueError`` naming the choices for an unknown one)."""
    name = run_retriever(runtime.context, _settings(runtime))  # the context's, else the preset's, else the env's
    get_retriever(name)
    return name


def build_retrieval_graph(checkpointer: Any = None):
    g = StateGraph(RetrievalState, input_schema=RetrievalInput, context_schema=MemoryContext)
    names = retriever_names()  # retrievers, then presets (their retriever with its options)
    for name in names:
        g.add_node(name, retriever_node(name))
        g.add_edge(name, END)
    g.add_conditional_edges(START, route, {name: name for name in names})
    return g.compile(checkpointer=checkpointer, name="retrieval")


graph = build_retrieval_graph()
