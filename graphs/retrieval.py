"""The retrieval graph: one node per retriever and preset; the run context picks which one runs.

    START ──route──> dense | bm25 | hybrid | ppr | sentence_hop | dwpr | … ──> END

Every retriever node reads ``query`` / ``k`` and writes ``evidence`` and ``usage``; the
conditional edge declares its ``path_map`` so the drawing shows every choice. The retriever is
the context's ``retriever``, else ``MEMGRAPH_RETRIEVER`` (``Settings.retriever``, default ``ppr``);
``k`` is the input's, else the context's ``top_k`` (else ``MEMGRAPH_TOP_K``).

When the context configures a chat model (``llm``), it is handed to the retrievers that take
one (``ppr``: EMem's mention detection and recall filter; ``navigator``: its LLM policy), and
``usage`` reports the calls and tokens the question cost (all zero offline).
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.registry import get_retriever, retrieve, retriever_names
from memgraph_agents.runtime import MemoryContext, get_chat_model, get_store


class RetrievalState(TypedDict, total=False):
    query: str
    k: int
    evidence: list[Evidence]
    usage: dict  # LLMUsage.snapshot(): calls, failures, retries, tokens, seconds


def retriever_node(name: str):
    """A node running the retriever ``name`` on the context's namespace."""

    def run(state: RetrievalState, runtime: Runtime[MemoryContext]) -> dict:
        settings = (runtime.context or MemoryContext()).settings()
        store = get_store(settings, create=False)
        k = state.get("k") or settings.top_k
        usage = LLMUsage()
        evidence = retrieve(
            name,
            state.get("query", ""),
            store,
            k=k,
            llm=get_chat_model(settings),
            usage=usage,
            llm_timeout=settings.llm_timeout,
        )
        return {"evidence": evidence, "usage": usage.snapshot()}

    run.__name__ = name
    return run


def route(state: RetrievalState, runtime: Runtime[MemoryContext]) -> str:
    """The retriever to run (``ValueError`` naming the choices for an unknown one)."""
    ctx = runtime.context or MemoryContext()
    name = ctx.retriever or ctx.settings().retriever  # Settings.retriever: MEMGRAPH_RETRIEVER, default navigator
    get_retriever(name)
    return name


def build_retrieval_graph():
    g = StateGraph(RetrievalState, context_schema=MemoryContext)
    names = retriever_names()  # retrievers, then presets (their retriever with its parameters)
    for name in names:
        g.add_node(name, retriever_node(name))
        g.add_edge(name, END)
    g.add_conditional_edges(START, route, {name: name for name in names})
    return g.compile()


graph = build_retrieval_graph()
