"""Chroma vector index, one collection per namespace (DESIGN §4).

Vectors are computed by our cached ``EmbeddingModel`` and passed explicitly; the collection
also records a registered embedding function (``memgraph_agents``) so that it reopens, and
answers ``query_texts``, without ever touching Chroma's downloading default.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

from memgraph_agents.errors import StorageError
from memgraph_agents.storage.locks import hold_process_lock
from memgraph_agents.storage.namespaces import collection_name


@register_embedding_function
class MemgraphEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma-side handle on our embedding models ('minilm', 'hash-64', ...)."""

    def __init__(self, model: str = "minilm") -> None:
        self.model = model

    def __call__(self, input: Documents) -> Embeddings:
        from memgraph_agents.embeddings import make_embedding_model

        return list(make_embedding_model(self.model).embed(list(input)))

    @staticmethod
    def name() -> str:
        return "memgraph_agents"

    def default_space(self) -> str:  # type: ignore[override]
        return "cosine"

    def supported_spaces(self) -> list[str]:  # type: ignore[override]
        return ["cosine"]

    def get_config(self) -> dict[str, Any]:
        return {"model": self.model}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MemgraphEmbeddingFunction:
        return MemgraphEmbeddingFunction(config.get("model", "minilm"))


_CLIENTS: dict[str, Any] = {}
_CLIENTS_LOCK = threading.Lock()


def chroma_client(data_dir: Path, host: str | None = None, port: int = 8000):
    """An embedded ``PersistentClient`` under ``data_dir/chroma`` or an ``HttpClient``; one per target.

    The embedded client locks ``data_dir/chroma`` for this process (one process per embedded
    data dir); several processes share one memory through a Chroma server (``host``).
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    key = f"http://{host}:{port}" if host else str(Path(data_dir, "chroma").resolve())
    with _CLIENTS_LOCK:
        if key not in _CLIENTS:
            settings = ChromaSettings(anonymized_telemetry=False)
            if host:
                _CLIENTS[key] = chromadb.HttpClient(host=host, port=port, settings=settings)
            else:
                # Embedded Chroma is single-process: lock the directory for this process's lifetime
                # (a clear ``DataDirInUseError`` for a second process; README "Concurrency model").
                hold_process_lock(Path(key))
                _CLIENTS[key] = chromadb.PersistentClient(path=key, settings=settings)
        return _CLIENTS[key]


class ChromaUnavailableError(StorageError):
    """The Chroma server cannot be reached (server mode)."""


def _transport_errors() -> tuple[type[BaseException], ...]:
    try:
        import httpx

        return (httpx.TransportError,)
    except ImportError:  # pragma: no cover - chromadb's HTTP client depends on httpx
        return ()


_TRANSPORT_ERRORS = _transport_errors()


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
            except _TRANSPORT_ERRORS as e:
                raise ChromaUnavailableError(f"the Chroma server at {self._where} is unreachable "
                                             f"({type(e).__name__}: {e}); is `chroma run` up?") from e

        return call


class VectorIndex:
    """Vectors of one namespace. Metadata: ``kind`` and owning ``session_id``."""

    def __init__(self, client, namespace: str, model_name: str) -> None:
        self.client = client
        self.name = collection_name(namespace)
        settings = client.get_settings()
        server = settings.chroma_server_host and f"{settings.chroma_server_host}:{settings.chroma_server_http_port}"
        # Server mode: a lost connection is one clear ``ChromaUnavailableError``.
        api = _Reachable(client, server) if server else client
        self.collection = api.get_or_create_collection(
            self.name,
            embedding_function=MemgraphEmbeddingFunction(model_name),
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"namespace": namespace, "embedding_model": model_name},
        )
        if server:
            self.collection = _Reachable(self.collection, server)
        self._batch = max(1, min(2000, api.get_max_batch_size()))

    def upsert(self, ids: list[str], vectors: np.ndarray, kinds: list[str], sessions: list[str], texts: list[str]) -> None:
        for i in range(0, len(ids), self._batch):
            j = i + self._batch
            self.collection.upsert(
                ids=ids[i:j],
                embeddings=vectors[i:j],
                metadatas=[{"kind": k, "session_id": s} for k, s in zip(kinds[i:j], sessions[i:j])],
                documents=texts[i:j],
            )

    def query(self, vector: np.ndarray, k: int, kinds: list[str] | None = None) -> list[tuple[str, float]]:
        """Top-k ``(id, cosine similarity)``; ``kinds`` restricts node kinds."""
        count = self.collection.count()
        if count == 0 or k <= 0:
            return []
        where = None
        if kinds:
            where = {"kind": kinds[0]} if len(kinds) == 1 else {"kind": {"$in": list(kinds)}}
        res = self.collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=min(k, count), where=where, include=["distances"],
        )
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0])]

    def get_vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(ids), self._batch):
            res = self.collection.get(ids=ids[i : i + self._batch], include=["embeddings"])
            for nid, emb in zip(res["ids"], res["embeddings"]):
                out[nid] = np.asarray(emb, dtype=np.float32)
        return out

    def all_ids(self) -> list[str]:
        return list(self.collection.get(include=[])["ids"])

    def delete(self, ids: list[str]) -> None:
        for i in range(0, len(ids), self._batch):
            self.collection.delete(ids=ids[i : i + self._batch])

    def delete_session(self, session_id: str) -> None:
        self.collection.delete(where={"session_id": session_id})

    def set_owner(self, ids: list[str], session_id: str) -> None:
        for i in range(0, len(ids), self._batch):
            chunk = ids[i : i + self._batch]
            got = self.collection.get(ids=chunk, include=["metadatas"])
            metas = [{**(m or {}), "session_id": session_id} for m in got["metadatas"]]
            if got["ids"]:
                self.collection.update(ids=got["ids"], metadatas=metas)

    def count(self) -> int:
        return self.collection.count()

    def drop(self) -> None:
        try:
            self.client.delete_collection(self.name)
        except Exception:  # already gone: dropping is idempotent
            pass
