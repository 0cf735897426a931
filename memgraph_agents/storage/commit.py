"""The commit protocol of ``MemoryStore`` (``storage.memory_store``; docs/architecture.md, "The
commit protocol"). A write adds a session (``new``), replaces a stored one (``replace``: an
edited session, or a rebuild with another builder or preset) or extends it with new turns
(``append``: a chat thread that grew):

1. Graph store: record the write in ``writes``; a new session also gets its row as ``pending``.
2. Chroma, in a namespace with a Chroma index (``storage.chroma_index``: only namespaces past
   ``MEMGRAPH_CHROMA_INDEX_NODES`` have one; the commit that takes one past it builds it):
   upsert the vectors of the write's nodes that have none yet: new ids, and the session's own
   nodes whose text changed (metadata ``session_id`` = the writing session).
3. Graph store, ONE transaction: the old version's rows out (all of them for ``replace``, the
   reopened tail for ``append``), the new rows in, the input turns, the session row
   ``committed`` (a note's new version recorded beside it), the ``writes`` row gone, the
   vectors of removed rows listed as garbage.
4. Chroma: delete the garbage vectors, then their garbage rows.

Without a Chroma index, steps 2 and 4 do nothing and step 1 goes into step 3's transaction:
that one transaction is the whole write (vectors are stored beside the rows in it), so a chat
turn costs one commit.

Readers see the old version until step 3 commits and the new one after it: snapshots read
committed rows, and a vector is used only when its stored document is the text of the
committed node (an unfinished replacement may already hold the next text under the same id).
A write that stops between the steps is finished or rolled back by ``storage.recovery``.
Writers hold the namespace's writer lock; ingests also hold the namespace's ingest lock
(``storage.locks``) from a session's check to its commit.

``StoreCommit`` is a base of ``MemoryStore``: its methods run on the store's own state (the
attributes below, set by ``MemoryStore.__init__``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import numpy as np

from memgraph_agents.embeddings.calibration import Calibration
from memgraph_agents.errors import SessionConflictError, StorageError
from memgraph_agents.model.graph import TOPIC_OWNER, Node
from memgraph_agents.model.notes import is_note_id
from memgraph_agents.storage import chroma_index
from memgraph_agents.storage.graph_store import GraphWrite
from memgraph_agents.storage.recovery import StoreRecovery
from memgraph_agents.storage.session_write import SessionWrite, check_dimension
from memgraph_agents.storage.snapshot import GraphSnapshot
from memgraph_agents.storage.snapshot_delta import Keyed, apply_delta, read_own_commit
from memgraph_agents.storage.usage import in_use
from memgraph_agents.storage.vector_rows import vector_rows


class StoreFault(StorageError):
    """Raised by test hooks to simulate a crash between the two stores."""


class StoreCommit(StoreRecovery):
    _snap_lock: threading.Lock
    _snapshot: GraphSnapshot | None
    _keyed: Keyed | None
    _vec_cache: dict[tuple[str, str], np.ndarray]
    _indexed: bool | None
    fault_hook: Callable[[str], object] | None

    if TYPE_CHECKING:  # defined by ``MemoryStore``

        @property
        def calibration(self) -> Calibration: ...
        def _check_model(self) -> None: ...
        def _index_limit(self) -> int: ...
        def _load_vectors(self, ids: list[str], texts: list[str]) -> dict[str, np.ndarray]: ...

    @in_use
    def commit_session(self, w: SessionWrite) -> None:
        """Add, replace or extend a session atomically (see the module docstring)."""
        check_dimension(w, self.embedder.dim, self.embedder.name)  # before anything is written
        with self.own_data_dir(), self._thread_lock, self.lock:
            r = w.record
            self._check_model()
            self._check_mode(w)
            now = datetime.now(UTC).isoformat(timespec="seconds")
            base = self._keyed
            fresh = self._vectors_to_write(w)
            build = self._index_to_build(len(fresh))
            indexed = build or self.indexed()
            if indexed:
                with self.db.write() as t:  # 1. the write is recorded before any vector
                    self._begin(t, w, now)
            began = self.db.generation()
            try:
                if build:  # this commit takes the namespace past the threshold: index what is stored
                    chroma_index.build_index(self.db, self.vectors, self.embedder)
                if fresh and indexed:  # 2. vectors (a committed node's own vector is never touched for another text)
                    self.vectors.upsert(
                        [n.id for n in fresh],
                        np.stack([w.vectors[n.id] for n in fresh]),
                        [n.kind.value for n in fresh],
                        [r.id] * len(fresh),
                        [n.text for n in fresh],
                    )
                if self.fault_hook is not None:
                    self.fault_hook("after_vectors")
                with self.db.write() as t:  # 3. one transaction: old rows out, new rows in, committed
                    if not indexed:  # nothing outside this transaction: it is the whole write
                        self._begin(t, w, now)
                    garbage, removed = self._write_rows(t, w, now)
                    if indexed:  # Chroma's copies go in step 4
                        t.add_garbage(garbage)
                    if build:
                        t.set_meta(chroma_index.INDEX_META, chroma_index.ON)
                    t.drop_vectors(garbage)  # the vectors beside the rows follow them
                    t.put_vectors(vector_rows({n.id: w.vectors[n.id] for n in fresh}, {n.id: n.text for n in fresh}))
                    t.end_write(r.id)
            except StoreFault:  # a simulated crash: leave the unfinished write for ``recover``
                raise
            except BaseException:
                # A failure we survive (Chroma refused the batch, bad text, interrupt): undo the
                # write now, instead of at the next open. If even that fails (the Chroma server
                # is gone), the ``writes`` row stays for ``recover``.
                try:
                    self._undo_write(r.id, w.mode)
                except Exception:
                    pass
                raise
            if build:
                self._indexed = True
            for n in fresh:
                self._vec_cache[(n.id, n.text)] = np.asarray(w.vectors[n.id], dtype=np.float32)
            # The snapshot after our own commit, from the cached one (no reload of the namespace).
            # (without a Chroma index the commit was one transaction: one generation, not two)
            delta = read_own_commit(self.db, base, began + 1, w, removed, steps=2 if indexed else 1)
            collected = self._collect_garbage()  # 4. vectors of removed rows (again by ``recover`` after a crash)
            if delta is not None and base is not None and self.db.generation() == delta.generation + collected:
                self._install(base, apply_delta(base, delta, delta.generation + collected, self._load_vectors))

    @staticmethod
    def _begin(t: GraphWrite, w: SessionWrite, now: str) -> None:
        """Step 1's rows: the unfinished write, and a new session's row as ``pending``."""
        t.begin_write(w.record.id, w.mode, now)
        if w.mode == "new":
            t.add_pending_session({**w.record.model_dump(), "ingested_at": now})

    def _index_to_build(self, adding: int) -> bool:
        """Whether this commit (holding the writer lock) must build the Chroma index first."""
        if self.indexed():
            return False
        limit = self._index_limit()
        # The exact count scans every node: only asked for when the cheap bound is past the limit.
        if not chroma_index.needs_build(self.db.embedded_bound() + adding, limit):
            return False
        return chroma_index.needs_build(self.db.embedded_count() + adding, limit)

    def _install(self, base: Keyed, result: tuple[GraphSnapshot, Keyed] | None) -> None:
        """Make a delta's snapshot the cached one, unless a reader reloaded meanwhile."""
        if result is None:
            return
        with self._snap_lock:
            if self._keyed is base and self._snapshot is base.snap:
                result[0].set_calibration(lambda: self.calibration)
                self._snapshot, self._keyed = result

    def _check_mode(self, w: SessionWrite) -> None:
        # What a writer that died left of this session (we hold the writer lock, so none is
        # running) is rolled back first, as ``recover`` would: a worker sharing the graph
        # server writes the session again without reopening the namespace.
        left = dict(self.db.pending_writes()).get(w.record.id)
        if left is not None:
            self._undo_write(w.record.id, left)
        row = self.db.session(w.record.id, status=None)
        if row is not None and row["status"] in ("pending", "deleting"):
            self._finish_delete(w.record.id)
            row = None
        if w.mode == "new" and row is not None:
            raise SessionConflictError(f"session {w.record.id!r} already exists in namespace {self.namespace!r}")
        if w.mode != "new" and (row is None or row["status"] != "committed"):
            raise SessionConflictError(
                f"cannot {w.mode} session {w.record.id!r} in namespace {self.namespace!r}: it is not stored"
            )

    def _vectors_to_write(self, w: SessionWrite) -> list[Node]:
        """Embedded nodes of the write whose vector is not stored yet: new ids, and this
        session's own nodes whose text changed (another session's node is never rewritten)."""
        stored = self.db.node_texts(n.id for n in w.nodes)
        out = []
        for n in w.nodes:
            if not n.embed or n.id not in w.vectors:
                continue
            old = stored.get(n.id)
            if old is None or (w.mode != "new" and old[1] == w.record.id and (old[0] != n.text or not old[2])):
                out.append(n)
        return out

    def _write_rows(self, t: GraphWrite, w: SessionWrite, now: str) -> tuple[list[str], list[str]]:
        """The rows of the write; returns (vectors to collect, node ids ``drop_rows`` removed)."""
        r = w.record
        keep = {n.id for n in w.nodes} | {e.src for e in w.edges} | {e.dst for e in w.edges}
        garbage: list[str] = []
        removed: list[str] = []
        if w.mode == "replace":
            removed, garbage = t.drop_rows(r.id, None, keep)
        elif w.mode == "append" and w.drop_nodes:
            removed, garbage = t.drop_rows(r.id, list(w.drop_nodes))
        t.insert_nodes(w.nodes)
        t.add_owner(sorted({e.dst for e in w.edges} | {e.src for e in w.edges}), r.id)
        t.insert_edges(w.edges)
        if w.replace_kinds or w.replace_nodes or w.replace_edges:  # topics: all rewritten, or those touched
            self._replace_derived(t, w)
        t.write_turns(r.id, w.turns_start, w.turns, replace=w.mode != "append")
        t.commit_session_row(r.model_dump())
        if is_note_id(r.id) and w.turns:  # a note's every version, in the commit that stores it
            t.add_version(r.id, str(w.turns[0][2].get("text", "")), r.metadata, now)
        # A removed id written again by this commit keeps its (new) vector; a node of this
        # session that the new version no longer embeds (e.g. an event now fused) loses it.
        rewritten = {n.id for n in w.nodes if n.embed}
        garbage = [g for g in garbage if g not in rewritten]
        if w.mode != "new":
            unembedded = [n.id for n in w.nodes if not n.embed]
            garbage += [
                i for i, (_, owner, embedded) in t.node_texts(unembedded).items() if owner == r.id and not embedded
            ]
        return garbage, removed

    def _replace_derived(self, t: GraphWrite, w: SessionWrite) -> None:
        for kind in w.replace_kinds:
            t.drop_derived(kind, TOPIC_OWNER)
        t.insert_nodes(w.replace_nodes or [], replace=True)
        t.insert_edges(w.replace_edges or [], replace=True)
