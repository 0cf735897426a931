"""``MemgraphStore``: LangGraph's ``BaseStore`` over graph memory.

An app written against a store (``graph.compile(store=...)``, ``create_agent(store=...)``,
``get_store()``, langmem's memory tools) switches to graph memory by swapping the store.
Semantics follow ``InMemoryStore`` except ranking: every distinct namespace tuple is its own
memgraph namespace (``graph_namespace``); values live unchanged in an item table
(``store_items``); each put is also ingested as a dated note (one session), which an
overwrite replaces and a delete removes with exactly its nodes, edges and vectors. A search
with a query ranks with the configured retriever over that event graph; items it does not
reach follow, unscored, like ``InMemoryStore``'s items without vectors.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore, GetOp, Item, ListNamespacesOp, Op, PutOp, Result, SearchItem, SearchOp
from langgraph.store.memory import _compare_values, _does_match  # InMemoryStore's own filter/match rules

from memgraph_agents.aio import off_loop
from memgraph_agents.config import Settings
from memgraph_agents.integrations.store_items import ItemTable, graph_namespace, session_id
from memgraph_agents.model.conversation import Conversation, Session, Turn

NOTE_SPEAKER = "memory"


def note_text(value: dict[str, Any]) -> str:
    """What a value says: its ``content``/``text`` string when it has one, else its JSON."""
    for field in ("content", "text", "memory"):
        if isinstance(value.get(field), str) and value[field].strip():
            return value[field]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class MemgraphStore(BaseStore):
    """``BaseStore`` on an event-graph memory in ``data_dir`` (or ``settings.data_dir``)."""

    def __init__(self, data_dir: str | Path | None = None, *, settings: Settings | None = None,
                 retriever: str | None = None) -> None:
        base = settings or Settings()
        self.settings = base.model_copy(update={"data_dir": Path(data_dir)}) if data_dir is not None else base
        self.retriever = retriever or self.settings.retriever
        self.items = ItemTable(Path(self.settings.data_dir) / "store" / "items.sqlite")

    # -- graph side --------------------------------------------------------------------------
    def _graph(self, namespace: tuple[str, ...], create: bool):
        from memgraph_agents.errors import NamespaceError
        from memgraph_agents.runtime import get_store

        try:
            return get_store(self.settings, graph_namespace(namespace), create=create)
        except NamespaceError:
            return None

    def _note(self, item: Item) -> Conversation:
        """The item as a dated note: one session of one turn, named after its key."""
        sid = session_id(item.key)
        session = Session(id=sid, date=item.updated_at.replace(tzinfo=None),
                          turns=[Turn(id=f"{sid}:1", speaker=NOTE_SPEAKER, text=note_text(item.value))],
                          participants=[NOTE_SPEAKER])
        return Conversation(id=sid, sessions=[session])

    def _write_note(self, item: Item, overwritten: bool) -> None:
        from memgraph_agents.ingest import ingest_conversation

        if overwritten:
            self._forget_note(item.namespace, item.key)
        ingest_conversation(self._note(item), self.settings, namespace=graph_namespace(item.namespace))

    def _forget_note(self, namespace: tuple[str, ...], key: str) -> None:
        store = self._graph(namespace, create=False)
        if store is not None and any(s["id"] == session_id(key) for s in store.sessions()):
            store.delete_session(session_id(key))

    def _scores(self, namespace: tuple[str, ...], query: str, k: int) -> dict[str, float]:
        """Session id -> best evidence score for ``query`` in one namespace's graph."""
        from memgraph_agents.retrieval.registry import retrieve

        store = self._graph(namespace, create=False)
        if store is None or not store.sessions():
            return {}
        out: dict[str, float] = {}
        for ev in retrieve(self.retriever, query, store, k=k):
            for sid in ev.session_ids:
                out[sid] = max(out.get(sid, float("-inf")), float(ev.score))
        return out

    # -- operations --------------------------------------------------------------------------
    def _search(self, op: SearchOp) -> list[SearchItem]:
        items = [i for i in self.items.under(op.namespace_prefix)
                 if not op.filter or all(_compare_values(i.value.get(f), v) for f, v in op.filter.items())]
        scored: list[tuple[float | None, Item]] = [(None, i) for i in items]
        if op.query and items:
            k = max(op.limit + op.offset, 10)
            scores: dict[tuple[tuple[str, ...], str], float] = {}
            for ns in dict.fromkeys(i.namespace for i in items):
                for sid, s in self._scores(ns, op.query, k).items():
                    scores[(ns, sid)] = s
            hit = [(scores[(i.namespace, session_id(i.key))], i) for i in items
                   if (i.namespace, session_id(i.key)) in scores]
            hit.sort(key=lambda p: (-p[0], p[1].namespace, p[1].key))  # ties: by namespace, then key
            rest = [(None, i) for i in items if (i.namespace, session_id(i.key)) not in scores]
            scored = [*hit, *rest]
        return [SearchItem(namespace=i.namespace, key=i.key, value=i.value, created_at=i.created_at,
                           updated_at=i.updated_at, score=s)
                for s, i in scored[op.offset: op.offset + op.limit]]

    def _list(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        names = [ns for ns in self.items.namespaces()
                 if all(_does_match(c, ns) for c in op.match_conditions or ())]
        names = sorted({ns[: op.max_depth] for ns in names}) if op.max_depth is not None else sorted(names)
        return names[op.offset: op.offset + op.limit]

    def _put(self, op: PutOp) -> None:
        if op.value is None:
            if self.items.delete(op.namespace, op.key):
                self._forget_note(op.namespace, op.key)
            return
        item, overwritten = self.items.put(op.namespace, op.key, dict(op.value))
        self._write_note(item, overwritten)

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
        # SQLite, Chroma and embeddings in worker threads; a put's ingest runs its graph on this
        # loop (its nodes keep their blocking work off it), not on a new loop per call.
        from memgraph_agents.ingest import aingest_conversation

        results: list[Result] = []
        for op in ops:
            if isinstance(op, PutOp) and op.value is not None:
                item, overwritten = await off_loop(self.items.put, op.namespace, op.key, dict(op.value))
                if overwritten:
                    await off_loop(self._forget_note, item.namespace, item.key)
                await aingest_conversation(self._note(item), self.settings, namespace=graph_namespace(item.namespace))
                results.append(None)
            else:
                results.extend(await off_loop(self.batch, [op]))
        return results


__all__ = ["MemgraphStore", "note_text"]
