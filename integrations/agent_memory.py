"""``AgentMemory``: the object behind the memory tools, the retriever and the turn writer.

It knows *where* memory lives (a ``Settings`` object, overlaid by a ``MemoryContext`` run
context when the run has one), *whose* memory a run uses (the namespace, always taken from
the run — runtime context or ``config["configurable"]`` — never from tool arguments a model
writes), and it owns one background writer thread so that remembering never blocks a chat
turn.

Namespace resolution, first match wins:

1. the run context's ``user_id`` (attribute or dict key; the key name is ``user_key``);
2. ``config["configurable"]["user_id"]``;
3. the run context's ``namespace`` (a ``MemoryContext`` field);
4. ``default_namespace`` (``settings.namespace`` unless given; ``None`` makes a user id
   mandatory: a run without one is refused).

A user id maps to its namespace through ``storage.namespaces.user_namespace`` (``u.<hash>``,
or ``<namespace_prefix>.<hash>``): injective, never equal to a name a person can choose, and
showing nothing of the id; ids with surrounding whitespace or control characters are refused.

Reads see your own writes: ``recall`` first waits (up to ``read_wait`` seconds) for writes
still queued for *its* namespace, so "remember, then recall" in one conversation works.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import logging
import re
import secrets
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memgraph_agents.config import Settings
from memgraph_agents.errors import InputError, StorageError
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.protocols import Retriever
from memgraph_agents.runtime import MemoryContext
from memgraph_agents.storage.namespaces import NamespaceError, user_namespace, validate_stored_name

log = logging.getLogger(__name__)

NO_MEMORY = "No memories stored yet for this user."
SKIP_FLAG = "memgraph_skip"  # additional_kwargs flag: this message is not written to memory
_CONTEXT_FIELDS = ("data_dir", "embeddings", "chroma_host", "chroma_port", "llm")


class MemoryWriteError(StorageError):
    """A background write failed (raised by ``flush``; the chat turn itself never sees it)."""


class MissingUserError(InputError):
    """The run names no user and the memory has no default namespace."""


# --------------------------------------------------------------------------- namespaces


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def current_config() -> dict:
    """The ``RunnableConfig`` of the run we are in (empty outside a run)."""
    try:
        from langchain_core.runnables.config import var_child_runnable_config

        return dict(var_child_runnable_config.get() or {})
    except Exception:  # pragma: no cover - defensive
        return {}


def current_context() -> Any:
    """The LangGraph runtime context of the run we are in (``None`` outside a graph)."""
    try:
        from langgraph.runtime import get_runtime

        return get_runtime().context
    except Exception:
        return None


# --------------------------------------------------------------------------- background writer


def _at_exit(fn) -> None:
    """Run ``fn`` at interpreter exit *before* ``concurrent.futures`` stops accepting work
    (``threading._register_atexit`` hooks run before ``atexit`` ones and in reverse order),
    so writes still queued at exit can finish (an ingest uses thread pools)."""
    register = getattr(threading, "_register_atexit", None)
    try:
        if register is not None:
            register(fn)
            return
    except RuntimeError:  # already shutting down
        return
    atexit.register(fn)


@dataclass
class _Job:
    key: str
    namespace: str
    settings: Settings
    conversation: Conversation
    done: threading.Event = field(default_factory=threading.Event)


class BackgroundWriter:
    """One daemon thread that ingests queued conversations, in submission order.

    Jobs with the same ``key`` (a chat thread that grew) are coalesced: only the newest
    transcript is ingested. ``wait(namespace)`` blocks until that namespace has nothing
    queued; ``flush`` waits for everything and reports (and clears) failures.
    """

    def __init__(self, name: str = "memgraph-writer") -> None:
        self.name = name
        self._jobs: OrderedDict[str, _Job] = OrderedDict()
        self._running: _Job | None = None
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.reports: list[Any] = []
        self.errors: list[tuple[str, BaseException]] = []
        ref = weakref.ref(self)

        def close_at_exit() -> None:
            writer = ref()
            if writer is not None:
                writer.close(timeout=120)

        _at_exit(close_at_exit)

    # -- submit / wait -------------------------------------------------------------------
    def submit(self, key: str, namespace: str, settings: Settings, conversation: Conversation) -> None:
        with self._cond:
            if self._closed:
                raise MemoryWriteError("the memory writer is closed")
            self._jobs.pop(key, None)  # coalesce: the newest transcript of a thread wins
            self._jobs[key] = _Job(key, namespace, settings, conversation)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def pending(self, namespace: str | None = None) -> int:
        with self._cond:
            jobs = list(self._jobs.values()) + ([self._running] if self._running else [])
            return sum(1 for j in jobs if namespace is None or j.namespace == namespace)

    def wait(self, namespace: str | None = None, timeout: float | None = None) -> bool:
        """Block until nothing is queued (for ``namespace``, or at all); False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._busy(namespace):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def _busy(self, namespace: str | None) -> bool:
        jobs = list(self._jobs.values()) + ([self._running] if self._running else [])
        return any(namespace is None or j.namespace == namespace for j in jobs)

    def flush(self, timeout: float | None = None) -> list[Any]:
        """Wait for every queued write; return the ingest reports since the last flush.

        Raises ``TimeoutError`` when writes are still running after ``timeout`` seconds and
        ``MemoryWriteError`` when a write failed (the failure is then cleared).
        """
        if not self.wait(None, timeout):
            raise TimeoutError(f"memory writes still running after {timeout} s ({self.pending()} queued)")
        with self._cond:
            reports, errors = self.reports, self.errors
            self.reports, self.errors = [], []
        if errors:
            key, exc = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise MemoryWriteError(f"writing {key} to memory failed: {type(exc).__name__}: {exc}{more}") from exc
        return reports

    def close(self, timeout: float | None = 60) -> None:
        """Finish queued writes (bounded by ``timeout``) and stop accepting new ones."""
        self.wait(None, timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    # -- worker --------------------------------------------------------------------------
    def _loop(self) -> None:
        from memgraph_agents.ingest import ingest_conversation

        while True:
            with self._cond:
                while not self._jobs and not self._closed:
                    self._cond.wait(1.0)
                if not self._jobs:
                    return
                _, job = self._jobs.popitem(last=False)
                self._running = job
            try:
                report = ingest_conversation(job.conversation, job.settings, namespace=job.namespace)
                with self._cond:
                    self.reports.append(report)
            except BaseException as exc:  # noqa: BLE001 - reported by flush(), never lost
                log.warning("memgraph: background write %s failed: %s", job.key, exc)
                with self._cond:
                    self.errors.append((job.key, exc))
            finally:
                with self._cond:
                    self._running = None
                    job.done.set()
                    self._cond.notify_all()


# --------------------------------------------------------------------------- the memory


@dataclass
class _Transcript:
    """What a chat thread has said so far (append-only), with the time each message was seen.

    ``stored``: the thread's turns already in memory when this process first saw the thread
    (after a restart), as messages with their original timestamps; a checkpointer replaying
    that history is recognised (``replayed`` of them matched so far) and not written again."""

    seen: set[str] = field(default_factory=set)
    messages: list[Any] = field(default_factory=list)
    stored: list[Any] = field(default_factory=list)
    replayed: int = 0


@dataclass
class RecallResult:
    namespace: str
    retriever: str
    query: str
    evidence: list[Evidence]
    answer: str | None = None
    navigation: Any = None  # a NavigationResult for the navigator

    def content(self) -> str:
        """Evidence lines with dates and turn ids: what the model reads."""
        if not self.evidence:
            return f"Nothing in memory matches {self.query!r}."
        head = f"Memory evidence for {self.query!r} ({self.retriever}; cite turn ids):"
        lines = [head]
        if self.answer:
            lines.append(f"Suggested answer: {self.answer}")
        for i, ev in enumerate(self.evidence, start=1):
            lines.append(f"{i}. {' '.join(ev.cite().split())}")
        return "\n".join(lines)

    def artifact(self) -> dict[str, Any]:
        """JSON-able details for the application (not shown to the model): evidence, path, trace."""
        out: dict[str, Any] = {
            "namespace": self.namespace,
            "retriever": self.retriever,
            "query": self.query,
            "answer": self.answer,
            "evidence": [ev.model_dump() for ev in self.evidence],
        }
        nav = self.navigation
        if nav is not None:
            steps = [e for e in nav.trace if e.get("type") == "decision"]
            out["path"] = [
                {
                    "step": n,
                    "node": e.get("node"),
                    "action": e.get("action"),
                    "via": e.get("via"),
                    "round": e.get("round"),
                    "wave": e.get("wave"),
                    "explorer": e.get("explorer"),
                    "next": e.get("next", []),
                    "scores": e.get("scores", {}),
                    "reason": e.get("reason", ""),
                }
                for n, e in enumerate(steps, start=1)
            ]
            out["kept"] = [{"node": ev.node_id, "path": ev.path, "turn_ids": ev.turn_ids} for ev in nav.evidence]
            out["subgoals"] = list(nav.subgoals)
            out["satisfied"] = list(nav.satisfied)
            out["trace"] = list(nav.trace)
            out["counters"] = dict(nav.counters)
        else:
            out["path"] = [{"node": ev.node_id, "path": list(ev.path)} for ev in self.evidence]
        return out


class AgentMemory:
    """Long-term memory for an agent: recall, remember, write chat turns (see module docstring).

    ``retriever``: a registered retriever name (``navigator`` by default: the offline
    navigator, zero LLM calls) or a callable ``(query, store, *, k) -> list[Evidence]``.
    ``navigator_llm``: a chat model for the navigator's LLM policy (``None``: offline).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        retriever: str | Retriever = "navigator",
        k: int = 5,
        user_key: str = "user_id",
        default_namespace: str | None = "",
        namespace_prefix: str = "",
        read_wait: float = 30.0,
        navigator_llm: Any = None,
        speaker_names: dict[str, str] | None = None,
        writer: BackgroundWriter | None = None,
    ) -> None:
        self._settings = settings
        self.retriever = retriever
        self.k = k
        self.user_key = user_key
        # "" = settings.namespace; None = a user id is mandatory
        self.default_namespace = default_namespace
        self.namespace_prefix = namespace_prefix
        self.read_wait = read_wait
        self.navigator_llm = navigator_llm
        self.speaker_names = dict(speaker_names or {})
        self.writer = writer or BackgroundWriter()
        self._transcripts: dict[tuple[str, str], _Transcript] = {}
        self._lock = threading.Lock()
        self.default_thread = f"chat-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"

    # -- where and whose -----------------------------------------------------------------
    def settings_for(self, context: Any = None) -> Settings:
        """Base settings (given, else the environment) overlaid by a ``MemoryContext``'s fields."""
        base = self._settings or Settings.load()
        if context is None:
            return base
        return base.override(
            **{name: value for name in _CONTEXT_FIELDS if (value := _get(context, name)) not in (None, "", 0)}
        )

    def namespace_for(self, context: Any = None, config: dict | None = None) -> str:
        """Whose memory this run uses (see the module docstring); never from model arguments."""
        conf = (config or {}).get("configurable", {}) or {}
        uid = _get(context, self.user_key) or conf.get(self.user_key)
        if uid not in (None, ""):
            return user_namespace(str(uid), self.namespace_prefix)
        ns = _get(context, "namespace")
        if isinstance(ns, str) and ns:
            return validate_stored_name(ns)
        if self.default_namespace is None:
            raise MissingUserError(
                f"no user for this run: pass context with {self.user_key!r} or "
                f"config={{'configurable': {{'{self.user_key}': ...}}}}"
            )
        return validate_stored_name(self.default_namespace or (self._settings or Settings()).namespace)

    def _explicit_or_run(self, namespace: str | None, context: Any, config: dict | None) -> str:
        """An explicit ``namespace=`` (validated: ``""`` is refused, not a default), else the run's."""
        if namespace is not None:
            return validate_stored_name(namespace)
        return self.namespace_for(context, config)

    def _run_options(self, context: Any) -> tuple[str | Retriever, int]:
        name = self.retriever
        if isinstance(context, MemoryContext) and context.retriever:
            name = context.retriever
        k = self.k
        if isinstance(context, MemoryContext) and context.top_k:
            k = context.top_k
        return name, k

    def _resolve(self, context: Any, config: dict | None) -> tuple[Any, dict]:
        if context is None:
            context = current_context()
        if config is None:
            config = current_config()
        return context, config

    # -- recall --------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        context: Any = None,
        config: dict | None = None,
        k: int | None = None,
        namespace: str | None = None,
    ) -> RecallResult:
        """Evidence for ``query`` from the run's namespace (waits for its queued writes first)."""
        ns, settings, name, k = self._recall_target(context, config, k, namespace)
        self.writer.wait(ns, self.read_wait)
        return self._recall(query, ns, settings, name, k)

    async def arecall(
        self,
        query: str,
        *,
        context: Any = None,
        config: dict | None = None,
        k: int | None = None,
        namespace: str | None = None,
    ) -> RecallResult:
        ns, settings, name, k = self._recall_target(context, config, k, namespace)
        if self.writer.pending(ns):
            await asyncio.to_thread(self.writer.wait, ns, self.read_wait)
        store = await asyncio.to_thread(self._store, settings, ns)  # opening a store reads SQLite
        if store is None:
            return RecallResult(ns, self._name(name), query, [])
        if name == "navigator":
            from memgraph_agents.api.ops import navigation

            nav = await navigation(settings, store, query, k, self.navigator_llm)
            return self._from_navigation(ns, query, nav, k)
        return await asyncio.to_thread(self._recall, query, ns, settings, name, k)

    def _recall_target(
        self, context: Any, config: dict | None, k: int | None, namespace: str | None
    ) -> tuple[str, Settings, str | Retriever, int]:
        """Whose memory, with which settings, retriever and k: the same for ``recall`` and ``arecall``."""
        context, config = self._resolve(context, config)
        ns = self._explicit_or_run(namespace, context, config)
        name, default_k = self._run_options(context)
        return ns, self.settings_for(context), name, k or default_k

    @staticmethod
    def _name(name: str | Retriever) -> str:
        return name if isinstance(name, str) else getattr(name, "__name__", "custom")

    @staticmethod
    def _store(settings: Settings, ns: str):
        from memgraph_agents.runtime import get_store

        try:
            store = get_store(settings, ns, create=False)
        except NamespaceError:
            return None
        return store if store.sessions() else None

    def _from_navigation(self, ns: str, query: str, nav, k: int) -> RecallResult:
        evidence = nav.ranking[:k] or nav.evidence[:k]
        return RecallResult(ns, "navigator", query, evidence, answer=nav.answer, navigation=nav)

    def _recall(self, query: str, ns: str, settings: Settings, name: str | Retriever, k: int) -> RecallResult:
        if not query or not query.strip():
            raise ValueError("the recall query is empty")
        store = self._store(settings, ns)
        if store is None:
            return RecallResult(ns, self._name(name), query, [])
        if name == "navigator":
            from memgraph_agents.aio import background
            from memgraph_agents.api.ops import navigation

            nav = background.run(navigation(settings, store, query, k, self.navigator_llm))
            return self._from_navigation(ns, query, nav, k)
        if callable(name):
            evidence = name(query, store, k=k)
        else:
            from memgraph_agents.registry import retrieve

            evidence = retrieve(name, query, store, k=k)
        return RecallResult(ns, self._name(name), query, list(evidence)[:k])

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
        """Queue ``text`` as a new dated note session; returns at once (written in the background)."""
        from memgraph_agents.api.sources import note_conversation

        if not " ".join(str(text).split()):
            raise ValueError("nothing to remember: the text is empty")
        context, config = self._resolve(context, config)
        ns = self._explicit_or_run(namespace, context, config)
        settings = self.settings_for(context)
        conv = note_conversation(text, speaker=speaker)  # the same notes as Memory.add(text)
        sid = conv.id
        self.writer.submit(f"{ns}/{sid}", ns, settings, conv)
        return {"namespace": ns, "session": sid, "turn_id": f"{sid}:1", "queued": True}

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
        is fine; a thread becomes sessions ``<thread>-s1``, ``-s2`` … (a new one after a
        6-hour gap). Tool messages, tool-call-only AI messages and messages flagged
        ``additional_kwargs["memgraph_skip"]`` are not conversation and are not written.

        Each write appends: only the new turns are built (``construct.append``). A thread
        resumed after a restart continues what is stored: its stored turns are read back
        once (with their original dates), and a history replayed by a checkpointer (the
        stored turns again, in order, at the start of ``messages``) is not written twice.
        """
        from memgraph_agents.loaders.messages import conversation_from_messages

        context, config = self._resolve(context, config)
        ns = self._explicit_or_run(namespace, context, config)
        settings = self.settings_for(context)
        conf = (config or {}).get("configurable", {}) or {}
        thread = _clean_id(thread_id or conf.get("thread_id") or self.default_thread)
        now = datetime.now(UTC).replace(tzinfo=None)
        with self._lock:
            tr = self._transcripts.get((ns, thread))
            if tr is None:  # first sight of the thread in this process: continue what is stored
                stored = _stored_thread(settings, ns, thread)
                tr = self._transcripts[(ns, thread)] = _Transcript(messages=list(stored), stored=stored)
            added = 0
            for i, m in enumerate(messages):
                if not _conversational(m):
                    continue
                key = m.id or f"{i}:{hashlib.sha1(str(m.content).encode()).hexdigest()[:12]}"
                if key in tr.seen:
                    continue
                tr.seen.add(key)
                if tr.replayed < len(tr.stored) and _same_turn(m, tr.stored[tr.replayed]):
                    tr.replayed += 1  # history replayed by a checkpointer: stored already, keeps its date
                    continue
                tr.replayed = len(tr.stored)  # past the replayed history, every message is new
                stamp = (m.additional_kwargs or {}).get("timestamp") or (m.response_metadata or {}).get("timestamp")
                kwargs = {**(m.additional_kwargs or {}), "timestamp": stamp or now.isoformat()}
                tr.messages.append(m.model_copy(update={"additional_kwargs": kwargs}))
                added += 1
            if not added or not tr.messages:
                return None
            snapshot = list(tr.messages)
        names = {**self.speaker_names, **(speaker_names or {})}
        conv = conversation_from_messages(
            snapshot, conversation_id=thread, session_id=f"{thread}-s", speaker_names=names or None
        )
        self.writer.submit(f"{ns}/{thread}", ns, settings, conv)
        return {"namespace": ns, "thread": thread, "sessions": [s.id for s in conv.sessions], "added": added}

    # -- waiting -------------------------------------------------------------------------
    def flush(self, timeout: float | None = None) -> list[Any]:
        """Wait for every queued write (tests, shutdown); raises if one failed."""
        return self.writer.flush(timeout)

    async def aflush(self, timeout: float | None = None) -> list[Any]:
        return await asyncio.to_thread(self.writer.flush, timeout)

    def pending(self, namespace: str | None = None) -> int:
        return self.writer.pending(namespace)


def _stored_thread(settings: Settings, ns: str, thread: str) -> list[Any]:
    """The turns of ``thread`` already in memory, as messages with their stored timestamps."""
    from langchain_core.messages import HumanMessage

    from memgraph_agents.runtime import get_store

    try:
        store = get_store(settings, ns, create=False)
    except NamespaceError:
        return []
    pattern = re.compile(rf"{re.escape(thread)}-s(\d+)")
    numbered = [(int(m.group(1)), s) for s in store.sessions() if (m := pattern.fullmatch(s["id"]))]
    out = []
    for _n, s in sorted(numbered, key=lambda x: x[0]):
        for _turn_id, _digest, data in store.db.session_turns(s["id"]):
            # ``name`` carries the stored speaker exactly; the timestamp keeps the turn's date.
            out.append(
                HumanMessage(
                    content=data["text"],
                    name=data["speaker"],
                    additional_kwargs={"timestamp": data["timestamp"] or s["date"]},
                )
            )
    return out


def _same_turn(message: Any, stored: Any) -> bool:
    from memgraph_agents.loaders.messages import message_text

    return message_text(message) == stored.content


def _clean_id(value: Any) -> str:
    text = re.sub(r"[^A-Za-z0-9_.:-]+", "-", str(value)).strip("-")
    return text[:80] or "chat"


def _conversational(m: Any) -> bool:
    from langchain_core.messages import AIMessage, ChatMessage, HumanMessage

    if not isinstance(m, (HumanMessage, AIMessage, ChatMessage)):
        return False
    if (m.additional_kwargs or {}).get(SKIP_FLAG):
        return False
    content = m.content
    if isinstance(content, str):
        return bool(content.strip())
    return any(
        (isinstance(b, str) and b.strip())
        or (isinstance(b, dict) and b.get("type") == "text" and str(b.get("text", "")).strip())
        for b in content or []
    )
