"""The coroutines behind ``Memory``: search, ask, forget, stats on one namespace.

They run on the shared background loop (``memgraph_agents.aio.background``); blocking work
(SQLite, Chroma, a one-shot retriever) goes to worker threads, the navigator runs as the
async graph it is. Stores come from ``runtime.get_store`` (opened once per process).
"""

from __future__ import annotations

import asyncio
import re

from memgraph_agents.api.results import AskResult, ForgetReport
from memgraph_agents.config import Settings
from memgraph_agents.datadir import check_data_dir
from memgraph_agents.errors import InputError
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.registry import is_navigator
from memgraph_agents.runtime import forget_store, get_chat_model, get_store
from memgraph_agents.storage.namespaces import validate_stored_name


def exists(settings: Settings, namespace: str) -> bool:
    from memgraph_agents.storage.graph_store import namespace_exists

    return namespace_exists(settings, validate_stored_name(namespace))


def open_store(settings: Settings, namespace: str):
    """The namespace's store; ``NamespaceNotFoundError`` listing the stored ones when missing."""
    check_data_dir(settings.data_dir)  # a file, under a file, read-only: say so, not "no namespace"
    if not exists(settings, namespace):
        from memgraph_agents.storage.stats import missing_namespace

        raise missing_namespace(settings.data_dir, namespace, settings.graph_url, settings.store_id)
    return get_store(settings, namespace, create=False)


def _question(text: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InputError("the question is empty")
    return text


async def navigation(settings: Settings, store, question: str, k: int, llm):
    """The navigator on ``store`` (LLM policy when ``llm`` is given), its full result."""
    from memgraph_agents.navigator import NavigatorContext, anavigate

    ctx = NavigatorContext.from_settings(
        settings.override(namespace=store.namespace), policy="llm" if llm is not None else "offline"
    )
    return await anavigate(question, store, context=ctx, llm=llm, k=k)


async def search(settings: Settings, namespace: str, query: str, k: int, retriever: str) -> list[Evidence]:
    """Ranked evidence; ``[]`` for a namespace that holds nothing yet (never a guess)."""
    _question(query)
    if not await asyncio.to_thread(exists, settings, namespace):
        return []
    store = await asyncio.to_thread(get_store, settings, namespace, create=False)
    if not await asyncio.to_thread(store.sessions):  # SQLite: off the loop (blockbuster-clean)
        return []
    llm = get_chat_model(settings)
    if is_navigator(retriever):
        return (await navigation(settings, store, query, k, llm)).ranking[:k]
    from memgraph_agents.registry import retrieve

    evidence = await asyncio.to_thread(
        retrieve, retriever, query, store, k=k, llm=llm, llm_timeout=settings.llm_timeout
    )
    return list(evidence)[:k]


async def ask(settings: Settings, namespace: str, question: str, k: int, retriever: str) -> AskResult:
    """Evidence and trace always; an answer when a chat model is configured."""
    _question(question)
    out = AskResult(question=question, namespace=namespace, retriever=retriever)
    llm = get_chat_model(settings)
    store = None
    if await asyncio.to_thread(exists, settings, namespace):
        store = await asyncio.to_thread(get_store, settings, namespace, create=False)
    if store is None or not await asyncio.to_thread(store.sessions):
        out.trace = [f"namespace {namespace!r} holds no memory yet"]
        return out
    if is_navigator(retriever):
        nav = await navigation(settings, store, question, k, llm)
        out.evidence, out.answer, out.trace = nav.ranking[:k], nav.answer, nav.trace_lines()
        out.counters = dict(nav.counters)
        out.cited_turns = cited_in(nav.answer or "", out.evidence + nav.evidence)
        return out
    out.evidence = await search(settings, namespace, question, k, retriever)
    out.trace = [
        f"{i}. {ev.node_id} ({ev.score:.3f}) via {' -> '.join(ev.path) or ev.node_id}"
        for i, ev in enumerate(out.evidence, start=1)
    ]
    if llm is not None:
        from memgraph_agents.llm.answer import aanswer
        from memgraph_agents.llm.usage import LLMUsage

        usage = LLMUsage()
        written = await aanswer(llm, question, out.evidence, usage=usage, timeout=settings.llm_timeout)
        out.answer, out.cited_turns = written.answer, list(written.turn_ids)
        out.counters = {k_: float(v) for k_, v in usage.snapshot().items() if isinstance(v, (int, float))}
    return out


def cited_in(answer: str, evidence: list[Evidence]) -> list[str]:
    """The evidence turn ids an answer cites (the prompts ask for "(S2:4)"-style citations)."""
    known = dict.fromkeys(t for ev in evidence for t in ev.turn_ids)
    return [t for t in known if re.search(rf"(?<![\w:]){re.escape(t)}(?![\w:])", answer)]


def forget(settings: Settings, namespace: str, sessions: list[str]) -> ForgetReport:
    """Delete ``sessions`` of ``namespace`` (each exactly: what it produced), or, with no
    session named, the whole namespace."""
    from memgraph_agents.storage.drop import drop_namespace

    store = open_store(settings, namespace)
    if not sessions:
        names = [s["id"] for s in store.sessions()]
        forget_store(settings, namespace)
        drop_namespace(settings, namespace)
        return ForgetReport(namespace=namespace, sessions=names, namespace_deleted=True)
    stored = {s["id"] for s in store.sessions()}
    missing = [s for s in sessions if s not in stored]
    if missing:
        raise InputError(f"no session {missing[0]!r} in namespace {namespace!r}")
    removed = 0
    for sid in sessions:
        removed += int(store.delete_session(sid).get("nodes_removed", 0))
    return ForgetReport(namespace=namespace, sessions=list(sessions), nodes_removed=removed)


def stats(settings: Settings, namespace: str) -> dict:
    """Sessions, nodes and edges by kind, vectors and bytes on disk, and the presets used.
    Read from the graph store alone (``storage.stats``): no Chroma, no embedding model."""
    from memgraph_agents.storage.stats import namespace_stats

    return namespace_stats(settings.data_dir, validate_stored_name(namespace), settings.graph_url, settings.store_id)
