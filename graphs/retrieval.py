"""The retrieval graph: one node per retriever, the run context picks which one runs.

    START ──route──> dense | bm25 | hybrid | ppr | sentence_hop | dwpr ──> END

Every retriever node reads ``query`` / ``k`` and writes ``evidence``; the conditional edge
declares its ``path_map`` so the drawing shows every choice.
"""

from __future__ import annotations

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.registry import DEFAULT_RETRIEVER, RETRIEVERS, get_retriever
from memgraph_agents.runtime import MemoryContext, get_store


class RetrievalState(TypedDict, total=False):
    query: str
    k: int
    evidence: list[Evidence]


def retriever_node(name: str):
    def run(state: RetrievalState, runtime: Runtime[MemoryContext]) -> dict:
        ctx = runtime.context or MemoryContext()
        settings = ctx.settings()
        store = get_store(settings, create=False)
        k = state.get("k") or settings.top_k
        return {"evidence": get_retriever(name)(state["query"], store, k=k)}

    run.__name__ = name
    return run


def route(state: RetrievalState, runtime: Runtime[MemoryContext]) -> str:
    name = (runtime.context.retriever if runtime.context else "") or DEFAULT_RETRIEVER
    get_retriever(name)  # clear error for an unknown name
    return name


def build_retrieval_graph():
    g = StateGraph(RetrievalState, context_schema=MemoryContext)
    for name in RETRIEVERS:
        g.add_node(name, retriever_node(name))
        g.add_edge(name, END)
    g.add_conditional_edges(START, route, {name: name for name in RETRIEVERS})
    return g.compile()


graph = build_retrieval_graph()
