"""Chroma vector index, one collection per indexed namespace (which ones: ``storage.chroma_index``).

Vectors are computed by our cached ``EmbeddingModel`` and passed explicitly; the collection
also records a registered embedding function (``memgraph_agents``, ``storage.chroma_ef``) so
that it reopens, and answers ``query_texts``, without ever touching Chroma's downloading default.

chromadb is imported only when a client is made: a namespace without a Chroma index never
imports it (its dense queries are exact, on the vectors beside the graph rows).
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from memgraph_agents.datadir import tighten
from memgraph_agents.errors import StorageError
from memgraph_agents.storage.locks import hold_process_lock, release_process_lock

_CLIENTS: dict[str, Any] = {}  # Chroma servers' clients (no file here): kept
_EMBEDDED: dict[str, list[Any]] = {}  # embedded directory -> [client, leases, process-lock key]
_CLIENTS_LOCK = threading.Lock()


def chroma_parts() -> tuple[Any, Any, Any]:
    """``chromadb``, its client ``Settings`` and our embedding function's class (importing it
    registers it with Chroma first)."""
    # lazy: Chroma only for a namespace with an index or a Chroma server (start-up, tests/test_startup.py)
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    # lazy: imports chromadb (as above)
    from memgraph_agents.storage.chroma_ef import MemgraphEmbeddingFunction

    return chromadb, ChromaSettings, MemgraphEmbeddingFunction


def chroma_client(data_dir: Path, host: str | None = None, port: int = 8000):
    """An ``HttpClient`` for a Chroma server (one per server), or an embedded
    ``PersistentClient`` under ``data_dir/chroma`` leased until ``release_embedded`` (prefer
    ``chroma_session``, which releases it)."""
    if not host:
        return lease_embedded(data_dir)
    chromadb, ChromaSettings, _ = chroma_parts()
    key = f"http://{host}:{port}"
    with _CLIENTS_LOCK:
        if key not in _CLIENTS:
            try:
                _CLIENTS[key] = chromadb.HttpClient(
                    host=host, port=port, settings=ChromaSettings(anonymized_telemetry=False)
                )
            except Exception as e:  # chromadb says "Could not connect ...", naming no server
                raise ChromaUnavailableError(
                    f"the Chroma server at {host}:{port} is unreachable ({' '.join(str(e).split())}): "
                    "start it (`chroma run`) or check MEMGRAPH_CHROMA_HOST / MEMGRAPH_CHROMA_PORT"
                ) from e
        return _CLIENTS[key]


def _embedded_key(data_dir: Path) -> str:
    return str(Path(data_dir, "chroma").resolve())


def lease_embedded(data_dir: Path):
    """The embedded client of ``data_dir``, one per directory, open while leased: the first
    lease takes the data dir's process lock (embedded Chroma is one process per directory:
    another process's writer gets ``DataDirInUseError`` naming it), the last release closes the
    client and lets the lock go."""
    chromadb, ChromaSettings, _ = chroma_parts()
    release_collected()
    key = _embedded_key(data_dir)
    with _CLIENTS_LOCK:
        entry = _EMBEDDED.get(key)
        if entry is None:
            held = hold_process_lock(Path(key))
            try:
                client = chromadb.PersistentClient(path=key, settings=ChromaSettings(anonymized_telemetry=False))
            except BaseException:
                release_process_lock(held, chroma=True)
                raise
            tighten(Path(key))  # Chroma's files follow the umask; memory is private (datadir)
            entry = _EMBEDDED[key] = [client, 0, held]
        entry[1] += 1
        return entry[0]


# Leases of indexes collected without ``close`` (a ``Memory`` dropped unclosed): their GC
# callback only appends here (no lock: it may run on a thread inside ``_CLIENTS_LOCK``); the
# next lease or store access of this process releases them (``release_collected``).
_COLLECTED: deque[Callable[[], None]] = deque()


def release_collected() -> None:
    """Release the leases of indexes collected since the last call (never from a GC callback)."""
    while _COLLECTED:
        try:
            release = _COLLECTED.popleft()
        except IndexError:  # another thread took the last one
            return
        release()


def release_embedded(data_dir: Path) -> None:
    """One lease of ``lease_embedded`` ends; the last closes the client (its files) and the lock."""
    key = _embedded_key(data_dir)
    with _CLIENTS_LOCK:
        entry = _EMBEDDED.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] > 0:
            return
        del _EMBEDDED[key]
        try:
            entry[0].close()
        finally:
            release_process_lock(entry[2], chroma=True)
    del entry
    # chromadb's close() stops its System, but the Rust bindings keep chroma.sqlite3 open until
    # that System (a reference cycle) is collected: collect now, outside our lock, so a closed
    # client holds no file (our GC callbacks take no lock: see ``_COLLECTED``).
    gc.collect()


@contextmanager
def chroma_session(data_dir: Path, host: str | None = None, port: int = 8000) -> Iterator[Any]:
    """``chroma_client`` for a ``with`` block: an embedded client's lease ends with it."""
    client = chroma_client(data_dir, host, port)
    try:
        yield client
    finally:
        if not host:
            release_embedded(data_dir)


class ChromaUnavailableError(StorageError):
    """The Chroma server cannot be reached (server mode)."""


def _transport_errors() -> tuple[type[BaseException], ...]:
    """httpx's transport errors (imported with a server client, never for embedded Chroma)."""
    try:
        # lazy: httpx: only to check a Chroma server
        import httpx

        return (httpx.TransportError,)
    except ImportError:  # pragma: no cover - chromadb's HTTP client depends on httpx
        return ()


class _Reachable:
    """Proxy of a Chroma client or collection: a lost connection to the server becomes one clear error."""

    def __init__(self, collection, where: str) -> None:
        self._collection = collection
        self._where = where

    def __getattr__(self, name: str):
        attr = getattr(self._collection, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            try:
                return attr(*args, **kwargs)
            except _transport_errors() as e:
                raise ChromaUnavailableError(
                    f"the Chroma server at {self._where} is unreachable ({type(e).__name__}: {e}); is `chroma run` up?"
                ) from e

        return call


class VectorIndex:
    """Vectors of one namespace (collection ``name``). Id = node id, document = the node's text
    (readers use a vector only when its document is the text they expect), metadata ``kind``
    and ``session_id`` (the session whose write stored it)."""

    def __init__(
        self, client: Any, namespace: str, model_name: str, name: str, release: Callable[[], None] | None = None
    ) -> None:
        """``client``: a Chroma client, or a function making one on first use (embedded Chroma:
        a namespace that is never indexed never imports chromadb), and ``release`` ends what it
        made (``close``)."""
        self._make_client: Callable[[], Any] | None = client if callable(client) else None
        self._release = release
        self._collected: weakref.finalize | None = None
        self._client = None if callable(client) else client
        self.name = name
        self._namespace, self._model = namespace, model_name
        self._collection = None
        self._batch = 1
        self._open_lock = threading.Lock()
        self._client_lock = threading.Lock()

    @property
    def client(self) -> Any:
        if self._client is None and self._make_client is not None:
            with self._client_lock:
                if self._client is None:
                    self._client = self._make_client()
                    if self._release is not None:
                        # Collected unclosed: the lease is queued for release, never released here.
                        self._collected = weakref.finalize(self, _COLLECTED.append, self._release)
        return self._client

    def close(self) -> None:
        """Let go of a client this index made (an embedded one: its files and the data dir's
        lock, once no other index uses it); the next use makes one again."""
        if self._make_client is None:
            return
        with self._open_lock, self._client_lock:  # the order ``collection`` takes them in
            made, self._client, self._collection = self._client, None, None
            collected, self._collected = self._collected, None
        if collected is not None:
            collected.detach()
        if made is not None and self._release is not None:
            self._release()

    @property
    def opened(self) -> bool:
        """Whether the collection was opened (a read served from the graph rows never opens it)."""
        return self._collection is not None

    @property
    def collection(self):
        """The Chroma collection, opened on first use: embedded Chroma keeps every collection it
        opened loaded for the process's life, so a namespace only read never opens it."""
        if self._collection is None:
            with self._open_lock:
                if self._collection is None:
                    self._collection = self._open()
        return self._collection

    def _open(self):
        client = self.client
        settings = client.get_settings()
        server = settings.chroma_server_host and f"{settings.chroma_server_host}:{settings.chroma_server_http_port}"
        # Server mode: a lost connection is one clear ``ChromaUnavailableError``.
        api = _Reachable(client, server) if server else client
        collection = api.get_or_create_collection(
            self.name,
            embedding_function=chroma_parts()[2](self._model),
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"namespace": self._namespace, "embedding_model": self._model},
        )
        if server:
            collection = _Reachable(collection, server)
        self._batch = max(1, min(2000, api.get_max_batch_size()))
        return collection

    def upsert(
        self, ids: list[str], vectors: np.ndarray, kinds: list[str], sessions: list[str], texts: list[str]
    ) -> None:
        collection = self.collection  # opened first: it sets the batch size
        for i in range(0, len(ids), self._batch):
            j = i + self._batch
            collection.upsert(
                ids=ids[i:j],
                embeddings=vectors[i:j],
                metadatas=[{"kind": k, "session_id": s} for k, s in zip(kinds[i:j], sessions[i:j])],
                documents=texts[i:j],
            )

    def query(self, vector: np.ndarray, k: int, kinds: list[str] | None = None) -> list[tuple[str, float, str]]:
        """Top-k ``(id, cosine similarity, document)``; ``kinds`` restricts node kinds."""
        count = self.collection.count()
        if count == 0 or k <= 0:
            return []
        where = None
        if kinds:
            where = {"kind": kinds[0]} if len(kinds) == 1 else {"kind": {"$in": list(kinds)}}
        res = self.collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=min(k, count),
            where=where,
            include=["distances", "documents"],
        )
        return [
            (i, 1.0 - float(d), doc or "") for i, d, doc in zip(res["ids"][0], res["distances"][0], res["documents"][0])
        ]

    def get_vectors(self, ids: list[str], texts: list[str] | None = None) -> dict[str, np.ndarray]:
        """Vectors by id; with ``texts``, only those stored for that text (a replacement being
        written may hold a vector of the next version under the same id)."""
        want = dict(zip(ids, texts)) if texts is not None else None
        out: dict[str, np.ndarray] = {}
        collection = self.collection
        for i in range(0, len(ids), self._batch):
            res = collection.get(ids=ids[i : i + self._batch], include=["embeddings", "documents"])
            for nid, emb, doc in zip(res["ids"], res["embeddings"], res["documents"]):
                if want is None or want.get(nid) == doc:
                    out[nid] = np.asarray(emb, dtype=np.float32)
        return out

    def written_by(self, session_id: str) -> dict[str, str]:
        """``id -> document`` of the vectors a session's writes stored."""
        res = self.collection.get(where={"session_id": session_id}, include=["documents"])
        return {i: doc or "" for i, doc in zip(res["ids"], res["documents"])}

    def all_ids(self) -> list[str]:
        return list(self.collection.get(include=[])["ids"])

    def delete(self, ids: list[str]) -> None:
        collection = self.collection
        for i in range(0, len(ids), self._batch):
            collection.delete(ids=ids[i : i + self._batch])

    def count(self) -> int:
        return self.collection.count()

    def drop(self) -> None:
        """Delete the collection (the next use creates it again, empty)."""
        with self._open_lock:
            self._collection = None
        try:
            self.client.delete_collection(self.name)
        except Exception:  # already gone: dropping is idempotent
            pass
