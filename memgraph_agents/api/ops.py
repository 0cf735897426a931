"""The coroutines behind ``Memory``: search (one namespace or several), ask, forget, stats.

Every door that turns a question into evidence — ``Memory``, the agent tools and
``MemoryRetriever``, ``MemgraphStore``, the MCP server, ``memgraph ask`` / ``demo``, the
exported graphs — ends in ``retrieval``: one place that opens the namespace, runs the
retriever (the navigator as the async graph it is; a one-shot retriever in a worker thread)
and hands it the settings' chat model. Callers resolve the settings first (``MemoryContext``
→ ``Settings``), the retriever (``Settings.default_retriever`` when none is named) and ``k``
(``Settings.top_k``), so the same settings give the same evidence at every door.

They run on the shared background loop (``memgraph_agents.aio.background``); blocking work
(SQLite, Chroma) goes to worker threads. Stores come from ``runtime.get_store`` (opened once
per process).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memgraph_agents.api.request import SearchRequest
from memgraph_agents.api.results import AskResult, ForgetReport, Found
from memgraph_agents.api.scopes import merge_namespaces
from memgraph_agents.api.stream import stream_sink, streamed_navigation
from memgraph_agents.config import Settings
from memgraph_agents.datadir import check_data_dir
from memgraph_agents.errors import InputError
from memgraph_agents.model.depth import RANK_DEPTH
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.filters import MemoryFilter
from memgraph_agents.model.outcome import EmptyReason, one_reason
from memgraph_agents.registry import is_navigator, resolve, retrieve
from memgraph_agents.retrieval.protocols import Retriever
from memgraph_agents.retrieval.scope import scoped
from memgraph_agents.runtime import forget_store, get_chat_model, get_embedding_model, get_store
from memgraph_agents.storage.drop import drop_namespace
from memgraph_agents.storage.graph_store import namespace_exists
from memgraph_agents.storage.namespaces import validate_stored_name
from memgraph_agents.storage.protocols import StoreReader
from memgraph_agents.storage.stats import missing_namespace, namespace_stats


def exists(settings: Settings, namespace: str) -> bool:
    return namespace_exists(settings, validate_stored_name(namespace))


def open_store(settings: Settings, namespace: str):
    """The namespace's store; ``NamespaceNotFoundError`` listing the stored ones when missing."""
    check_data_dir(settings.data_dir)  # a file, under a file, read-only: say so, not "no namespace"
    if not exists(settings, namespace):
        raise missing_namespace(settings.data_dir, namespace, settings.graph_url, settings.store_id)
    return get_store(settings, namespace, create=False)


def _question(text: str, settings: Settings) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InputError("the question is empty")
    return settings.limits.check_query(text)


@dataclass
class Retrieval:
    """What one question found: the evidence (best first: at most k ranked items, then the
    generated items a preset adds, such as ``sgmem``'s summaries), how, and at what LLM cost.

    ``navigation`` is the navigator's full result (path, subgoals, answer) when it ran;
    ``usage`` and ``notes`` are the LLM calls and fallbacks of a one-shot retriever's LLM steps;
    ``empty`` says why nothing was searched (a namespace with no memory), else ``""``;
    ``evidence`` is what the relevance gate ``gate`` (the whole ranking or nothing, decided on
    ``question_relevance``: ``retrieval.gate``) or the per-item floor ``min_score`` kept of a
    ranking whose best relevance was ``best_relevance``; ``reason`` says why it is empty
    (``None``: it is not)."""

    retriever: str
    evidence: list[Evidence] = field(default_factory=list)
    navigation: Any = None  # navigator.run.NavigationResult
    usage: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    empty: str = ""
    min_score: float = 0.0  # the per-item relevance floor applied
    best_relevance: float | None = None  # the best relevance of the ranking, before the gate and floor
    gate: float = 0.0  # the question-level relevance gate applied
    question_relevance: float | None = None  # the gate's signal: the namespace's best match (retrieval.gate)
    reason: EmptyReason | None = None

    def why(self, namespace: str) -> str:
        """Why nothing was found, one sentence ("" when something was)."""
        if self.reason is None:
            return ""
        if self.reason is EmptyReason.BELOW_GATE:
            return self.empty or self.reason.explain(namespace, self.question_relevance, self.gate)
        return self.empty or self.reason.explain(namespace, self.best_relevance, self.min_score)


async def navigation(
    settings: Settings,
    store,
    question: str,
    k: int,
    llm,
    retriever: str = "navigator",
    config: Mapping[str, Any] | None = None,
):
    """The navigator graph run on ``store`` (LLM policy when ``llm`` is given), its full result.
    Its parameters: the settings' (``NavigatorContext.from_settings``), then ``retriever``'s
    preset's; ``config`` (a LangChain run config: callbacks, tags…) reaches the graph."""
    # lazy: the navigator (and its run context) is LangGraph's runtime: a retriever that is no graph never loads it
    from memgraph_agents.api.run_context import navigator_context
    from memgraph_agents.navigator import anavigate

    ctx = navigator_context(settings, store.namespace, "llm" if llm is not None else "offline", resolve(retriever)[1])
    sink = stream_sink()  # Memory.astream: the same run, its chunks handed on as they come
    if sink is not None:
        return await streamed_navigation(sink, question, store, ctx, llm, k, config)
    return await anavigate(question, store, context=ctx, llm=llm, k=k, config=config)


def _opened_and_judged(
    settings: Settings, req: SearchRequest, gate: float
) -> tuple[StoreReader | None, EmptyReason | None, float | None, float]:
    """The namespace's store seen through the request's filter (``_open_reader``), the question's
    relevance in it and the gate in force for it (decided once per question, on the question and
    the whole namespace, never on k or a filter)."""
    store, why = _open_reader(settings, req.namespace, req.filter)
    if store is None:
        return None, why, None, gate
    whole = getattr(store, "store", store)
    signal = _question_relevance(req.query, whole)
    if gate > 0:
        gate = _gate_in_force(gate, settings.gate_per_ln_turns, whole, req.query, settings.gate_raises)
    return store, None, signal, gate


def _open_reader(
    settings: Settings, namespace: str, filter: MemoryFilter | None
) -> tuple[StoreReader | None, EmptyReason | None]:
    """The namespace's store seen through ``filter`` (``retrieval.scope``), or ``None`` and why
    not: it holds nothing yet, or nothing the filter admits (never an error: a user with
    nothing stored has nothing to recall)."""
    if not exists(settings, namespace):
        return None, EmptyReason.NOTHING_STORED
    store = get_store(settings, namespace, create=False)
    if not store.sessions():
        return None, EmptyReason.NOTHING_STORED

    reader = scoped(store, filter)
    if reader is not store and not len(reader.snapshot()):
        return None, EmptyReason.FILTERED_OUT
    return reader, None


def floored(evidence: list[Evidence], min_score: float) -> tuple[list[Evidence], float | None]:
    """``(the items at or above the relevance floor, the best relevance among all)``
    (``Evidence.relevance``; an item without one is kept)."""
    best = max((ev.relevance for ev in evidence if ev.relevance is not None), default=None)
    return [ev for ev in evidence if ev.relevance is None or ev.relevance >= min_score], best


async def retrieval(settings: Settings, req: SearchRequest) -> Retrieval:
    """Evidence for ``req.query`` in ``req.namespace``, the one path every door takes: the
    request's retriever (a name, checked by the caller, or a callable ``(query, store, *, k)``)
    over what its filter admits (``k`` items whenever that holds ``k``), with the settings' chat
    model (``settings.llm``; none offline) for the navigator's LLM policy and the LLM steps of
    the retrievers that have them, finished (``retrieval.finish``: what is current, each item's
    relevance), then judged by relevance: with a ``min_score`` (the request's, else the
    settings') items below it are dropped; without one, the relevance gate (``settings.gate``,
    named retrievers only) keeps all of them or, when the question's best match in the namespace
    is below it (``retrieval.gate``: whatever k or filter), none ("nothing relevant in memory"). A caller's own ranking is cut only at a ``min_score`` it
    names. Each item names its namespace; ``reason`` says why none is left. ``req.config`` (a
    LangChain run config) reaches the navigator graph, so the caller's callbacks see its nodes."""
    query, namespace, k, retriever = req.query, req.namespace, req.k, req.retriever
    _question(query, settings)
    name = req.retriever_name
    min_score, gate = req.min_score, 0.0
    if min_score is None:
        named = isinstance(retriever, str)
        min_score, gate = (settings.relevance_floor, settings.gate) if named else (0.0, 0.0)
    # One hand-off off the loop for the SQLite reads, the question's vector and the gate.
    store, why, signal, gate = await asyncio.to_thread(_opened_and_judged, settings, req, gate)
    if store is None:
        assert why is not None
        return Retrieval(name, empty=why.explain(namespace), reason=why)
    if gate > 0 and (signal is None or signal < gate):  # nothing relevant: the retriever need not run
        return Retrieval(name, min_score=min_score, gate=gate, question_relevance=signal, reason=EmptyReason.BELOW_GATE)
    found = await _run(settings, store, query, k, retriever, name, req.config)
    kept, found.best_relevance = floored(found.evidence, min_score)
    found.min_score, found.gate, found.question_relevance = min_score, gate, signal
    if not kept:
        found.reason = EmptyReason.BELOW_FLOOR if found.evidence else EmptyReason.NO_MATCH
    found.evidence = [ev.model_copy(update={"namespace": namespace}) for ev in kept]
    return found


def _gate_in_force(base: float, per_ln_turns: float, store, query: str, raises: tuple[float, float]) -> float:
    # lazy: the relevance gate's BM25 stack (bm25s): only when a search runs
    from memgraph_agents.retrieval.gate import gate_in_force

    return gate_in_force(base, per_ln_turns, store, query, raises)


def _question_relevance(query: str, store) -> float | None:
    # lazy: the relevance gate's BM25 stack (bm25s): only when a search runs
    from memgraph_agents.retrieval.gate import question_relevance

    return question_relevance(query, store)


async def _run(
    settings: Settings,
    store,
    query: str,
    k: int,
    retriever: str | Retriever,
    name: str,
    config: Mapping[str, Any] | None = None,
) -> Retrieval:
    if not isinstance(retriever, str):  # an application's own retriever, finished like ours
        # lazy: the finishing step's LLM stack: only for an application's own retriever
        from memgraph_agents.retrieval.finish import finish

        ranked = list(await asyncio.to_thread(retriever, query, store, k=max(k, RANK_DEPTH)))
        return Retrieval(name, await asyncio.to_thread(finish, query, store, ranked, k=k))
    llm = get_chat_model(settings)
    if is_navigator(retriever):
        nav = await navigation(settings, store, query, k, llm, retriever, config)
        return Retrieval(name, nav.ranking[:k] or nav.evidence[:k], navigation=nav)
    # lazy: LLMUsage imports LangChain's messages: importing Memory stays light
    from memgraph_agents.llm.usage import LLMUsage

    usage, notes = LLMUsage(), list[str]()
    evidence = await asyncio.to_thread(
        retrieve, retriever, query, store, k=k, llm=llm, usage=usage, llm_timeout=settings.llm_timeout, notes=notes
    )
    # at most k ranked items; a preset may add its generated items after them (sgmem's summaries)
    return Retrieval(name, list(evidence), usage=usage.snapshot(), notes=notes)


async def search(settings: Settings, req: SearchRequest) -> Found:
    """Ranked evidence from what the filter admits (``k`` items whenever that holds ``k``),
    judged by relevance as ``retrieval`` says (a ``min_score`` floor, else the relevance gate);
    ``[]`` for a namespace that holds nothing yet, or nothing relevant (never a guess), saying
    which (``Found.reason`` / ``Found.why``). Over several namespaces: one ranking
    (``api.scopes``: merged by rank, each item naming its namespace), each searched for ``k``
    items, concurrently."""
    if len(req.namespaces) == 1:
        one = await retrieval(settings, req)
        return Found(one.evidence, one.reason, one.why(req.namespace))
    _question(req.query, settings)
    found = await asyncio.gather(*(retrieval(settings, req.at(ns)) for ns in req.namespaces))
    merged = merge_namespaces([(ns, f.evidence) for ns, f in zip(req.namespaces, found, strict=True)], req.k)
    reason = None if merged else one_reason([f.reason for f in found])
    return Found(merged, reason, "; ".join(f"{ns}: {f.why(ns)}" for ns, f in zip(req.namespaces, found, strict=True)))


async def ask(settings: Settings, req: SearchRequest) -> AskResult:
    """Evidence and trace always; an answer when a chat model is configured and memory holds
    something relevant. With ``filter`` the whole search (and so the answer) sees only what it
    admits. ``outcome``: found | nothing_relevant (below the gate or the floor) | no_memory
    (nothing stored, or nothing the filter admits); ``reason`` says which."""
    question, namespace = req.query, req.namespace
    found = await retrieval(settings, req)
    out = AskResult(question=question, namespace=namespace, retriever=found.retriever, evidence=found.evidence)
    out.reason = found.reason
    if found.empty:
        out.trace = [found.empty]
        out.outcome = "no_memory"
        return out
    out.best_relevance, out.min_score, out.gate = found.best_relevance, found.min_score, found.gate
    out.question_relevance = found.question_relevance
    if not out.evidence:
        out.outcome = "nothing_relevant"
        out.trace = [found.why(namespace)]
        return out
    nav = found.navigation
    if nav is not None:
        out.navigation = nav
        out.answer, out.trace, out.counters = nav.answer, nav.trace_lines(), dict(nav.counters)
        out.cited_turns = cited_in(nav.answer or "", out.evidence + nav.evidence)
        return out
    out.trace = [
        f"{i}. {ev.node_id} ({ev.score:.3f}) via {' -> '.join(ev.path) or ev.node_id}"
        for i, ev in enumerate(out.evidence, start=1)
    ]
    llm = get_chat_model(settings)
    if llm is not None:
        # lazy: the answer step and its LLM stack: only with a chat model
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
    session named, the whole namespace. Needs no embedding model (``storage.model_free``)."""
    # lazy: opens a MemoryStore (the embedding stack, LangChain): only for a delete
    from memgraph_agents.storage.model_free import open_to_delete

    check_data_dir(settings.data_dir)
    if not exists(settings, namespace):
        raise missing_namespace(settings.data_dir, namespace, settings.graph_url, settings.store_id)
    own = open_to_delete(settings, namespace)
    store = own if own is not None else open_store(settings, namespace)
    try:
        stored = [s["id"] for s in store.sessions()]
        if not sessions:
            if own is not None:
                own.close()
                own = None
            forget_store(settings, namespace)
            drop_namespace(settings, namespace)
            return ForgetReport(namespace=namespace, sessions=stored, namespace_deleted=True)
        missing = [s for s in sessions if s not in stored]
        if missing:
            raise InputError(f"no session {missing[0]!r} in namespace {namespace!r}")
        removed = 0
        for sid in sessions:
            removed += int(store.delete_session(sid).get("nodes_removed", 0))
    finally:
        if own is not None:
            own.close()
    return ForgetReport(namespace=namespace, sessions=list(sessions), nodes_removed=removed)


def stats(settings: Settings, namespace: str) -> dict:
    """Sessions, nodes and edges by kind, vectors and bytes on disk, and the presets used.
    Read from the graph store alone (``storage.stats``): no Chroma, no embedding model."""

    return namespace_stats(settings.data_dir, validate_stored_name(namespace), settings.graph_url, settings.store_id)


def reembed(settings: Settings, namespace: str, progress=None):
    """Re-embed ``namespace`` with ``settings.embeddings`` (``storage.reembed``: atomic, crash-safe);
    a ``ReembedResult``. Stores this process holds open on the namespace are closed first and
    opened again, with the new vectors, when next used."""
    # lazy: MemoryStore and re-embedding pull the embedding stack: only for reembed
    from memgraph_agents.storage import MemoryStore
    from memgraph_agents.storage.reembed import reembed_store

    check_data_dir(settings.data_dir)
    if not exists(settings, namespace):
        raise missing_namespace(settings.data_dir, namespace, settings.graph_url, settings.store_id)
    forget_store(settings, namespace)
    store = MemoryStore.open(
        settings, namespace, create=False, embedder=get_embedding_model(settings), check_model=False
    )
    try:
        return reembed_store(store, progress)
    finally:
        store.close()
