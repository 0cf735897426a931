"""``Memory``: the one public entry point (``from memgraph_agents import Memory``).

    mem = Memory("/tmp/mem")                    # offline defaults: MiniLM, embedded Chroma, no LLM
    mem.add(sample_conversation())              # a pathlib.Path: a str is always a note
    for ev in mem.search("Where did Jonas travel?", k=3):
        print(ev.cite())

Every verb takes ``namespace=`` (default: ``settings.namespace``) or ``user_id=`` (that user's
namespace; ``Memory.user(user_id)`` is a ``Memory`` bound to it). Each is written once, as a
coroutine, and comes as a pair (``api.twins``): the blocking verb and its async twin (``aadd``,
``asearch``, ``aask``, ``aget``, ``alist``, ``aget_all``, ``aupdate``, ``ahistory``, ``aforget``,
``adelete``, ``aexport``, ``astats``, ``areembed``, ``anamespaces``), both running it on one shared background event loop and worker
threads, so neither blocks the caller's loop; ``astream`` is ``ask`` streamed. Search, ask and
astream build one ``SearchRequest`` (``api.build_request``). ``Memory`` is the one engine: the agent tools and turn writer,
``MemoryRetriever``, ``MemgraphStore``, the MCP server, the CLI and the exported graphs all call
it or the coroutines under it (``api.ops``, ``api.read``, ``api.notes``), so the same settings
give the same evidence at every door.

Filters (``search``, ``ask``, ``list``): ``since`` / ``until`` (a turn's date: its timestamp,
else its session's date; ``since <= date < until``), ``speaker`` (a name or a list),
``filter`` (the sessions' metadata, LangGraph store filter syntax: ``{"project": "x",
"year": {"$gte": 2024}, "tag": {"$in": ["a", "b"]}}``). They apply inside retrieval
(``retrieval.scope``): ``k`` results come back whenever ``k`` matching items exist.
"""

from __future__ import annotations

import asyncio
import builtins
import inspect
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memgraph_agents.api import ops
from memgraph_agents.api.build_request import build_search, namespace_of
from memgraph_agents.api.checks import check_flag
from memgraph_agents.api.filters import DateLike
from memgraph_agents.api.item_verbs import ItemVerbs
from memgraph_agents.api.overrides import settings_with
from memgraph_agents.api.owners import keep_user_id
from memgraph_agents.api.results import AddReport, AskResult, ForgetReport, Found
from memgraph_agents.api.sources import conversations_from, is_note_id
from memgraph_agents.api.stream import astream_of
from memgraph_agents.api.twins import twins
from memgraph_agents.config import Settings
from memgraph_agents.errors import InputError
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.model.metadata import check_metadata
from memgraph_agents.resources import bind, model_overrides
from memgraph_agents.retrieval.protocols import Retriever
from memgraph_agents.runtime import memory_resources
from memgraph_agents.storage.graph_store import stored_namespaces
from memgraph_agents.storage.namespaces import user_namespace

ProgressFn = Callable[[str, int, int], None]  # (session id, done, total)


class Memory(ItemVerbs):
    """Long-term memory of conversations in ``data_dir`` (see the module docstring).

    ``Memory(data_dir=None, *, settings=None, embeddings=None, llm=None, **overrides)``:
    ``settings`` (default: the ``MEMGRAPH_*`` environment) with ``data_dir`` and any ``Settings``
    field as an override (``top_k=5``, ``preset="sgmem"``…), validated: a bad value raises one
    ``ConfigError`` naming the field. ``embeddings`` and ``llm`` take a spec (``"minilm"``,
    ``"openai:gpt-4o-mini"``) or a model object: any LangChain ``Embeddings``, any LangChain
    chat model (held by this Memory, named ``custom:NAME`` in its settings; ``close()``).
    """

    _owner: tuple[str | int, str] | None = None  # Memory.user's (user id, prefix): adds keep it

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        embeddings: Any = None,
        llm: Any = None,
        **overrides: Any,
    ) -> None:
        if data_dir is not None:
            overrides["data_dir"] = data_dir
        # Model objects (LangChain Embeddings / chat model) live on this Memory (``resources``),
        # with the stores it opens: the settings name them and carry them down to every call.
        self._resources, self._owns = memory_resources(settings, embeddings, llm)
        overrides.update(model_overrides(embeddings, llm, self._resources))
        self.settings = bind(settings_with(settings, **overrides), self._resources)

    def close(self) -> None:
        """Close what this ``Memory`` opened: its stores' connections and files (now, or when a
        call still running on one returns) and its embedding cache; its model objects are
        then referenced by nothing here. Stored memory is untouched. A view sharing this
        Memory's stores (``Memory.user``, ``Memory(settings=m.settings)``) is closed with it;
        closing a view closes nothing. A closed Memory refuses further calls. Collected
        without ``close()``, a Memory's connections go with it."""
        if self._owns:
            self._resources.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Memory(data_dir={str(self.settings.data_dir)!r}, namespace={self.settings.namespace!r})"

    # -- options -------------------------------------------------------------------------
    def _ns(self, namespace: str | None, user_id: str | int | None = None) -> str:
        return namespace_of(self.settings, namespace, user_id)  # a closed Memory refuses it there

    # -- users ---------------------------------------------------------------------------
    @staticmethod
    def namespace_for_user(user_id: str | int, prefix: str = "") -> str:
        """The namespace of ``user_id``: the agent tools' mapping (``u.<hash>``, or
        ``<prefix>.<hash>`` with the tools' ``namespace_prefix``), never a name a person types."""
        return user_namespace(user_id, prefix)

    def user(self, user_id: str | int, prefix: str = "") -> Memory:
        """This memory bound to ``user_id``'s namespace (``namespace_for_user``: the agent tools'
        rule, ``storage.namespaces.run_user_id``: a string or an integer, ``0`` too); it shares
        this memory's model objects and open stores (closed with it)."""
        child = Memory(settings=self.settings, namespace=self.namespace_for_user(user_id, prefix))
        child._owner = (user_id, prefix)
        return child

    # -- add -----------------------------------------------------------------------------
    async def _add(
        self,
        source: Any,
        *,
        namespace: str | None = None,
        user_id: str | int | None = None,
        replace: bool = False,
        format: str | None = None,
        conversation_id: str | None = None,
        speaker: str = "user",
        when: datetime | None = None,
        progress: ProgressFn | None = None,
        rebuild: bool = False,
        metadata: dict[str, Any] | None = None,
    ) -> AddReport:
        """Add a conversation file (a ``pathlib.Path``: a ``str`` is always text, never a path), a ``Conversation``, a conversation ``dict`` (or a list of
        them) in the documented format (docs/conversation-format.md), LangChain messages or a
        text note.

        Sessions already stored unchanged are skipped; new turns after a stored session's are
        appended (only they are built). A session that differs otherwise raises
        ``SessionConflictError`` unless ``replace=True``, which replaces it in one commit.
        ``rebuild=True`` rebuilds sessions stored with another builder or preset. A note is a dated one-turn
        session; its id is in ``report.note_ids`` (``forget(note=id)``). ``conversation_id``
        names a message list's thread; ``speaker`` a note's author; ``when`` dates a note or
        untimed messages (default: now, UTC). ``metadata``: a JSON object stored with every
        session added (``model.metadata``; a session's own keys win), returned with evidence
        and filterable; it is part of a session's content (adding it again with other
        metadata is a change). ``user_id``: that user's namespace (``Memory.user(id)``'s; not
        with ``namespace``), which keeps the id so the browser can show it. A list of
        ``{"role", "content"}`` dicts is a chat exchange, roles as speakers
        (``loaders.role_messages``).
        """
        # lazy: the ingest stack (construct, LLM extraction): only when something is added
        from memgraph_agents.ingest import aingest_conversation
        from memgraph_agents.ingest_plan import plan_ingest

        ns = self._ns(namespace, user_id)
        replace, rebuild = check_flag(replace, "replace"), check_flag(rebuild, "rebuild")
        meta = check_metadata(metadata)
        conversations = await asyncio.to_thread(
            conversations_from, source, format=format, conversation_id=conversation_id, speaker=speaker, when=when
        )
        if meta:  # on every session; a session's own keys win, as a conversation's metadata does
            conversations = [
                Conversation.model_validate({**c.model_dump(), "metadata": {**meta, **c.metadata}})
                for c in conversations
            ]
        # All of them validated (dates, limits) before the first is written.
        planned = await asyncio.to_thread(plan_ingest, conversations, self.settings, ns)  # reads SQLite
        conversations = [c for c, _ in planned]
        report = AddReport(namespace=ns)
        t0 = time.perf_counter()
        for conv in conversations:
            r = await aingest_conversation(
                conv, self.settings, namespace=ns, progress=progress, replace=replace, rebuild=rebuild
            )
            report.conversations.append(conv.id)
            report.sessions_added += r.sessions_new - r.sessions_replaced - r.sessions_appended
            report.sessions_replaced += r.sessions_replaced
            report.sessions_appended += r.sessions_appended
            report.sessions_unchanged += r.sessions_unchanged
            report.turns += r.turns
            report.warnings.extend(r.notes)
            report.sessions.extend(r.sessions)
            if is_note_id(conv.id) and isinstance(source, str):
                report.note_ids.append(conv.id)
        owner = (user_id, "") if user_id is not None else self._owner  # kept only where it maps to ns
        if owner is not None and conversations:
            await asyncio.to_thread(keep_user_id, self.settings, ns, *owner)
        report.seconds = round(time.perf_counter() - t0, 3)
        return report

    add, aadd = twins(_add)

    # -- search / ask --------------------------------------------------------------------
    async def _search(
        self,
        query: str,
        *,
        namespace: str | None = None,
        namespaces: Sequence[str] | None = None,
        user_id: str | int | None = None,
        k: int | None = None,
        limit: int | None = None,
        retriever: str | Retriever | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
        speaker: str | Sequence[str] | None = None,
        filter: dict[str, Any] | None = None,
        min_score: float | None = None,
        as_of: DateLike | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> Found:
        """Ranked evidence (best first; ties by id) from ``retriever`` (default: the preset's, else
        ``settings.retriever``): at most ``k`` (default ``settings.top_k``; ``limit`` is mem0's
        name for it) ranked items, then the generated items a preset adds (``sgmem``'s summaries
        and facts). Empty for an empty namespace. Every door (agent tools, store, MCP, CLI,
        graphs) runs this same search.

        Filters (module docstring) restrict what the retriever sees; ``as_of`` (a day) keeps the
        statements valid on it: said on or before it and not replaced by a later statement said
        on or before it. ``namespaces=[...]`` ranks across several namespaces in one call
        (``api.scopes``: merged by rank, as reciprocal-rank fusion; each item's ``namespace``
        says where it came from).

        Each item carries ``relevance`` (in [0, 1], comparable across questions) and, for a
        statement a later one replaced, ``current=False`` with ``superseded_by`` /
        ``superseded_on``; a question about the present ranks the current statement first, one
        about the past the earlier one. ``min_score`` (default ``settings.min_score``) drops items
        less relevant than it; without one the relevance gate (``retrieval.gate``: for MiniLM
        0.19 + 0.02 ln(turns), higher for a task for the assistant or a name no turn mentions)
        returns nothing when the namespace's best match is less relevant than it, whatever k,
        else all k items. An
        empty result says why (``Found.reason``: nothing stored, filtered out, below the gate or
        the floor; ``Found.why``: the sentence).

        ``retriever`` is a name (``register_retriever`` adds an application's own) or a
        callable ``(query, store, *, k)``, as the agent tools take it. ``config`` is a LangChain run config (``callbacks``, ``tags``, ``metadata``): it reaches
        the navigator graph, so a LangSmith or console tracer sees planner → localize →
        explore → respond."""
        req = build_search(
            self.settings,
            query,
            namespace=namespace,
            namespaces=namespaces,
            user_id=user_id,
            k=k,
            limit=limit,
            retriever=retriever,
            since=since,
            until=until,
            speaker=speaker,
            filter=filter,
            min_score=min_score,
            as_of=as_of,
            config=config,
        )
        return await ops.search(self.settings, req)

    search, asearch = twins(_search)

    async def _ask(
        self,
        question: str,
        *,
        namespace: str | None = None,
        user_id: str | int | None = None,
        k: int | None = None,
        limit: int | None = None,
        retriever: str | Retriever | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
        speaker: str | Sequence[str] | None = None,
        filter: dict[str, Any] | None = None,
        min_score: float | None = None,
        as_of: DateLike | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> AskResult:
        """Evidence and trace always; ``answer`` (with dates and cited turns) when an LLM is
        configured (``llm="openai:gpt-4o-mini"``), ``None`` offline. ``outcome`` says ``found``,
        ``nothing_relevant`` (nothing at or above ``min_score``: no answer is written) or
        ``no_memory``. Filters, ``as_of``, ``min_score``, ``limit`` and ``config`` as ``search``."""
        req = build_search(
            self.settings,
            question,
            namespace=namespace,
            user_id=user_id,
            k=k,
            limit=limit,
            retriever=retriever,
            since=since,
            until=until,
            speaker=speaker,
            filter=filter,
            min_score=min_score,
            as_of=as_of,
            config=config,
        )
        return await ops.ask(self.settings, req)

    ask, aask = twins(_ask)

    def astream(self, question: str, /, **options: Any) -> AsyncIterator[tuple[str, Any]]:
        """``ask``, streamed (``async for mode, chunk in memory.astream(q, user_id=…)``): the same
        request — its filters, relevance gate, retriever and user — run as ``ask`` runs it.
        While the navigator graph runs: ``("custom", {"navigator": event})`` for every decision,
        ``("updates", {node: update})`` after every node (planner, localize, explore,
        coordinate, refine, respond); then ``("result", AskResult)`` with the evidence ``ask``
        returns, the answer (with a chat model), the trace and ``.navigation``, the
        navigator's result of this very run. Another retriever streams the result alone. Takes
        ``ask``'s arguments; a wrong one is raised before anything runs."""
        inspect.signature(self._ask).bind(question, **options)  # an unknown keyword: TypeError now
        return astream_of(lambda: self._ask(question, **options))

    # what help() and the API docs' check read: ``ask``'s parameters, a stream of chunks
    astream.__signature__ = inspect.signature(_ask).replace(  # type: ignore[attr-defined]
        return_annotation="AsyncIterator[tuple[str, Any]]"
    )

    # -- forget / stats / namespaces -----------------------------------------------------
    async def _forget(
        self,
        *,
        namespace: str | None = None,
        user_id: str | int | None = None,
        session: str | None = None,
        note: str | None = None,
    ) -> ForgetReport:
        """Delete exactly one session, one note (by id, with its history), or, with neither, the
        whole namespace, which must then be named (``namespace=`` or ``user_id=``: ``forget()``
        alone is refused, as the CLI refuses it)."""
        if session is not None and note is not None:
            raise InputError("forget takes session= or note=, not both")
        if note is not None and not is_note_id(note):
            raise InputError(f"{note!r} is not a note id (note ids start with 'note-'; use session= for sessions)")
        target = session if session is not None else note
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise InputError("forget: the session id is empty")
        if target is None and namespace is None and user_id is None:  # never the default by omission
            raise InputError(
                "forget deletes a whole namespace only when named: forget(namespace=...) or forget(user_id=...)"
            )
        ns = self._ns(namespace, user_id)
        return await asyncio.to_thread(ops.forget, self.settings, ns, [target] if target is not None else [])

    forget, aforget = twins(_forget)

    async def _stats(self, namespace: str | None = None, *, user_id: str | int | None = None) -> dict:
        """Sessions, nodes and edges by kind, vectors, bytes on disk, presets of a namespace, and
        the user id it was made for (``""`` for a namespace no user id made)."""
        return await asyncio.to_thread(ops.stats, self.settings, self._ns(namespace, user_id))

    stats, astats = twins(_stats)

    async def _reembed(
        self,
        namespace: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        *,
        user_id: str | int | None = None,
    ):
        """Re-embed a namespace stored with another embedding model with this memory's model
        (atomic: the old vectors until the new ones are all committed; a crash keeps the old
        ones); returns what was done (``old_model``, ``new_model``, ``vectors``).
        ``progress(done, total)`` follows the texts embedded."""
        return await asyncio.to_thread(ops.reembed, self.settings, self._ns(namespace, user_id), progress)

    reembed, areembed = twins(_reembed)

    async def _namespaces(self) -> builtins.list[str]:
        """The namespaces of this memory, sorted: those of ``data_dir``, or of the store id in
        PostgreSQL (``graph_url``). (No ``user_id=``: it lists every namespace.)"""

        settings = self.settings
        return await asyncio.to_thread(stored_namespaces, settings.data_dir, settings.graph_url, settings.store_id)

    namespaces, anamespaces = twins(_namespaces)
