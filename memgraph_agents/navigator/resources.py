"""Live objects a navigator run needs (store, chat model, embeddings) and how nodes get them.

The graph's context is plain data (Studio edits it), so live handles travel in
``config["configurable"]``: ``navigate()`` puts the caller's store and model there; a run
started elsewhere (Studio, ``langgraph dev``) opens them from the context's settings.

Query-side vectors (question, subgoals, their mentions) are embedded by the planner in one
model call and found by every later node (and the seed retrievers) in the embedder's query
LRU, so a question costs one model call, not one per step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.retrieval.seeds import query_vectors
from memgraph_agents.runtime import chat_limiter, get_chat_model, get_store

STORE_KEY = "memgraph_store"
LLM_KEY = "memgraph_llm"


def embed_texts(embedder, texts: list[str]) -> np.ndarray:
    """Query-side vectors through the embedder's query LRU (``EmbeddingModel.embed_queries``):
    the planner embeds every text of the question in one call, later nodes find them there."""
    return query_vectors(embedder, list(texts))


@dataclass
class Resources:
    context: NavigatorContext
    store: Any
    llm: Any  # a chat model, or None (offline policy)
    timeout: float
    slot: Any = None  # the chat model's bound on calls in flight (settings' llm_max_concurrency)

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
    timeout, slot = ctx.llm_timeout, None
    if llm is not None:
        settings = settings or ctx.settings()
        timeout = timeout or settings.llm_timeout
        slot = chat_limiter(settings, llm)
    return Resources(context=ctx, store=store, llm=llm, timeout=timeout or 60.0, slot=slot)
