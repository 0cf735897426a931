"""``AgentMemory``: the object behind the memory tools, the retriever and the turn writer.

It decides two things from the run and leaves the rest to the engine (``Memory`` over
``api.ops``):

* **with which settings**: the base settings (given, else the ``MEMGRAPH_*`` environment), with
  the tool's own ``k`` as ``top_k``, overlaid by the run context through the one resolver
  every door uses (``runtime.settings_for``: a ``MemoryContext`` — the chatbot's
  ``ChatbotContext`` included — reaches every field, ``preset`` and ``top_k`` too);
* **whose memory**: the namespace, always taken from the run — runtime context or
  ``config["configurable"]`` — never from tool arguments a model writes
  (``integrations.run_scopes.run_namespace``: the run's user id, mapped by
  ``Memory.namespace_for_user``; else the context's ``namespace``; else ``default_namespace``).

The retriever follows the rule of every door (``runtime.run_retriever``): one named for the
run (the context's ``retriever``), else the one the tools were built with, else the preset's,
else ``Settings.retriever``; ``k`` is ``Settings.top_k``; the chat model for the navigator's
LLM policy and the retrievers' LLM steps is ``Settings.llm`` (none: offline, zero LLM calls).

Recall reads the run's scopes (``integrations.run_scopes``): that namespace, plus the run's
agent-level (``agent_id``) and shared (``shared_namespace``) namespaces when there are any,
ranked in one list. Writes go to the run's namespace only.

Writes (``remember``, chat turns) go through ``Memory.add`` on one background writer thread
(``integrations.writer``), so remembering never blocks a chat turn. Reads see your own writes:
``recall`` first waits (up to ``read_wait`` seconds) for writes still queued for the
namespaces it reads, so "remember, then recall" in one conversation works; writes still
queued after that are said in its answer (``RecallResult.unseen``), never passed off as
"nothing in memory". The turn writer stores conversation, not chatter (``integrations.turn_rule``).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from memgraph_agents.aio import background
from memgraph_agents.api import Memory
from memgraph_agents.api.overrides import check_k, check_min_score, check_retriever
from memgraph_agents.api.sources import note_conversation
from memgraph_agents.config import Settings
from memgraph_agents.integrations.chat_threads import SKIP_FLAG, Transcript, clean_id, stored_thread
from memgraph_agents.integrations.recall_read import read_scopes, wait_for_writes
from memgraph_agents.integrations.recall_result import RecallResult
from memgraph_agents.integrations.run_scopes import (
    MissingUserError,
    RunScopes,
    agent_scope,
    current_config,
    current_context,
    run_namespace,
    run_user,
    shared_scopes,
)
from memgraph_agents.integrations.turn_rule import TurnRule
from memgraph_agents.integrations.writer import BackgroundWriter, MemoryWriteError
from memgraph_agents.loaders.messages import conversation_from_messages
from memgraph_agents.resources import bind
from memgraph_agents.retrieval.protocols import Retriever
from memgraph_agents.runtime import memory_resources, run_retriever, settings_for
from memgraph_agents.storage.namespaces import user_namespace, validate_stored_name

NO_MEMORY = "No memories stored yet for this user."

__all__ = [
    "NO_MEMORY",
    "SKIP_FLAG",
    "AgentMemory",
    "BackgroundWriter",
    "MemoryWriteError",
    "MissingUserError",
    "RecallResult",
    "current_config",
    "current_context",
    "user_namespace",
]


class AgentMemory:
    """Long-term memory for an agent: recall, remember, write chat turns (see module docstring).

    ``retriever``: a retriever or preset name, or a callable ``(query, store, *, k) ->
    list[Evidence]``; ``None``: the settings' rule (the preset's retriever, else
    ``Settings.retriever``: ``navigator`` by default). A run context naming a
    retriever overrides it. ``k``: evidence items (a setting, like ``Settings.top_k``, which a
    run context may override); ``None``: ``Settings.top_k`` (10).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        retriever: str | Retriever | None = None,
        k: int | None = None,
        user_key: str = "user_id",
        default_namespace: str | None = "",
        namespace_prefix: str = "",
        read_wait: float = 30.0,
        speaker_names: dict[str, str] | None = None,
        writer: BackgroundWriter | None = None,
        agent_id: str | None = None,
        shared_namespaces: Sequence[str] = (),
        turn_rule: TurnRule | None = None,
        remember_tools: Sequence[str] = ("remember",),
        remember_wait: float = 10.0,
    ) -> None:
        self._settings = settings
        # The stores (and model objects) this memory's calls use: those of the Memory its settings
        # come from, else its own (closed by ``close``).
        self._resources, self._owns = memory_resources(settings)
        # k is a setting (a run's context may change it); a named retriever is a choice (checked now).
        self._overrides: dict[str, Any] = {} if k is None else {"top_k": check_k(k, 0)}
        self.retriever = check_retriever(retriever) if isinstance(retriever, str) else retriever
        self.user_key = user_key
        # "" = settings.namespace; None = a user id is mandatory
        self.default_namespace = default_namespace
        self.namespace_prefix = namespace_prefix
        self.read_wait = read_wait
        self.remember_wait = remember_wait  # how long ``remember`` waits for its note's commit
        self.speaker_names = dict(speaker_names or {})
        self.writer = writer or BackgroundWriter()
        # Scopes the application fixes (a run's context may name others); validated now.
        self.agent_id = agent_id
        self.shared_namespaces = shared_scopes(None, None, tuple(shared_namespaces))
        agent_scope(None, None, agent_id)
        self.turn_rule = turn_rule or TurnRule()
        self.remember_tools = tuple(remember_tools)
        self._transcripts: dict[tuple[str, str], Transcript] = {}
        self._lock = threading.Lock()
        self.default_thread = f"chat-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"

    # -- where and whose -----------------------------------------------------------------
    def base_settings(self) -> Settings:
        """The settings before a run's context: given (else the environment, read per call),
        with this memory's ``k``."""
        base = bind(self._settings or Settings.load(), self._resources)
        return base.override(**self._overrides) if self._overrides else base

    def close(self) -> None:
        """Close the stores this memory opened (queued writes are waited for first, at most
        30 s); stored memory is untouched."""
        try:
            self.writer.flush(30)
        finally:
            if self._owns:
                self._resources.close()

    def settings_for(self, context: Any = None) -> Settings:
        """The run's settings: ``base_settings()`` overlaid by the run context (``runtime.settings_for``)."""
        return settings_for(context, self.base_settings())

    def run_inputs(self, context: Any, config: dict | None) -> tuple[Any, dict | None]:
        """The run's context and config as this memory reads whose run it is (``namespace_for``
        and the writes' user id): as given; a subclass may normalise a host's conventions."""
        return context, config

    def namespace_for(self, context: Any = None, config: dict | None = None) -> str:
        """Whose memory this run uses (see the module docstring); never from model arguments."""
        context, config = self.run_inputs(context, config)
        default = self.default_namespace
        if default == "":  # "" = the settings' namespace (read now: the environment may change)
            default = (self._settings or Settings()).namespace
        return run_namespace(context, config, user_key=self.user_key, prefix=self.namespace_prefix, default=default)

    def user_scope(self, user_id: str) -> str:
        """The namespace of ``user_id`` for these tools: ``Memory.namespace_for_user`` with this
        memory's ``namespace_prefix`` (the one mapping of every door)."""
        return Memory.namespace_for_user(user_id, self.namespace_prefix)

    def scopes_for(self, context: Any = None, config: dict | None = None, namespace: str | None = None) -> RunScopes:
        """The run's scopes (``integrations.run_scopes``); an explicit ``namespace`` reads only it."""
        context, config = self._resolve(context, config)
        user = self._explicit_or_run(namespace, context, config)
        if namespace is not None:
            return RunScopes(user)
        return RunScopes(
            user, agent_scope(context, config, self.agent_id), shared_scopes(context, config, self.shared_namespaces)
        )

    def untold_failures(self, context: Any = None, config: dict | None = None) -> list[str]:
        """Failed background writes to the run's namespace no tool call has said yet (a tool
        whose own call failed still tells them); ``[]`` when the run names no namespace."""
        try:
            ns = self.namespace_for(*self._resolve(context, config))
        except (MissingUserError, ValueError):
            return []
        return self.writer.take_failures([ns])

    def _explicit_or_run(self, namespace: str | None, context: Any, config: dict | None) -> str:
        """An explicit ``namespace=`` (validated: ``""`` is refused, not a default), else the run's."""
        if namespace is not None:
            return validate_stored_name(namespace)
        return self.namespace_for(context, config)

    @staticmethod
    def _resolve(context: Any, config: dict | None) -> tuple[Any, dict]:
        return (current_context() if context is None else context), (current_config() if config is None else config)

    def _memory(self, settings: Settings) -> Memory:
        return Memory(settings=settings)

    def _writer_memory(self, settings: Settings, context: Any, config: dict | None, ns: str) -> Memory:
        """The memory a write goes through: bound to the run's user when the write is to that
        user's namespace, so the namespace keeps the id it was made for (``api.owners``)."""
        memory = self._memory(settings)
        uid = run_user(*self.run_inputs(context, config), user_key=self.user_key)
        if uid is not None and self.user_scope(uid) == ns:
            return memory.user(uid, self.namespace_prefix)
        return memory

    # -- recall --------------------------------------------------------------------------
    def _recall_target(
        self, context: Any, config: dict | None, k: int | None, namespace: str | None
    ) -> tuple[list[str], Settings, str | Retriever, int]:
        """What to read, with which settings, retriever and k: the same for ``recall`` and ``arecall``."""
        context, config = self._resolve(context, config)
        scopes = self.scopes_for(context, config, namespace).reads()
        settings = self.settings_for(context)
        return scopes, settings, run_retriever(context, settings, self.retriever), check_k(k, settings.top_k)

    def recall(
        self,
        query: str,
        *,
        context: Any = None,
        config: dict | None = None,
        k: int | None = None,
        namespace: str | None = None,
        min_score: float | None = None,
    ) -> RecallResult:
        """Evidence for ``query`` from the run's scopes (waits for their queued writes first, at
        most ``read_wait`` seconds; the result says what it could not see). ``min_score`` (in
        [0, 1]; default the settings' relevance floor) drops items less relevant than it; none
        left: the result says nothing relevant is in memory."""
        floor = check_min_score(min_score)
        scopes, settings, retriever, k = self._recall_target(context, config, k, namespace)
        unseen, waited = wait_for_writes(self.writer, scopes, self.read_wait)
        run_config = self._resolve(context, config)[1]  # its callbacks see the navigator's nodes
        result = background.run(read_scopes(query, scopes, settings, retriever, k, floor, run_config))
        result.unseen, result.waited = unseen, waited
        result.failed_writes = self.writer.take_failures(list(scopes))
        return result

    async def arecall(
        self,
        query: str,
        *,
        context: Any = None,
        config: dict | None = None,
        k: int | None = None,
        namespace: str | None = None,
        min_score: float | None = None,
    ) -> RecallResult:
        floor = check_min_score(min_score)
        scopes, settings, retriever, k = self._recall_target(context, config, k, namespace)
        unseen, waited = 0, 0.0
        if any(self.writer.pending(ns) for ns in scopes):
            unseen, waited = await asyncio.to_thread(wait_for_writes, self.writer, scopes, self.read_wait)
        run_config = self._resolve(context, config)[1]  # its callbacks see the navigator's nodes
        result = await background.arun(read_scopes(query, scopes, settings, retriever, k, floor, run_config))
        result.unseen, result.waited = unseen, waited
        result.failed_writes = self.writer.take_failures(list(scopes))
        return result

    # -- remember ------------------------------------------------------------------------
    def remember(
        self,
        text: str,
        *,
        context: Any = None,
        config: dict | None = None,
        speaker: str = "user",
        namespace: str | None = None,
    ) -> dict[str, Any]:
        """Write ``text`` as a new dated note session (on the background writer) and wait up to
        ``remember_wait`` seconds for its commit: ``saved`` True once committed; else
        ``queued`` True (still waiting for another writer: its outcome is told by the next
        call on the namespace). A write that failed raises ``MemoryWriteError``: never "saved".

        What can be checked before the write is checked here, so a refused note is an error
        now: the text, the speaker and the input limits, the namespace. ``failed_writes``:
        earlier background writes to this namespace that failed (each told once);
        ``saved_writes``: earlier notes said to be queued that are saved now."""
        # lazy: the ingest stack: only when a note is written
        from memgraph_agents.ingest import validated_conversation

        if not " ".join(str(text).split()):
            raise ValueError("nothing to remember: the text is empty")
        context, config = self._resolve(context, config)
        ns = self._explicit_or_run(namespace, context, config)
        settings = self.settings_for(context)
        conv = note_conversation(text, speaker=speaker)  # the same notes as Memory.add(text)
        conv = validated_conversation(conv, settings.limits)  # limits, text, dates: before queueing
        sid = conv.id
        failed = self.writer.take_failures([ns])
        job = self.writer.submit(f"{ns}/{sid}", ns, self._writer_memory(settings, context, config, ns), conv)
        state = self.writer.settle(job, self.remember_wait)
        if state == "failed":
            told = f"; also: {'; '.join(failed)}" if failed else ""
            raise MemoryWriteError(f"the note was not saved: {type(job.error).__name__}: {job.error}{told}")
        return {
            "namespace": ns,
            "session": sid,
            "turn_id": f"{sid}:1",
            "saved": state == "saved",
            "queued": state == "queued",
            "failed_writes": failed,
            "saved_writes": self.writer.take_saved([ns]),
        }

    # -- chat turns ----------------------------------------------------------------------
    def write_messages(
        self,
        messages: Sequence[Any],
        *,
        context: Any = None,
        config: dict | None = None,
        thread_id: str | None = None,
        namespace: str | None = None,
        speaker_names: dict[str, str] | None = None,
    ) -> dict[str, Any] | None:
        """Append a chat thread's new human/AI messages to its transcript and queue it.

        Messages already seen (by id) are skipped, so passing the whole history every turn
        is fine; without ids, a call that starts with every id-less message of the thread so
        far, in order, and goes on is taken as that history plus new messages, and otherwise
        every message is new (one said twice is stored twice). A thread becomes sessions
        ``<thread>-s1``, ``-s2`` … (a new one after a 6-hour gap); a thread id that is not
        already letters, digits and ``_.:-`` gets a hash of itself appended, so two ids that
        differ only in such characters stay two threads. What is written follows ``turn_rule``
        (``integrations.turn_rule``): not tool results or tool calls, not bare acknowledgements,
        not flagged messages, not a user message a ``remember`` note of its turn already holds.

        Each write appends: only the new turns are built (``construct.append``). A thread
        resumed after a restart continues what is stored: its stored turns are read back
        once (with their original dates), and a history replayed by a checkpointer (the
        stored turns again, in order, at the start of ``messages``) is not written twice.
        """

        context, config = self._resolve(context, config)
        ns = self._explicit_or_run(namespace, context, config)
        settings = self.settings_for(context)
        conf = (config or {}).get("configurable", {}) or {}
        thread = clean_id(thread_id or conf.get("thread_id") or self.default_thread)
        with self._lock:
            tr = self._transcripts.get((ns, thread))
            if tr is None:  # first sight of the thread in this process: continue what is stored
                stored = stored_thread(settings, ns, thread)
                tr = self._transcripts[(ns, thread)] = Transcript(messages=list(stored), stored=stored)
            now = datetime.now(UTC).replace(tzinfo=None)
            added = tr.add(messages, now, self.turn_rule, self.remember_tools)
            if not added or not tr.messages:
                return None
            snapshot = list(tr.messages)
        names = {**self.speaker_names, **(speaker_names or {})}
        conv = conversation_from_messages(
            snapshot, conversation_id=thread, session_id=f"{thread}-s", speaker_names=names or None
        )
        self.writer.submit(f"{ns}/{thread}", ns, self._writer_memory(settings, context, config, ns), conv)
        return {"namespace": ns, "thread": thread, "sessions": [s.id for s in conv.sessions], "added": added}

    # -- waiting -------------------------------------------------------------------------
    def flush(self, timeout: float | None = None) -> list[Any]:
        """Wait for every queued write (tests, shutdown); raises if one failed."""
        return self.writer.flush(timeout)

    async def aflush(self, timeout: float | None = None) -> list[Any]:
        return await asyncio.to_thread(self.writer.flush, timeout)

    def pending(self, namespace: str | None = None) -> int:
        return self.writer.pending(namespace)
