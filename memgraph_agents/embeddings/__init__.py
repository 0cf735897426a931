"""Pluggable embeddings: the offline MiniLM default, a hash embedding for tests, a cache."""

from __future__ import annotations

from pathlib import Path

from memgraph_agents.embeddings.cache import EmbeddingModel
from memgraph_agents.embeddings.hashing import HashEmbeddings

_MODELS: dict[tuple[str, str], EmbeddingModel] = {}


def make_embedding_model(name: str, cache_path: Path | None = None) -> EmbeddingModel:
    """``'minilm'`` (offline default) or ``'hash'`` / ``'hash-N'``; one instance per (name, cache)."""
    key = (name, str(cache_path))
    if key in _MODELS:
        return _MODELS[key]
    if name in ("minilm", "all-MiniLM-L6-v2"):
        from memgraph_agents.embeddings.local import MINILM_NAME, MiniLMEmbeddings

        model = EmbeddingModel(MiniLMEmbeddings(), MINILM_NAME, cache_path)
    elif name.startswith("hash"):
        dim = int(name.split("-", 1)[1]) if "-" in name else 64
        model = EmbeddingModel(HashEmbeddings(dim), f"hash-{dim}", cache_path)
    else:
        raise ValueError(f"unknown embeddings {name!r}: use 'minilm' or 'hash'")
    _MODELS[key] = model
    return model


__all__ = ["EmbeddingModel", "HashEmbeddings", "make_embedding_model"]
