"""Live objects a navigator run needs (store, chat model, embeddings) and how nodes get them.

The graph's context is plain data (Studio edits it), so live handles travel in
``config["configurable"]``: ``navigate()`` puts the caller's store and model there; a run
started elsewhere (Studio, ``langgraph dev``) opens them from the context's settings.

Query-side vectors (question, subgoals, refined queries) are embedded once per run and
shared by every node through a small in-process LRU; the store handed to the one-shot seed
retriever sees the same vectors, so a question is embedded once, not once per step.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.runtime import get_chat_model, get_store
from memgraph_agents.storage.protocols import StoreReader

STORE_KEY = "memgraph_store"
LLM_KEY = "memgraph_llm"
_LRU_SIZE = 512
_vectors: OrderedDict[tuple[int, str], np.ndarray] = OrderedDict()
_lock = threading.Lock()


def embed_texts(embedder, texts: list[str]) -> np.ndarray:
    """Embed ``texts`` with a per-process LRU keyed by (embedder, text)."""
    out: dict[str, np.ndarray] = {}
    with _lock:
        for t in texts:
            v = _vectors.get((id(embedder), t))
            if v is not None:
                _vectors.move_to_end((id(embedder), t))
                out[t] = v
    missing = [t for t in dict.fromkeys(texts) if t not in out]
    if missing:
        vecs = np.asarray(embedder.embed(missing), dtype=np.float32)
        with _lock:
            for t, v in zip(missing, vecs):
                out[t] = v
                _vectors[(id(embedder), t)] = v
            while len(_vectors) > _LRU_SIZE:
                _vectors.popitem(last=False)
    return np.stack([out[t] for t in texts]) if texts else np.zeros((0, 1), dtype=np.float32)


class _SharedVectors:
    """An embedder that answers from the run's LRU first (used by the seed retriever)."""

    def __init__(self, base) -> None:
        self.base = base

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)

    def embed(self, texts: list[str]) -> np.ndarray:
        return embed_texts(self.base, list(texts))

    def embed_one(self, text: str) -> np.ndarray:
        return embed_texts(self.base, [text])[0]


class SeedStore:
    """The store, seen through ``_SharedVectors``; everything else is the real store."""

    def __init__(self, store: StoreReader) -> None:
        self._store = store
        self.embedder = _SharedVectors(store.embedder)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@dataclass
class Resources:
    context: NavigatorContext
    store: Any
    llm: Any  # a chat model, or None (offline policy)
    timeout: float

    @property
    def offline(self) -> bool:
        return self.llm is None


def context_of(runtime) -> NavigatorContext:
    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, NavigatorContext):
        return ctx
    if ctx is None:
        return NavigatorContext()
    if isinstance(ctx, dict):
        return NavigatorContext(**ctx)
    names = NavigatorContext.__dataclass_fields__
    return NavigatorContext(**{k: v for k, v in vars(ctx).items() if k in names})


def resources(runtime, config: dict | None) -> Resources:
    """Resolve the run's store and chat model; settings are read only when something is missing."""
    ctx = context_of(runtime)
    conf = (config or {}).get("configurable", {}) or {}
    store, settings = conf.get(STORE_KEY), None
    if store is None:
        settings = ctx.settings()
        store = get_store(settings, create=False)
    if ctx.policy == "offline":
        llm = None
    elif LLM_KEY in conf:
        llm = conf[LLM_KEY]
    else:
        settings = settings or ctx.settings()
        llm = get_chat_model(settings)
    if ctx.policy == "llm" and llm is None:
        raise ValueError("navigator policy 'llm' needs a chat model: set MEMGRAPH_LLM or pass llm=")
    timeout = ctx.llm_timeout
    if llm is not None and not timeout:
        timeout = (settings or ctx.settings()).llm_timeout
    return Resources(context=ctx, store=store, llm=llm, timeout=timeout or 60.0)
