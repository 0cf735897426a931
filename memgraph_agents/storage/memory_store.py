"""``MemoryStore``: one namespace's memory = SQLite graph + Chroma vectors + cached snapshot.

Commit protocol (docs/architecture.md, "The commit protocol"). A write adds a session (``new``), replaces
a stored one (``replace``: an edited session, or a rebuild with another builder or preset) or
extends it with new turns (``append``: a chat thread that grew):

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
Crash recovery on open (and at once after a failure the process survives): an unfinished
new session is removed; for an unfinished replacement or append, vectors the write stored
for ids that no committed node has are deleted and vectors stored for another text are
computed again from the committed text, so the old version is whole; a ``deleting`` session
is finished; garbage vectors are deleted. Every step is idempotent.
Writers hold the namespace's writer lock; ingests also hold the namespace's ingest lock
(``storage.locks``) from a session's check to its commit. Snapshots are read in one read
transaction (README "Concurrency model").

The graph store is SQLite in the data dir or PostgreSQL (``storage.graph_store`` picks it);
this module speaks only its interface (``GraphStore``, ``GraphWrite``), never SQL.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import nullcontext
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from memgraph_agents.datadir import check_data_dir, ensure_private_dir
from memgraph_agents.embeddings import EmbeddingModel, make_embedding_model, spec_for
from memgraph_agents.embeddings.calibration import Calibration
from memgraph_agents.errors import SessionConflictError, StorageError
from memgraph_agents.model.graph import TOPIC_OWNER, Node
from memgraph_agents.model.notes import is_note_id
from memgraph_agents.model.ranking import sort_pairs
from memgraph_agents.storage import chroma_index
from memgraph_agents.storage.embedding_mark import MODEL_META, mismatch, recorded_calibration, recorded_model
from memgraph_agents.storage.exact_search import exact_search
from memgraph_agents.storage.graph_store import GraphStore, GraphWrite, graph_exists, is_server_url, open_graph_store
from memgraph_agents.storage.identity import (
    collection_name,
    legacy_collection_name,
    memory_dir,
    server_collection_name,
    store_id,
)
from memgraph_agents.storage.locks import DataDirInUseError, namespace_ingest_lock, process_lock
from memgraph_agents.storage.namespaces import validate_stored_name
from memgraph_agents.storage.session_write import SessionWrite, check_dimension
from memgraph_agents.storage.snapshot import GraphSnapshot
from memgraph_agents.storage.snapshot_delta import Keyed, apply_delta, read_own_commit
from memgraph_agents.storage.usage import UseCounter, in_use
from memgraph_agents.storage.vector_rows import VECTORS_META, matching, vector_rows
from memgraph_agents.storage.vectors import VectorIndex, chroma_client, lease_embedded, release_embedded


class NamespaceUnusableError(StorageError):
    """One namespace's files cannot be opened (a damaged or foreign ``graph.sqlite``)."""


class StoreFault(StorageError):
    """Raised by test hooks to simulate a crash between the two stores."""


class MemoryStore:
    def __init__(
        self,
        data_dir: Path,
        namespace: str,
        embedder: EmbeddingModel,
        *,
        chroma_host: str | None = None,
        chroma_port: int = 8000,
        create: bool = True,
        graph_url: str | None = None,
        store_id: str = "default",
        exact_search_nodes: int = 100_000,
        chroma_index_nodes: int | None = None,
        spec: str | None = None,
        check_model: bool = True,
    ) -> None:
        self.namespace = validate_stored_name(namespace)
        self.data_dir = Path(data_dir)
        # Locks and, for the embedded store, the graph file: a folder of this memory's own
        # (``storage.identity``). With the graph in PostgreSQL the data dir holds only locks:
        # every worker may have its own.
        self.dir = memory_dir(self.data_dir, namespace, graph_url, store_id)
        self.graph_url, self.store_id = graph_url, store_id
        check_data_dir(self.data_dir)
        if not create and not graph_exists(self.data_dir, namespace, graph_url, store_id):
            from memgraph_agents.storage.stats import missing_namespace

            raise missing_namespace(self.data_dir, namespace, graph_url, store_id)
        self._embedded = not chroma_host
        try:
            ensure_private_dir(self.dir)  # 0700: memory is private (memgraph_agents.datadir)
            self.db: GraphStore = open_graph_store(self.data_dir, namespace, graph_url, store_id)
        except (OSError, sqlite3.Error) as e:
            raise NamespaceUnusableError(f"cannot open namespace {namespace!r} in {self.data_dir}: {e}") from e
        self.embedder = embedder
        self.exact_search_nodes = exact_search_nodes
        self.chroma_index_nodes = chroma_index_nodes  # None: the exact-search threshold
        self._indexed: bool | None = None  # whether the namespace has a Chroma index (cached once on)
        existed = self.db.get_meta(MODEL_META) is not None
        self.spec = spec or spec_for(embedder.name) or embedder.name
        stored_model = recorded_model(self.db, embedder.name)
        if not existed:
            # Indexed once it grows past the threshold; with none (0), from the start, as an empty
            # index is complete: a crash in the first commit is then repaired like any other.
            self.db.init_meta(
                chroma_index.INDEX_META, chroma_index.ON if self._index_limit() == 0 else chroma_index.OFF
            )
        # Another model's vectors: refused (``storage.embedding_mark``), unless opened to be
        # re-embedded (``storage.reembed``), which then also does what ``recover`` would.
        self.model_matches = stored_model == embedder.name
        if not self.model_matches and check_model:
            self.db.close()
            raise mismatch(namespace, stored_model, embedder.name, self.spec)
        client: Any
        release = None
        if chroma_host:  # a server: reachable now, or a clear error before anything is written
            client = chroma_client(self.data_dir, chroma_host, chroma_port)
        else:
            # Embedded Chroma is one process per data dir: its client, made once the namespace
            # needs its index, holds the data dir's process lock until this store is freed
            # (``_free``); a read that needs no index (``list``, ``stats``, exact search) never makes one.
            client, release = partial(lease_embedded, self.data_dir), partial(release_embedded, self.data_dir)
        self.vectors = VectorIndex(client, namespace, embedder.name, self._collection(legacy=existed), release)
        self.lock = self.db.writer_lock()
        self._thread_lock = threading.RLock()
        self._snap_lock = threading.Lock()
        # One ingest (check -> ... -> commit of a session) at a time per namespace, across
        # threads, event loops and processes; see ``ingest_lock``.
        # With PostgreSQL it has a cross-machine half (workers sharing no folder).
        self.ingest_lock = namespace_ingest_lock(self.dir, self.db.remote_ingest_lock())
        self._snapshot: GraphSnapshot | None = None
        # The cached snapshot with the rows it was built from (rowid appended: their order),
        # when the graph store can read them so: the base of ``read_own_commit`` after our own commit.
        self._keyed: Keyed | None = None
        # (node id, text) -> vector. Keyed by text too, so a node deleted and re-created with
        # other text (here or by another process) never gets a stale vector.
        self._vec_cache: dict[tuple[str, str], np.ndarray] = {}
        self._rows_hold_vectors: bool | None = None  # set by ``_vectors_into_rows``
        self.fault_hook = None  # tests: called between the vector write and the graph commit
        self.calibration_cached: Calibration | None = None  # ``calibration``, read once
        self.recorded_conversations: set[str] = set()  # conversation ids this store recorded (ingest)
        # Evicted from the runtime's cache: free connections and caches once no call is running.
        self.usage = UseCounter(self._free)
        if self.model_matches:
            self.recover()
        self._vectors_into_rows()

    @property
    def calibration(self) -> Calibration:
        """The scale of this namespace's cosines (``embeddings.calibration``), recorded with its
        model mark at first use (``storage.embedding_mark``)."""
        cal = self.calibration_cached
        if cal is None:
            cal = self.calibration_cached = recorded_calibration(self.db, self.embedder)
        return cal

    def _collection(self, legacy: bool) -> str:
        """This namespace's collection: recorded at creation, scoped by the store id
        (``storage.identity``); a namespace from before store ids keeps its legacy name."""
        store_id(self.data_dir)  # written at the data dir's first open, whatever the namespace
        name = self.db.get_meta("collection")
        if name is None:  # the first worker's name wins (``init_meta``): all share one collection
            if legacy:
                name = legacy_collection_name(self.namespace)
            elif is_server_url(self.graph_url):  # named by this memory alone, not by a data dir
                name = server_collection_name(self.namespace)
            else:
                name = collection_name(self.data_dir, self.namespace)
            name = self.db.init_meta("collection", name)
        return name

    @classmethod
    def open(
        cls,
        settings,
        namespace: str | None = None,
        *,
        create: bool = True,
        embedder: EmbeddingModel | None = None,
        check_model: bool = True,
    ) -> MemoryStore:
        """Open a namespace with a ``Settings`` object (data dir, embeddings, Chroma host);
        ``embedder``: the model of ``settings.embeddings`` when the caller resolved it
        (``runtime.get_embedding_model``: objects registered there)."""
        check_data_dir(Path(settings.data_dir))
        if embedder is None:
            embedder = make_embedding_model(settings.embeddings)
        return cls(
            Path(settings.data_dir),
            settings.namespace if namespace is None else namespace,
            embedder,
            chroma_host=settings.chroma_host,
            chroma_port=settings.chroma_port,
            create=create,
            graph_url=settings.graph_url,
            store_id=settings.store_id,
            exact_search_nodes=settings.exact_search_nodes,
            chroma_index_nodes=settings.chroma_index_nodes,
            spec=settings.embeddings,
            check_model=check_model,
        )

    def exists(self) -> bool:
        """Whether the namespace is still stored (not deleted by another process)."""
        return graph_exists(self.data_dir, self.namespace, self.graph_url, self.store_id)

    # -- reads -----------------------------------------------------------------------------
    @in_use
    def snapshot(self) -> GraphSnapshot:
        """The committed graph; reloaded only when another write bumped the generation."""
        gen = self.db.generation()
        snap = self._snapshot
        if snap is None or snap.generation != gen:
            with self._snap_lock:  # not the write lock: readers never wait for a commit
                snap = self._snapshot
                if snap is None or snap.generation != self.db.generation():
                    self._check_model()  # re-embedded by another process meanwhile?
                    keyed = getattr(self.db, "read_graph_keyed", None)
                    # one consistent read
                    gen, nodes, edges, sessions = keyed() if keyed is not None else self.db.read_graph()
                    snap = GraphSnapshot.from_rows(
                        gen, nodes, edges, sessions, self._load_vectors, self._snapshot, keyed=keyed is not None
                    )
                    snap.set_calibration(lambda: self.calibration)
                    self._snapshot = snap
                    self._keyed = Keyed.of(snap, nodes) if keyed is not None else None
        return snap

    @in_use
    def _load_vectors(self, ids: list[str], texts: list[str]) -> dict[str, np.ndarray]:
        """Vectors for ``ids``: from the in-process cache, the rest from the graph rows
        (``storage.vector_rows``; then cached). Chroma is asked only in a namespace whose
        vectors are not all in the rows yet (``_vectors_into_rows`` could not copy them)."""
        keys = list(zip(ids, texts))
        missing = [i for i, t in keys if (i, t) not in self._vec_cache]
        if missing:
            text_of = dict(keys)
            got = matching(self.db.node_vectors(missing), text_of)
            if self._rows_hold_vectors is False:
                rest = [i for i in missing if i not in got]
                if rest:
                    got.update(self.vectors.get_vectors(rest, [text_of[i] for i in rest]))
            for i, v in got.items():
                self._vec_cache[(i, text_of[i])] = v
        return {i: self._vec_cache[(i, t)] for i, t in keys if (i, t) in self._vec_cache}

    def _vectors_into_rows(self) -> None:
        """A namespace from before vectors were kept in the graph rows: copy its committed
        vectors from Chroma into them, once (meta ``vectors`` = ``rows`` then marks it)."""
        key, value = VECTORS_META
        if self.db.get_meta(key) == value:
            self._rows_hold_vectors = True
            return
        try:
            with self._thread_lock, self.lock:
                if self.db.get_meta(key) != value:
                    text = {r[0]: r[2] for r in self.db.raw_nodes() if r[6]}
                    got = self.vectors.get_vectors(list(text), list(text.values())) if text else {}
                    with self.db.write() as t:
                        t.put_vectors(vector_rows(got, text))
                        t.set_meta(key, value)
        except (StorageError, TimeoutError):  # another writer holds the namespace: Chroma serves, as before
            self._rows_hold_vectors = False
            return
        self._rows_hold_vectors = True

    @in_use
    def sessions(self) -> list[dict]:
        return self.db.sessions("committed")

    @in_use
    def session(self, session_id: str) -> dict | None:
        """The committed record of ``session_id``, or None."""
        return self.db.session(session_id)

    @in_use
    def note_versions(self, session_id: str) -> list[dict]:
        """A note's stored versions, oldest first (``version``, ``at``, ``text``, ``metadata``)."""
        return self.db.note_versions(session_id)

    @in_use
    def session_hash(self, session_id: str) -> str | None:
        s = self.session(session_id)
        return s["content_hash"] if s else None

    @in_use
    def search(self, vector: np.ndarray, k: int, kinds: list[str] | None = None) -> list[tuple[str, float]]:
        """Dense top-k over committed nodes, ``(node id, cosine)``: exact on the snapshot's
        vectors up to ``exact_search_nodes`` nodes (``storage.exact_search``), else Chroma."""
        snap = self.snapshot()
        if self._rows_hold_vectors and (len(snap) <= self.exact_search_nodes or not self.indexed()):
            return exact_search(snap, vector, k, kinds)
        # Over-fetch a little: pending vectors of a concurrent writer are filtered out below.
        hits = self.vectors.query(vector, k + 8, kinds)
        # Committed nodes only, with the vector of their committed text; Chroma's order among
        # equal scores is its own: near-ties go by node id (model.ranking).
        return sort_pairs([(i, s) for i, s, doc in hits if i in snap.index and snap.text[snap.index[i]] == doc])[:k]

    @in_use
    def stats(self) -> dict:
        nodes, edges = self.db.counts()
        return {
            "namespace": self.namespace,
            "sessions": len(self.sessions()),
            "nodes": nodes,
            "edges": edges,
            "vectors": self.vectors.count() if self.indexed() else self.db.embedded_count(),
            "graph_bytes": self.db.stored_bytes(),
        }

    # -- writes ----------------------------------------------------------------------------
    def own_data_dir(self, timeout: float | None = None):
        """The data dir's process lock for one write (``storage.locks.process_lock``: another
        process's writer waits for it, then writes); a read never needs it. With a Chroma server
        there is nothing to share: no lock."""
        if self._embedded:
            return process_lock(self.data_dir / "chroma", timeout)
        return nullcontext()

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

    def _check_model(self) -> None:
        """``EmbeddingMismatchError`` once the namespace records another model than ours (a
        ``memgraph reembed`` in another process): never a vector of ours among theirs."""
        stored = self.db.get_meta(MODEL_META)
        if stored is not None and stored != self.embedder.name:
            raise mismatch(self.namespace, stored, self.embedder.name, self.spec)

    def indexed(self) -> bool:
        """Whether the namespace has a Chroma index (``storage.chroma_index``); read again
        until it has one (another worker may build it), then cached: it is never removed."""
        if not self._indexed:
            self._indexed = chroma_index.is_on(self.db.get_meta(chroma_index.INDEX_META))
        return self._indexed

    def _index_limit(self) -> int:
        return chroma_index.threshold(self.exact_search_nodes, self.chroma_index_nodes)

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

    @property
    def busy(self) -> bool:
        return self.usage.users > 0

    def retire(self) -> None:
        """Free connections and caches now, or when the last running call returns."""
        self.usage.retire()

    def _free(self) -> None:
        self.db.close()
        self.vectors.close()  # an embedded Chroma client: its files and the data dir's lock
        self._forget_cached()

    def _forget_cached(self) -> None:
        """Drop the cached snapshot and vectors (after ``storage.reembed`` replaced every vector)."""
        with self._snap_lock:
            self._snapshot = None
            self._keyed = None
            self._vec_cache = {}

    def close(self) -> None:
        self.db.close()
        self.vectors.close()
