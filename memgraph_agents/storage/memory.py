"""``MemoryStore``: one namespace's memory = SQLite graph + Chroma vectors + cached snapshot.

Commit protocol (a session becomes visible only when both stores hold it, DESIGN §4):

1. SQLite: insert the session row as ``pending``.
2. Chroma: upsert the vectors of the session's new nodes (metadata ``session_id``).
3. SQLite, one transaction: nodes, edges, derived-row updates, status -> ``committed``.

Readers only see committed rows, and vector hits are filtered to committed node ids. On
open, a ``pending`` session (a crash between 1 and 3) is rolled back and a ``deleting`` one
(a crash mid-delete) is finished; a failure the process survives rolls back at once.
Writers hold a per-namespace file lock; ingests also hold the namespace's ingest lock
(``storage.locks``) from a session's check to its commit. Snapshots are read in one SQLite
read transaction on a per-thread connection (README "Concurrency model").
"""

from __future__ import annotations

import json
import shutil
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from filelock import FileLock
from pydantic import BaseModel, Field

from memgraph_agents.embeddings import EmbeddingModel, make_embedding_model
from memgraph_agents.errors import StorageError
from memgraph_agents.model.graph import TOPIC_OWNER, Edge, Node, NodeKind
from memgraph_agents.storage.graph_db import GraphDB
from memgraph_agents.storage.locks import namespace_ingest_lock
from memgraph_agents.storage.namespaces import namespace_dir, validate_namespace
from memgraph_agents.storage.snapshot import GraphSnapshot
from memgraph_agents.storage.vectors import VectorIndex, chroma_client


class SessionRecord(BaseModel):
    id: str
    date: str  # ISO datetime
    participants: list[str] = Field(default_factory=list)
    n_turns: int = 0
    content_hash: str = ""
    builder: str = "offline"
    info: dict = Field(default_factory=dict)


@dataclass
class SessionWrite:
    """Everything one ingested session adds, plus namespace-level rows it replaces (topics)."""

    record: SessionRecord
    nodes: list[Node]
    edges: list[Edge]
    vectors: dict[str, np.ndarray]  # node id -> embedding, for new embedded nodes
    replace_nodes: list[Node] | None = None  # derived rows rewritten wholesale (topic layer)
    replace_edges: list[Edge] | None = None
    replace_kinds: tuple[str, ...] = ()  # kinds whose old namespace-level rows are dropped first


class StoreFault(StorageError):
    """Raised by test hooks to simulate a crash between the two stores."""


class MemoryStore:
    def __init__(self, data_dir: Path, namespace: str, embedder: EmbeddingModel, *,
                 chroma_host: str | None = None, chroma_port: int = 8000, create: bool = True) -> None:
        self.namespace = validate_namespace(namespace)
        self.data_dir = Path(data_dir)
        self.dir = namespace_dir(self.data_dir, namespace)
        if not create and not (self.dir / "graph.sqlite").exists():
            from memgraph_agents.storage.stats import missing_namespace

            raise missing_namespace(self.data_dir, namespace)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder
        self.db = GraphDB(self.dir / "graph.sqlite")  # WAL switch retried: see sqlite_wal
        stored_model = self.db.get_meta("embedding_model")
        if stored_model is None:
            self.db.set_meta("embedding_model", embedder.name)
        elif stored_model != embedder.name:
            raise ValueError(
                f"namespace {namespace!r} was built with embeddings {stored_model!r}, not {embedder.name!r}: "
                "use the same embeddings or `memgraph forget --namespace` and re-ingest"
            )
        self.vectors = VectorIndex(chroma_client(self.data_dir, chroma_host, chroma_port), namespace, embedder.name)
        self.lock = FileLock(str(self.dir / "write.lock"))
        self._thread_lock = threading.RLock()
        self._snap_lock = threading.Lock()
        # One ingest (check -> ... -> commit of a session) at a time per namespace, across
        # threads, event loops and processes; see ``ingest_lock``.
        self.ingest_lock = namespace_ingest_lock(self.dir)
        self._snapshot: GraphSnapshot | None = None
        # (node id, text) -> vector. Keyed by text too, so a node deleted and re-created with
        # other text (here or by another process) never gets a stale vector.
        self._vec_cache: dict[tuple[str, str], np.ndarray] = {}
        self.fault_hook = None  # tests: called between the vector write and the graph commit
        self.recover()

    @classmethod
    def open(cls, settings, namespace: str | None = None, *, create: bool = True) -> MemoryStore:
        """Open a namespace with a ``Settings`` object (data dir, embeddings, Chroma host)."""
        embedder = make_embedding_model(settings.embeddings, Path(settings.data_dir) / "embeddings.sqlite")
        return cls(Path(settings.data_dir), settings.namespace if namespace is None else namespace, embedder,
                   chroma_host=settings.chroma_host, chroma_port=settings.chroma_port, create=create)

    # -- reads -----------------------------------------------------------------------------
    def snapshot(self) -> GraphSnapshot:
        """The committed graph; reloaded only when another write bumped the generation."""
        gen = self.db.generation()
        snap = self._snapshot
        if snap is None or snap.generation != gen:
            with self._snap_lock:  # not the write lock: readers never wait for a commit
                snap = self._snapshot
                if snap is None or snap.generation != self.db.generation():
                    gen, nodes, edges, sessions = self.db.read_graph()  # one consistent read
                    snap = GraphSnapshot.from_rows(gen, nodes, edges, sessions, self._load_vectors)
                    self._snapshot = snap
        return snap

    def _load_vectors(self, ids: list[str], texts: list[str]) -> dict[str, np.ndarray]:
        """Vectors for ``ids``: from the in-process cache, the rest from Chroma (then cached)."""
        keys = list(zip(ids, texts))
        missing = [i for i, t in keys if (i, t) not in self._vec_cache]
        if missing:
            text_of = dict(keys)
            for i, v in self.vectors.get_vectors(missing).items():
                self._vec_cache[(i, text_of[i])] = v
        return {i: self._vec_cache[(i, t)] for i, t in keys if (i, t) in self._vec_cache}

    def sessions(self) -> list[dict]:
        return self.db.sessions("committed")

    def session_hash(self, session_id: str) -> str | None:
        for s in self.db.sessions(None):
            if s["id"] == session_id and s["status"] == "committed":
                return s["content_hash"]
        return None

    def search(self, vector: np.ndarray, k: int, kinds: list[str] | None = None) -> list[tuple[str, float]]:
        """Dense top-k over committed nodes (Chroma), ``(node id, cosine)``."""
        snap = self.snapshot()
        # Over-fetch a little: pending vectors of a concurrent writer are filtered out below.
        hits = self.vectors.query(vector, k + 8, kinds)
        return [(i, s) for i, s in hits if i in snap.index][:k]

    def stats(self) -> dict:
        nodes, edges = self.db.counts()
        size = sum(p.stat().st_size for p in self.dir.rglob("*") if p.is_file())
        return {"namespace": self.namespace, "sessions": len(self.sessions()), "nodes": nodes,
                "edges": edges, "vectors": self.vectors.count(), "graph_bytes": size}

    # -- writes ----------------------------------------------------------------------------
    def commit_session(self, w: SessionWrite) -> None:
        """Atomically add a session (see the module docstring for the protocol)."""
        with self._thread_lock, self.lock:
            if any(s["id"] == w.record.id for s in self.db.sessions(None)):
                raise ValueError(f"session {w.record.id!r} already exists in namespace {self.namespace!r}")
            seq = int(self.db.conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM sessions").fetchone()[0])
            now = datetime.now(UTC).isoformat(timespec="seconds")
            r = w.record
            with self.db.transaction() as c:
                c.execute("INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?)",
                          (r.id, r.date, "pending", seq, json.dumps(r.participants), r.n_turns, r.content_hash,
                           r.builder, now, json.dumps(r.info)))
            try:
                existing = self.db.node_ids(n.id for n in w.nodes)
                new_embedded = [n for n in w.nodes if n.embed and n.id not in existing and n.id in w.vectors]
                if new_embedded:
                    self.vectors.upsert([n.id for n in new_embedded],
                                        np.stack([w.vectors[n.id] for n in new_embedded]),
                                        [n.kind.value for n in new_embedded], [n.session_id for n in new_embedded],
                                        [n.text for n in new_embedded])
                if self.fault_hook is not None:
                    self.fault_hook("after_vectors")
                with self.db.transaction() as c:
                    GraphDB.insert_nodes(c, w.nodes)
                    GraphDB.insert_edges(c, w.edges)
                    if w.replace_kinds:
                        self._replace_derived(c, w)
                    c.execute("UPDATE sessions SET status='committed' WHERE id=?", (r.id,))
            except StoreFault:  # a simulated crash: leave the pending row for ``recover``
                raise
            except BaseException:
                # A failure we survive (Chroma refused the batch, bad text, interrupt): undo the
                # pending row and any vectors now, instead of at the next open. If even that
                # fails (the Chroma server is gone), the pending row stays for ``recover``.
                try:
                    self._finish_delete(r.id)
                except Exception:
                    pass
                raise
            for n in new_embedded:
                self._vec_cache[(n.id, n.text)] = np.asarray(w.vectors[n.id], dtype=np.float32)

    def _replace_derived(self, c, w: SessionWrite) -> None:
        for kind in w.replace_kinds:
            c.execute("DELETE FROM edges WHERE src IN (SELECT id FROM nodes WHERE kind=? AND session_id=?)", (kind, TOPIC_OWNER))
            c.execute("DELETE FROM nodes WHERE kind=? AND session_id=?", (kind, TOPIC_OWNER))
        GraphDB.insert_nodes(c, w.replace_nodes or [], replace=True)
        GraphDB.insert_edges(c, w.replace_edges or [], replace=True)

    def delete_session(self, session_id: str) -> dict:
        """Remove exactly what ``session_id`` produced; shared nodes pass to another user."""
        with self._thread_lock, self.lock:
            rows = [s for s in self.db.sessions(None) if s["id"] == session_id]
            if not rows:
                raise KeyError(f"no session {session_id!r} in namespace {self.namespace!r}")
            with self.db.transaction() as c:
                c.execute("UPDATE sessions SET status='deleting' WHERE id=?", (session_id,))
            return self._finish_delete(session_id)

    def _finish_delete(self, session_id: str) -> dict:
        c = self.db.conn
        owned = [r[0] for r in c.execute("SELECT id FROM nodes WHERE session_id=?", (session_id,))]
        # Arguments are shared entities: one still used by another session survives and
        # changes owner. Everything else the session produced (events included) goes.
        shared = {r[0] for r in c.execute("SELECT id FROM nodes WHERE session_id=? AND kind=?",
                                          (session_id, NodeKind.ARGUMENT.value))}
        reassign: dict[str, str] = {}
        for nid in shared:
            r = c.execute("SELECT MIN(session_id) FROM edges WHERE (src=? OR dst=?) AND session_id NOT IN (?, ?)",
                          (nid, nid, session_id, TOPIC_OWNER)).fetchone()
            if r and r[0]:
                reassign[nid] = r[0]
        doomed = [n for n in owned if n not in reassign]
        generated = self._generated_from(c, set(doomed))  # owned by later sessions
        doomed += generated
        # Hand shared vectors to their new owner first: deleting by owner would drop them too.
        # (Both steps are idempotent, so ``recover`` can repeat them after a crash.)
        for new_owner in sorted(set(reassign.values())):
            self.vectors.set_owner([n for n, o in reassign.items() if o == new_owner], new_owner)
        self.vectors.delete_session(session_id)  # pending-session leftovers included
        if generated:
            self.vectors.delete(generated)
        with self.db.transaction() as t:
            t.execute("DELETE FROM edges WHERE session_id=?", (session_id,))
            for i in range(0, len(doomed), 900):
                chunk = doomed[i : i + 900]
                marks = ",".join("?" * len(chunk))
                t.execute(f"DELETE FROM edges WHERE src IN ({marks}) OR dst IN ({marks})", chunk + chunk)
                t.execute(f"DELETE FROM nodes WHERE id IN ({marks})", chunk)
            for nid, owner in reassign.items():
                t.execute("UPDATE nodes SET session_id=? WHERE id=?", (owner, nid))
            # Topics whose every member went away go too.
            t.execute("DELETE FROM nodes WHERE kind=? AND session_id=? AND id NOT IN (SELECT src FROM edges WHERE kind='member')",
                      (NodeKind.TOPIC.value, TOPIC_OWNER))
            t.execute("DELETE FROM sessions WHERE id=?", (session_id,))
        return {"session": session_id, "nodes_removed": len(doomed), "nodes_reassigned": len(reassign)}

    @staticmethod
    def _generated_from(c, doomed: set[str]) -> list[str]:
        """Other sessions' generated nodes (``derived`` edges) built from ``doomed`` nodes:
        a reasoning fragment over a deleted cluster goes with it (the provenance rule)."""
        out: list[str] = []
        frontier = list(doomed)
        while frontier:
            chunk, frontier = frontier[:900], frontier[900:]
            marks = ",".join("?" * len(chunk))
            for (src,) in c.execute(f"SELECT DISTINCT src FROM edges WHERE kind='derived' AND dst IN ({marks})", chunk):
                if src not in doomed:
                    doomed.add(src)
                    out.append(src)
                    frontier.append(src)
        return out

    def recover(self) -> None:
        """Roll back half-written sessions and finish half-done deletes (after a crash)."""
        broken = self.db.sessions("pending") + self.db.sessions("deleting")
        if not broken:
            return
        with self._thread_lock, self.lock:
            for s in self.db.sessions("pending") + self.db.sessions("deleting"):
                self._finish_delete(s["id"])

    def close(self) -> None:
        self.db.close()


def delete_namespace(data_dir: Path, namespace: str, *, chroma_host: str | None = None, chroma_port: int = 8000) -> None:
    """Drop a namespace's collection and files; other namespaces are untouched."""
    d = namespace_dir(Path(data_dir), namespace)
    if not (d / "graph.sqlite").exists():
        from memgraph_agents.storage.stats import missing_namespace

        raise missing_namespace(data_dir, namespace)
    # Wait for a running ingest to finish its session, then for any other writer.
    with namespace_ingest_lock(d).hold(timeout=600), FileLock(str(d / "write.lock")):
        client = chroma_client(Path(data_dir), chroma_host, chroma_port)
        from memgraph_agents.storage.namespaces import collection_name

        try:
            client.delete_collection(collection_name(namespace))
        except Exception:  # no vectors were ever written
            pass
    shutil.rmtree(d)
