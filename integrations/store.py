"""``MemgraphStore``: LangGraph's ``BaseStore`` over graph memory.

An app written against a store (``graph.compile(store=...)``, ``create_agent(store=...)``,
``get_store()``, langmem's memory tools) switches to graph memory by swapping the store.
Semantics follow ``InMemoryStore`` except ranking: every distinct namespace tuple is its own
memgraph namespace (``graph_namespace``); values live unchanged in an item table
(``store_items``); each put is also ingested as a dated note (one session), which an
overwrite replaces and a delete removes with exactly its nodes, edges and vectors. Value and
note change together or not at all: a put is recorded as an intent, the graph commits, then
the value (``store_items``); a put that fails or a crash between the steps is settled by what
the graph committed. A search
with a query ranks with the configured retriever over that event graph: every indexed item
carries a score (its note's best evidence score; 0.0 for one the ranking did not reach), best
first; items put with ``index=False`` (no note) follow unscored (``score=None``), like
``InMemoryStore``'s items without vectors. A relevance floor leaves out the items below it:
the call's ``min_score`` (``search`` / ``asearch`` take it besides ``BaseStore``'s
arguments), else the store's (``MemgraphStore(min_score=...)``); a store with none applies
none, as ``InMemoryStore``. Values come back as put: what JSON cannot keep is refused
(``store_values``). Filters are the project's one filter language (``model.metadata``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from filelock import FileLock
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    _validate_namespace_labels,  # BaseStore.search's own check, for the overrides below
)

from memgraph_agents.aio import off_loop
from memgraph_agents.api import Memory
from memgraph_agents.api.ops import exists, open_store
from memgraph_agents.api.overrides import check_min_score
from memgraph_agents.config import Settings
from memgraph_agents.construct.session_plan import holds
from memgraph_agents.datadir import ensure_private_dir
from memgraph_agents.integrations.store_items import ItemTable, graph_namespace, namespace_matches, session_id
from memgraph_agents.integrations.store_values import (
    Index,
    check_index,
    check_value,
    decode_index,
    encode_index,
    note_text,
)
from memgraph_agents.model.conversation import Conversation, Session, Turn
from memgraph_agents.model.metadata import check_filter, matches

NOTE_SPEAKER = "memory"


def _search_call(
    namespace_prefix: tuple[str, ...],
    query: str | None,
    filter: dict[str, Any] | None,
    limit: int,
    offset: int,
    min_score: float | None,
) -> tuple[SearchOp, float | None]:
    """A search call's arguments checked (the floor in [0, 1], the namespace labels as
    ``BaseStore.search`` checks them), as the operation and the floor ``_search`` takes."""
    floor = check_min_score(min_score)
    _validate_namespace_labels(namespace_prefix)
    return SearchOp(namespace_prefix, filter, limit, offset, query), floor


class MemgraphStore(BaseStore):
    """``BaseStore`` on an event-graph memory in ``data_dir`` (or ``settings.data_dir``)."""

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        retriever: str | None = None,
        embeddings: Any = None,
        llm: Any = None,
        min_score: float | None = None,
    ) -> None:
        """``data_dir`` overrides ``settings.data_dir`` (settings default: ``MEMGRAPH_*``);
        ``retriever`` ranks query searches (default: the preset's, else ``settings.retriever``);
        ``embeddings`` / ``llm``: a spec or a LangChain model object (as ``Memory`` takes them);
        ``min_score``: the relevance floor of query searches, in [0, 1] (default: the settings')."""

        self.min_score = check_min_score(min_score)  # before anything is opened
        self.memory = Memory(data_dir, settings=settings, embeddings=embeddings, llm=llm)
        self.settings = self.memory.settings
        self.retriever = retriever  # None: the preset's retriever, else settings.retriever
        self.items = ItemTable(Path(self.settings.data_dir) / "store" / "items.sqlite")
        self._recover()

    # -- graph side (through ``Memory``) -----------------------------------------------------
    def _note(self, item: Item, index: Index = None) -> Conversation | None:
        """The item as a dated note: one session of one turn, named after its key; ``None`` when
        nothing of it is indexed (``PutOp.index=False``, or no text in the indexed fields)."""
        text = note_text(item.value, index)
        if not text.strip():
            return None
        sid = session_id(item.key)
        session = Session(
            id=sid,
            date=item.updated_at.replace(tzinfo=None),
            turns=[Turn(id=f"{sid}:1", speaker=NOTE_SPEAKER, text=text)],
            participants=[NOTE_SPEAKER],
        )
        return Conversation(id=sid, sessions=[session])

    def _graph(self, namespace: tuple[str, ...]):
        """The namespace's graph store, or ``None`` before its first put (tests, stats)."""

        ns = graph_namespace(namespace)
        return open_store(self.settings, ns) if exists(self.settings, ns) else None

    def _has_note(self, namespace: tuple[str, ...], key: str) -> bool:
        store = self._graph(namespace)
        return store is not None and any(s["id"] == session_id(key) for s in store.sessions())

    def _forget_note(self, namespace: tuple[str, ...], key: str) -> None:
        if self._has_note(namespace, key):
            self.memory.forget(namespace=graph_namespace(namespace), session=session_id(key))

    def _scores(self, namespace: tuple[str, ...], query: str, min_score: float) -> dict[str, float]:
        """Session id -> score for ``query`` of every note in one namespace's graph at or above
        the relevance floor ``min_score``: its best evidence score, 0.0 for a note the ranking
        did not reach (with no floor, every indexed item is scored, as in ``InMemoryStore``)."""
        store = self._graph(namespace)
        notes = [s["id"] for s in store.sessions()] if store is not None else []
        if not notes:
            return {}
        hits = self.memory.search(
            query, namespace=graph_namespace(namespace), k=len(notes), retriever=self.retriever, min_score=min_score
        )
        out: dict[str, float] = {}
        for ev in hits:
            for sid in ev.session_ids:
                out[sid] = max(out.get(sid, float("-inf")), float(ev.score))
        if min_score <= 0.0:
            out = {sid: out.get(sid, 0.0) for sid in notes}
        return out

    # -- search with the call's relevance floor ------------------------------------------------
    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        min_score: float | None = None,
    ) -> list[SearchItem]:
        """``BaseStore.search`` plus ``min_score``: this call's relevance floor in [0, 1]
        (default: the store's; a store with none applies none); a query's items below it are
        left out, every other indexed item carries its score.
        ``refresh_ttl`` is accepted and means nothing: items here never expire."""
        return self._search(*_search_call(namespace_prefix, query, filter, limit, offset, min_score))

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        min_score: float | None = None,
    ) -> list[SearchItem]:
        return await off_loop(self._search, *_search_call(namespace_prefix, query, filter, limit, offset, min_score))

    # -- operations --------------------------------------------------------------------------
    def _search(self, op: SearchOp, min_score: float | None = None) -> list[SearchItem]:
        """``op``'s items; with a query, the indexed ones at or above the floor (``min_score``,
        else the store's, else none) first, best score first, then the unindexed ones
        (``PutOp.index=False``) with no score, as ``InMemoryStore`` lists items without vectors."""
        floor = self.min_score if min_score is None else min_score
        if op.query:
            self.settings.limits.check_query(op.query)  # refused before any item is read
        # The project's one filter language (model.metadata), over the value's fields.
        where = check_filter(op.filter, any_key=True)
        items = [i for i in self.items.under(op.namespace_prefix) if matches(i.value, where)]
        scored: list[tuple[float | None, Item]] = [(None, i) for i in items]
        if op.query and items:
            scores: dict[tuple[tuple[str, ...], str], float] = {}
            indexed: set[tuple[tuple[str, ...], str]] = set()
            for ns in dict.fromkeys(i.namespace for i in items):
                store = self._graph(ns)
                indexed |= {(ns, s["id"]) for s in store.sessions()} if store is not None else set()
                for sid, s in self._scores(ns, op.query, floor or 0.0).items():
                    scores[(ns, sid)] = s
            hit = [
                (scores[(i.namespace, session_id(i.key))], i)
                for i in items
                if (i.namespace, session_id(i.key)) in scores
            ]
            hit.sort(key=lambda p: (-p[0], p[1].namespace, p[1].key))  # ties: by namespace, then key
            rest = [(None, i) for i in items if (i.namespace, session_id(i.key)) not in indexed]
            scored = [*hit, *rest]
        return [
            SearchItem(
                namespace=i.namespace,
                key=i.key,
                value=i.value,
                created_at=i.created_at,
                updated_at=i.updated_at,
                score=s,
            )
            for s, i in scored[op.offset : op.offset + op.limit]
        ]

    def _list(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        names = [
            ns for ns in self.items.namespaces() if all(namespace_matches(c, ns) for c in op.match_conditions or ())
        ]
        names = sorted({ns[: op.max_depth] for ns in names}) if op.max_depth is not None else sorted(names)
        return names[op.offset : op.offset + op.limit]

    def _put(self, op: PutOp) -> None:
        """Value and note together or not at all (``store_items``: intent, graph commit, item)."""
        # One put per graph namespace at a time, across threads and processes: an intent is
        # settled by what the graph holds, so another put of the key must not run in between.
        value = None if op.value is None else check_value(op.value)  # refused before anything is written
        index = check_index(op.index)
        with self._put_lock(op.namespace):
            item = self.items.begin(op.namespace, op.key, value, encode_index(index))
            try:
                note = None if item is None else self._note(item, index)
                if note is None:  # a delete, or nothing indexed: no note (the old one goes exactly)
                    self._forget_note(op.namespace, op.key)
                else:  # one commit replaces the old note (if any) by the new one
                    self.memory.add(note, namespace=graph_namespace(op.namespace), replace=True)
            finally:
                self._settle(op.namespace, op.key)

    def _put_lock(self, namespace: tuple[str, ...]) -> FileLock:
        folder = Path(self.settings.data_dir) / "store" / "locks"
        ensure_private_dir(folder)
        return FileLock(str(folder / f"{graph_namespace(namespace)}.lock"), mode=0o600)

    def _settle(self, namespace: tuple[str, ...], key: str) -> None:
        """Finish the put recorded for ``key`` if its graph commit happened, else drop it."""
        intent = self.items.pending(namespace, key)
        if intent is None:
            return
        store = self._graph(namespace)
        record = store.session(session_id(key)) if store is not None else None
        note = None if intent.item is None else self._note(intent.item, decode_index(intent.index))
        done = record is None if note is None else holds(record, note.sessions[0])
        (self.items.commit if done else self.items.abort)(namespace, key)

    def _recover(self) -> None:
        """Settle the puts a crash cut short (their graph commit decides)."""
        for namespace, key in self.items.pendings():
            with self._put_lock(namespace):  # not one still under way in another process
                self._settle(namespace, key)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self.items.get(op.namespace, op.key))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            else:
                raise ValueError(f"unknown store operation: {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # SQLite, Chroma and embeddings in worker threads; a put's ingest runs on Memory's one
        # background loop (``add`` from the worker): never on the caller's loop, never a new loop.
        return await off_loop(self.batch, list(ops))


__all__ = ["MemgraphStore", "note_text"]  # note_text: integrations.store_values
