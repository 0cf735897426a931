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

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        settings: Settings | None = None,
        retriever: str | None = None,
        embeddings: Any = None,
        llm: Any = None,
    ) -> None:
        """``data_dir`` overrides ``settings.data_dir`` (settings default: ``MEMGRAPH_*``);
        ``retriever`` ranks query searches (default: the preset's, else ``settings.retriever``);
        ``embeddings`` / ``llm``: a spec or a LangChain model object (as ``Memory`` takes them)."""
        from memgraph_agents.api import Memory

        self.memory = Memory(data_dir, settings=settings, embeddings=embeddings, llm=llm)
        self.settings = self.memory.settings
        self.retriever = retriever  # None: the preset's retriever, else settings.retriever
        self.items = ItemTable(Path(self.settings.data_dir) / "store" / "items.sqlite")

    # -- graph side (through ``Memory``) -----------------------------------------------------
    def _note(self, item: Item) -> Conversation:
        """The item as a dated note: one session of one turn, named after its key."""
        sid = session_id(item.key)
        session = Session(
            id=sid,
            date=item.updated_at.replace(tzinfo=None),
            turns=[Turn(id=f"{sid}:1", speaker=NOTE_SPEAKER, text=note_text(item.value))],
            participants=[NOTE_SPEAKER],
        )
        return Conversation(id=sid, sessions=[session])

    def _graph(self, namespace: tuple[str, ...]):
        """The namespace's graph store, or ``None`` before its first put (tests, stats)."""
        from memgraph_agents.api.ops import exists, open_store

        ns = graph_namespace(namespace)
        return open_store(self.settings, ns) if exists(self.settings, ns) else None

    def _has_note(self, namespace: tuple[str, ...], key: str) -> bool:
        store = self._graph(namespace)
        return store is not None and any(s["id"] == session_id(key) for s in store.sessions())

    def _forget_note(self, namespace: tuple[str, ...], key: str) -> None:
        if self._has_note(namespace, key):
            self.memory.forget(namespace=graph_namespace(namespace), session=session_id(key))

    def _scores(self, namespace: tuple[str, ...], query: str, k: int) -> dict[str, float]:
        """Session id -> best evidence score for ``query`` in one namespace's graph."""
        out: dict[str, float] = {}
        for ev in self.memory.search(query, namespace=graph_namespace(namespace), k=k, retriever=self.retriever):
            for sid in ev.session_ids:
                out[sid] = max(out.get(sid, float("-inf")), float(ev.score))
        return out

    # -- operations --------------------------------------------------------------------------
    def _search(self, op: SearchOp) -> list[SearchItem]:
        items = [
            i
            for i in self.items.under(op.namespace_prefix)
            if not op.filter or all(_compare_values(i.value.get(f), v) for f, v in op.filter.items())
        ]
        scored: list[tuple[float | None, Item]] = [(None, i) for i in items]
        if op.query and items:
            k = max(op.limit + op.offset, 10)
            scores: dict[tuple[tuple[str, ...], str], float] = {}
            for ns in dict.fromkeys(i.namespace for i in items):
                for sid, s in self._scores(ns, op.query, k).items():
                    scores[(ns, sid)] = s
            hit = [
                (scores[(i.namespace, session_id(i.key))], i)
                for i in items
                if (i.namespace, session_id(i.key)) in scores
            ]
            hit.sort(key=lambda p: (-p[0], p[1].namespace, p[1].key))  # ties: by namespace, then key
            rest = [(None, i) for i in items if (i.namespace, session_id(i.key)) not in scores]
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
        names = [ns for ns in self.items.namespaces() if all(_does_match(c, ns) for c in op.match_conditions or ())]
        names = sorted({ns[: op.max_depth] for ns in names}) if op.max_depth is not None else sorted(names)
        return names[op.offset : op.offset + op.limit]

    def _put(self, op: PutOp) -> None:
        if op.value is None:
            if self.items.delete(op.namespace, op.key):
                self._forget_note(op.namespace, op.key)
            return
        item, overwritten = self.items.put(op.namespace, op.key, dict(op.value))
        if overwritten:  # the old note goes with exactly its nodes, edges and vectors
            self._forget_note(item.namespace, item.key)
        self.memory.add(self._note(item), namespace=graph_namespace(item.namespace))

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
        # background loop (aadd): never on the caller's loop, never a new loop per call.
        results: list[Result] = []
        for op in ops:
            if isinstance(op, PutOp) and op.value is not None:
                item, overwritten = await off_loop(self.items.put, op.namespace, op.key, dict(op.value))
                if overwritten:
                    await off_loop(self._forget_note, item.namespace, item.key)
                await self.memory.aadd(self._note(item), namespace=graph_namespace(item.namespace))
                results.append(None)
            else:
                results.extend(await off_loop(self.batch, [op]))
        return results


__all__ = ["MemgraphStore", "note_text"]
