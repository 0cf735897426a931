"""A namespace opened to delete from it, with no embedding model loaded or configured.

Deleting a session, a note or a whole namespace removes rows and vectors: nothing is embedded,
so it must not need the namespace's model (a model another process or configuration uses, an
API key, weights to load). The store is opened under the model its vectors record
(``storage.embedding_mark``) with a stand-in that embeds nothing: it can never mix in another
model's vectors, and a step that would embed (repairing an unfinished write's vectors after a
crash) is one clear ``StorageError`` naming what to do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.embeddings import Embeddings

from memgraph_agents.embeddings.cache import EmbeddingModel
from memgraph_agents.errors import StorageError
from memgraph_agents.storage.embedding_mark import MODEL_META
from memgraph_agents.storage.graph_store import open_graph_store
from memgraph_agents.storage.memory_store import MemoryStore

if TYPE_CHECKING:
    from memgraph_agents.config import Settings


class NoModel(Embeddings):
    """Embeds nothing: deleting never needs to."""

    dim = None

    def __init__(self, name: str) -> None:
        self.name = name

    def _refuse(self) -> list[float]:
        raise StorageError(
            f"this step needs the embedding model {self.name!r} (repairing an unfinished write): "
            "open the memory with that model and try again"
        )

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._refuse() for _ in texts[:1]]

    def embed_query(self, text: str) -> list[float]:
        return self._refuse()


def recorded_model_name(settings: Settings, namespace: str) -> str | None:
    """The model the namespace's vectors record, read from its graph store alone."""
    db = open_graph_store(settings.data_dir, namespace, settings.graph_url, settings.store_id)
    try:
        return db.get_meta(MODEL_META)
    finally:
        db.close()


def open_to_delete(settings: Settings, namespace: str) -> MemoryStore | None:
    """The namespace's store under its own recorded model, loading none; ``None`` for a
    namespace with no model recorded (the caller opens it as usual). Close it after use."""
    name = recorded_model_name(settings, namespace)
    if name is None:
        return None
    return MemoryStore.open(settings, namespace, create=False, embedder=EmbeddingModel(NoModel(name), name))
