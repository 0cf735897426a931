"""``MemoryStore``: one namespace's memory = SQLite graph + Chroma vectors + cached snapshot.

This module opens a namespace and reads it; a write goes by the commit protocol
(``storage.commit``) and what a write left after a crash is finished or rolled back on open
(``storage.recovery``): both are bases of ``MemoryStore``, with the state set here.

Readers see the old version of a session until its commit and the new one after it: snapshots
read committed rows, and a vector is used only when its stored document is the text of the
committed node. Writers hold the namespace's writer lock; ingests also hold the namespace's
ingest lock (``storage.locks``) from a session's check to its commit. Snapshots are read in one
read transaction (README "Concurrency model").

The graph store is SQLite in the data dir or PostgreSQL (``storage.graph_store`` picks it);
this module speaks only its interface (``GraphStore``, ``GraphWrite``), never SQL.
"""

from __future__ import annotations

import sqlite3
import threading
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from memgraph_agents.datadir import check_data_dir, ensure_private_dir
from memgraph_agents.embeddings import EmbeddingModel, make_embedding_model, spec_for
from memgraph_agents.embeddings.calibration import Calibration
from memgraph_agents.errors import StorageError
from memgraph_agents.model.ranking import sort_pairs
from memgraph_agents.storage import chroma_index
from memgraph_agents.storage.commit import StoreCommit
from memgraph_agents.storage.embedding_mark import MODEL_META, mismatch, recorded_calibration, recorded_model
from memgraph_agents.storage.exact_search import exact_search
from memgraph_agents.storage.graph_store import GraphStore, graph_exists, is_server_url, open_graph_store
from memgraph_agents.storage.identity import (
    collection_name,
    legacy_collection_name,
    memory_dir,
    server_collection_name,
    store_id,
)
from memgraph_agents.storage.locks import namespace_ingest_lock
from memgraph_agents.storage.namespaces import validate_stored_name
from memgraph_agents.storage.snapshot import GraphSnapshot
from memgraph_agents.storage.snapshot_delta import Keyed
from memgraph_agents.storage.stats import missing_namespace
from memgraph_agents.storage.usage import UseCounter, in_use
from memgraph_agents.storage.vector_rows import VECTORS_META, matching, vector_rows
from memgraph_agents.storage.vectors import VectorIndex, chroma_client, lease_embedded, release_embedded


class NamespaceUnusableError(StorageError):
    """One namespace's files cannot be opened (a damaged or foreign ``graph.sqlite``)."""


class MemoryStore(StoreCommit):
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
