"""``Memory``: the one public entry point (``from memgraph_agents import Memory``).

    mem = Memory("/tmp/mem")                    # offline defaults: MiniLM, embedded Chroma, no LLM
    mem.add(sample_conversation())              # a pathlib.Path: a str is always a note
    for ev in mem.search("Where did Jonas travel?", k=3):
        print(ev.cite())

Every method takes ``namespace=`` (default: ``settings.namespace``; ``Memory.user(user_id)``
is a ``Memory`` bound to a user's namespace). Each has an async twin (``aadd``, ``asearch``,
``aask``, ``aget``, ``alist``, ``aupdate``, ``ahistory``, ``aforget``, ``astats``, ``areembed``,
``anamespaces``) that runs the same work on one shared background event loop and worker threads, so it never blocks the
caller's loop. ``Memory`` is the one engine: the agent tools and turn writer,
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
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memgraph_agents.aio import background
from memgraph_agents.api import ops
from memgraph_agents.api.checks import check_flag, check_names
from memgraph_agents.api.filters import DateLike, memory_filter
from memgraph_agents.api.item_verbs import ItemVerbs
from memgraph_agents.api.overrides import check_k, check_min_score, check_retriever, settings_with
from memgraph_agents.api.request import search_request
from memgraph_agents.api.results import AddReport, AskResult, ForgetReport, Found
from memgraph_agents.api.sources import conversations_from, is_note_id
from memgraph_agents.api.users import namespace_or_user
from memgraph_agents.config import Settings
from memgraph_agents.errors import InputError
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.model.metadata import check_metadata
from memgraph_agents.resources import bind, model_overrides
from memgraph_agents.retrieval.protocols import Retriever
from memgraph_agents.runtime import memory_resources
from memgraph_agents.storage.namespaces import user_namespace, validate_stored_name

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
    def _ns(self, namespace: str | None) -> str:
        self._resources.check_open()  # every verb names its namespace here: a closed Memory refuses it
        return validate_stored_name(self.settings.namespace if namespace is None else namespace)

    def _retriever(self, retriever: str | Retriever | None) -> str | Retriever:
        """A name (checked), a caller's own callable ``(query, store, *, k)`` as the agent tools
        take it, or the settings' default."""
        if retriever is None:
            return self.settings.default_retriever
        return retriever if callable(retriever) else check_retriever(retriever)

    def _scopes(self, namespace: str | None, namespaces: Sequence[str] | None) -> builtins.list[str] | None:
        """The namespaces of a search over several (``None``: one, ``_ns(namespace)``)."""
        if namespaces is None:
            return None
        if namespace is not None:
            raise InputError("search takes namespace= or namespaces=, not both")
        out = [self._ns(n) for n in check_names(namespaces)]  # None in it is refused, not the default
        if len(set(out)) != len(out):
            raise InputError(f"namespaces lists a namespace twice: {out}")
        return out

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
        return Memory(settings=self.settings, namespace=self.namespace_for_user(user_id, prefix))

    # -- add -----------------------------------------------------------------------------
    async def _add(
        self,
        source: Any,
        namespace: str | None,
        replace: bool,
        format: str | None,
        conversation_id: str | None,
        speaker: str,
        when: datetime | None,
        progress: ProgressFn | None,
        rebuild: bool = False,
        metadata: dict[str, Any] | None = None,
    ) -> AddReport:
        from memgraph_agents.ingest import aingest_conversation, plan_ingest

        ns = self._ns(namespace)
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
        report.seconds = round(time.perf_counter() - t0, 3)
        return report

    def add(
        self,
        source: Any,
        *,
        namespace: str | None = None,
        user_id: str | None = None,
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
        with ``namespace``). A list of ``{"role", "content"}`` dicts is a chat exchange, roles as
        speakers (``loaders.role_messages``).
        """
        args = (source, namespace_or_user(namespace, user_id), replace, format, conversation_id, speaker, when)
        return background.run(self._add(*args, progress, rebuild, metadata))

    async def aadd(
        self,
        source: Any,
        *,
        namespace: str | None = None,
        user_id: str | None = None,
        replace: bool = False,
        format: str | None = None,
        conversation_id: str | None = None,
        speaker: str = "user",
        when: datetime | None = None,
        progress: ProgressFn | None = None,
        rebuild: bool = False,
        metadata: dict[str, Any] | None = None,
    ) -> AddReport:
        args = (source, namespace_or_user(namespace, user_id), replace, format, conversation_id, speaker, when)
        return await background.arun(self._add(*args, progress, rebuild, metadata))

    # -- search / ask --------------------------------------------------------------------
    def _search(
        self,
        query: str,
        namespace,
        namespaces,
        user_id,
        k,
        retriever,
        since,
        until,
        speaker,
        filter,
        min_score,
        as_of,
        config,
    ):
        if user_id is not None and namespaces is not None:
            raise InputError("search takes user_id= or namespaces=, not both")
        namespace = namespace_or_user(namespace, user_id)
        f = memory_filter(since, until, speaker, filter, as_of)
        floor = check_min_score(min_score)
        scopes, k, name = (
            self._scopes(namespace, namespaces),
            check_k(k, self.settings.top_k),
            self._retriever(retriever),
        )
        where = tuple(scopes) if scopes is not None else (self._ns(namespace),)
        req = search_request(
            query=query, namespaces=where, k=k, retriever=name, filter=f, min_score=floor, config=config
        )
        return ops.search(self.settings, req)

    def search(
        self,
        query: str,
        *,
        namespace: str | None = None,
        namespaces: Sequence[str] | None = None,
        user_id: str | None = None,
        k: int | None = None,
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
        ``settings.retriever``): at most ``k`` (default ``settings.top_k``) ranked items, then the
        generated items a preset adds (``sgmem``'s summaries and facts). Empty for an empty
        namespace. Every door (agent tools, store, MCP, CLI, graphs) runs this same search.

        Filters (module docstring) restrict what the retriever sees; ``as_of`` (a day) keeps the
        statements valid on it: said on or before it and not replaced by a later statement said
        on or before it. ``namespaces=[...]`` ranks across several namespaces in one call
        (``api.scopes``: merged by rank, as reciprocal-rank fusion; each item's ``namespace``
        says where it came from).

        Each item carries ``relevance`` (in [0, 1], comparable across questions) and, for a
        statement a later one replaced, ``current=False`` with ``superseded_by`` /
        ``superseded_on``; a question about the present ranks the current statement first, one
        about the past the earlier one. ``min_score`` (default ``settings.min_score``) drops items
        less relevant than it; without one the relevance gate (``settings.gate``: MiniLM 0.25)
        returns nothing when the best item is less relevant than it, else all k items. An
        empty result says why (``Found.reason``: nothing stored, filtered out, below the gate or
        the floor; ``Found.why``: the sentence).

        ``retriever`` is a name (``registry.register_retriever`` adds an application's own) or a
        callable ``(query, store, *, k)``, as the agent tools take it. ``config`` is a LangChain run config (``callbacks``, ``tags``, ``metadata``): it reaches
        the navigator graph, so a LangSmith or console tracer sees planner → localize →
        explore → respond."""
        return background.run(
            self._search(
                query,
                namespace,
                namespaces,
                user_id,
                k,
                retriever,
                since,
                until,
                speaker,
                filter,
                min_score,
                as_of,
                config,
            )
        )

    async def asearch(
        self,
        query: str,
        *,
        namespace: str | None = None,
        namespaces: Sequence[str] | None = None,
        user_id: str | None = None,
        k: int | None = None,
        retriever: str | Retriever | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
        speaker: str | Sequence[str] | None = None,
        filter: dict[str, Any] | None = None,
        min_score: float | None = None,
        as_of: DateLike | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> Found:
        return await background.arun(
            self._search(
                query,
                namespace,
                namespaces,
                user_id,
                k,
                retriever,
                since,
                until,
                speaker,
                filter,
                min_score,
                as_of,
                config,
            )
        )

    def _ask(
        self, question: str, namespace, user_id, k, retriever, since, until, speaker, filter, min_score, as_of, config
    ):
        namespace = namespace_or_user(namespace, user_id)
        f = memory_filter(since, until, speaker, filter, as_of)
        k, name, floor = check_k(k, self.settings.top_k), self._retriever(retriever), check_min_score(min_score)
        req = search_request(
            query=question,
            namespaces=(self._ns(namespace),),
            k=k,
            retriever=name,
            filter=f,
            min_score=floor,
            config=config,
        )
        return ops.ask(self.settings, req)

    def ask(
        self,
        question: str,
        *,
        namespace: str | None = None,
        user_id: str | None = None,
        k: int | None = None,
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
        ``no_memory``. Filters, ``as_of``, ``min_score`` and ``config`` as ``search``."""
        return background.run(
            self._ask(
                question, namespace, user_id, k, retriever, since, until, speaker, filter, min_score, as_of, config
            )
        )

    async def aask(
        self,
        question: str,
        *,
        namespace: str | None = None,
        user_id: str | None = None,
        k: int | None = None,
        retriever: str | Retriever | None = None,
        since: DateLike | None = None,
        until: DateLike | None = None,
        speaker: str | Sequence[str] | None = None,
        filter: dict[str, Any] | None = None,
        min_score: float | None = None,
        as_of: DateLike | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> AskResult:
        return await background.arun(
            self._ask(
                question, namespace, user_id, k, retriever, since, until, speaker, filter, min_score, as_of, config
            )
        )

    def astream(
        self,
        question: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[tuple[str, Any]]:
        """Watch the navigator graph answer ``question``, as it runs (``async for mode, chunk in
        memory.astream(q)``): ``("custom", {"navigator": event})`` for every decision,
        ``("updates", {node: update})`` after every node (planner, localize, explore,
        coordinate, refine, respond), then ``("result", NavigationResult)`` with the ranking,
        the answer (with a chat model) and the trace of this very run. ``config`` as ``search``."""
        from memgraph_agents.api.stream import astream_navigation

        return astream_navigation(self.settings, self._ns(namespace), question, check_k(k, self.settings.top_k), config)

    # -- forget / stats / namespaces -----------------------------------------------------
    def _forget_args(
        self, namespace: str | None, session: str | None, note: str | None
    ) -> tuple[str, builtins.list[str]]:
        if session is not None and note is not None:
            raise InputError("forget takes session= or note=, not both")
        if note is not None and not is_note_id(note):
            raise InputError(f"{note!r} is not a note id (note ids start with 'note-'; use session= for sessions)")
        target = session if session is not None else note
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise InputError("forget: the session id is empty")
        if target is None and namespace is None:  # never the configured default by omission
            raise InputError("forget deletes a whole namespace only when named: forget(namespace=...)")
        return self._ns(namespace), [target] if target is not None else []

    def forget(
        self, *, namespace: str | None = None, session: str | None = None, note: str | None = None
    ) -> ForgetReport:
        """Delete exactly one session, one note (by id, with its history), or, with neither, the
        whole namespace, which must then be named (``forget()`` alone is refused, as the CLI
        refuses it)."""
        ns, sessions = self._forget_args(namespace, session, note)
        return ops.forget(self.settings, ns, sessions)

    async def aforget(
        self, *, namespace: str | None = None, session: str | None = None, note: str | None = None
    ) -> ForgetReport:
        ns, sessions = self._forget_args(namespace, session, note)
        return await asyncio.to_thread(ops.forget, self.settings, ns, sessions)

    def stats(self, namespace: str | None = None) -> dict:
        """Sessions, nodes and edges by kind, vectors, bytes on disk, presets of a namespace."""
        return ops.stats(self.settings, self._ns(namespace))

    async def astats(self, namespace: str | None = None) -> dict:
        return await asyncio.to_thread(ops.stats, self.settings, self._ns(namespace))

    def reembed(self, namespace: str | None = None, progress: Callable[[int, int], None] | None = None):
        """Re-embed a namespace stored with another embedding model with this memory's model
        (atomic: the old vectors until the new ones are all committed; a crash keeps the old
        ones); returns what was done (``old_model``, ``new_model``, ``vectors``).
        ``progress(done, total)`` follows the texts embedded."""
        return ops.reembed(self.settings, self._ns(namespace), progress)

    async def areembed(self, namespace: str | None = None, progress: Callable[[int, int], None] | None = None):
        return await asyncio.to_thread(self.reembed, namespace, progress)

    def namespaces(self) -> builtins.list[str]:
        """The namespaces of this memory, sorted: those of ``data_dir``, or of the store id in
        PostgreSQL (``graph_url``)."""
        from memgraph_agents.storage.graph_store import stored_namespaces

        return stored_namespaces(self.settings.data_dir, self.settings.graph_url, self.settings.store_id)

    async def anamespaces(self) -> builtins.list[str]:
        return await asyncio.to_thread(self.namespaces)
