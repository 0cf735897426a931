"""What readers need from a store: the read side every retriever and the navigator use.

``MemoryStore`` satisfies it; so does any wrapper (the navigator's shared-vector view, a test
double over a fixed snapshot). Typing parameters with it instead of ``MemoryStore`` keeps
readers from reaching into the write path.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from memgraph_agents.storage.snapshot import GraphSnapshot


class Embedder(Protocol):
    """Text -> vectors (unit-normalised rows), as ``EmbeddingModel`` does."""

    def embed(self, texts: list[str]) -> np.ndarray: ...

    def embed_one(self, text: str) -> np.ndarray: ...


class StoreReader(Protocol):
    """The committed graph, its vector index, and the embedder it was built with."""

    @property
    def embedder(self) -> Embedder: ...

    def snapshot(self) -> GraphSnapshot: ...

    def search(self, vector: np.ndarray, k: int, kinds: list[str] | None = None) -> list[tuple[str, float]]: ...
