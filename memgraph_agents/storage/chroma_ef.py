"""Our embedding function, as Chroma records it in a collection's configuration.

Imported (and so registered with Chroma) before any client opens a collection: Chroma rebuilds
a collection's embedding function from its recorded name and config when it loads it.
"""

from __future__ import annotations

from typing import Any

from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

from memgraph_agents.embeddings import make_embedding_model


@register_embedding_function
class MemgraphEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma-side handle on our embedding models ('minilm', 'hash-64', ...)."""

    def __init__(self, model: str = "minilm") -> None:
        self.model = model

    def __call__(self, input: Documents) -> Embeddings:
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
