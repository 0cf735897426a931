"""Crash recovery and deletes of ``MemoryStore`` (``storage.memory_store``): finish or roll back
what a write left, and remove a session.

Recovery on open (and at once after a failure the process survives): an unfinished new
session is removed; for an unfinished replacement or append, vectors the write stored for ids
that no committed node has are deleted and vectors stored for another text are computed again
from the committed text, so the old version is whole; a ``deleting`` session is finished;
garbage vectors are deleted. Every step is idempotent. The commit protocol these undo is
``storage.commit``'s.

``StoreRecovery`` is a base of ``MemoryStore``: its methods run on the store's own state (the
attributes below, set by ``MemoryStore.__init__``).
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memgraph_agents.embeddings import EmbeddingModel
from memgraph_agents.storage.graph_store import GraphStore
from memgraph_agents.storage.locks import DataDirInUseError, process_lock
from memgraph_agents.storage.usage import in_use
from memgraph_agents.storage.vectors import VectorIndex


class StoreRecovery:
    namespace: str
    data_dir: Path
    db: GraphStore
    vectors: VectorIndex
    embedder: EmbeddingModel
    lock: AbstractContextManager[Any]
    _thread_lock: threading.RLock
    _embedded: bool

    if TYPE_CHECKING:  # defined by ``MemoryStore``

        def indexed(self) -> bool: ...

    def own_data_dir(self, timeout: float | None = None):
        """The data dir's process lock for one write (``storage.locks.process_lock``: another
        process's writer waits for it, then writes); a read never needs it. With a Chroma server
        there is nothing to share: no lock."""
        if self._embedded:
            return process_lock(self.data_dir / "chroma", timeout)
        return nullcontext()

    def _collect_garbage(self) -> int:
        """Delete the vectors of removed rows; the number of graph transactions it made (0, 1)."""
        ids = self.db.vector_garbage()
        if not ids:
            return 0
        if self.indexed():
            self.vectors.delete(ids)
        with self.db.write() as t:
            t.remove_garbage(ids)
        return 1

    def _repair_vectors(self, session_id: str) -> None:
        """Make Chroma agree with the committed rows for what ``session_id``'s writes stored:
        vectors of ids no committed node has go; a vector stored for another text than the
        committed node's (an unfinished replacement) is computed again from the committed text.
        Without a Chroma index there is nothing to repair: what Chroma holds is never read."""
        if not self.indexed():
            return
        written = self.vectors.written_by(session_id)
        if not written:
            return
        stored = self.db.node_texts(written)
        stray = [i for i in written if i not in stored or not stored[i][2]]
        stale = sorted(i for i, doc in written.items() if i in stored and stored[i][2] and stored[i][0] != doc)
        if stray:
            self.vectors.delete(sorted(stray))
        if stale:
            texts = [stored[i][0] for i in stale]
            kinds = [k for k in self._kinds(stale)]
            self.vectors.upsert(
                stale,
                np.asarray(self.embedder.embed(texts), dtype=np.float32),
                kinds,
                [stored[i][1] for i in stale],
                texts,
            )

    def _kinds(self, ids: list[str]) -> list[str]:
        kind = self.db.node_kinds(ids)
        return [kind[i] for i in ids]

    def _undo_write(self, session_id: str, mode: str) -> None:
        if mode == "new":
            self._finish_delete(session_id)
        else:
            self._repair_vectors(session_id)
        with self.db.write() as t:
            t.end_write(session_id)

    @in_use
    def delete_session(self, session_id: str) -> dict:
        """Remove exactly what ``session_id`` stated; what other sessions state too stays."""
        with self.own_data_dir(), self._thread_lock, self.lock:
            if self.db.session(session_id, status=None) is None:
                raise KeyError(f"no session {session_id!r} in namespace {self.namespace!r}")
            with self.db.write() as t:
                t.set_session_status(session_id, "deleting")
            return self._finish_delete(session_id)

    def _finish_delete(self, session_id: str) -> dict:
        owned = set(self.db.owned_node_ids(session_id))
        with self.db.write() as t:  # rows first: readers never see a row without its vector
            removed, garbage = t.drop_rows(session_id, None)
            if self.indexed():
                t.add_garbage(garbage)
            t.drop_vectors(garbage)
            t.remove_session(session_id)
        self._collect_garbage()
        self._repair_vectors(session_id)  # leftovers of an unfinished write of this session
        return {"session": session_id, "nodes_removed": len(removed), "nodes_kept": len(owned - set(removed))}

    @in_use
    def recover(self) -> None:
        """Finish or roll back what a crash interrupted (idempotent): an unfinished new session
        goes, an unfinished replacement or append leaves the old version as it was, a delete
        is finished, and vectors of removed rows are deleted."""
        if not (
            self.db.sessions("pending")
            or self.db.sessions("deleting")
            or self.db.pending_writes()
            or self.db.vector_garbage()
        ):
            return
        try:
            with self.own_data_dir(timeout=0), self._thread_lock, self.lock:
                for s in self.db.sessions("pending") + self.db.sessions("deleting"):
                    self._finish_delete(s["id"])
                for sid, mode in self.db.pending_writes():
                    self._undo_write(sid, mode)
                self._collect_garbage()
        except DataDirInUseError:
            return  # another process is writing (or holds its Chroma index): the next open or write finishes these
